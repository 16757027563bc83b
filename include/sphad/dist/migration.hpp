// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/plain_tape.hpp>
#include <sphad/ad/tape.hpp>
#include <sphad/ad/variable.hpp>
#include <sphad/dist/communicator.hpp>
#include <sphad/dist/decomposition.hpp>
#include <sphad/dist/detail/linear_record.hpp>
#include <sphad/dist/exchange.hpp>
#include <sphad/errors.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/exec/host.hpp>
#include <sphad/sim/gather.hpp>
#include <sphad/span.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

/// \file
/// \brief Migration: after particles move, each goes to the rank whose region now holds it.
/// `dist::MigrationPlan` records where every particle goes (integers, never differentiated);
/// `migrate` moves arrays along it and `record_migrate` records the move, whose adjoint sends
/// each adjoint back the way its particle came (the plan reversed).

namespace sphad::dist {

namespace detail {

template <class Exec>
struct MigrationData {
  Pattern pattern;                  ///< the particles forward, their adjoints back
  Buffer<std::int32_t, Exec> order; ///< old indices in send order (a permutation)
  std::int64_t before = 0, after = 0;

  MigrationData(const Communicator& comm,
                const Exec& exec,
                const std::vector<std::int32_t>& send_order,
                std::vector<std::int64_t> sends)
      : pattern(comm,
                std::move(sends),
                !std::is_same_v<Exec, exec::host>,
                "dist::MigrationPlan",
                "positions"),
        order(exec::to_buffer(exec, send_order)), before(std::int64_t(send_order.size())),
        after(pattern.receives) {}
};

/// y[order[k]] (+)= x[k]: the inverse of a gather by a permutation.
template <class E>
struct ScatterRows {
  const E* x;
  const std::int32_t* order;
  E* y;
  bool add;
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t k) const {
    y[order[k]] = add ? y[order[k]] + x[k] : x[k];
  }
};

/// out = the migrated `in` (`add`: out += ...).
template <class E, class Exec>
void migrate_forward(const Exec& exec, const MigrationData<Exec>& plan, const E* in, E* out) {
  Buffer<E, Exec> send(exec, plan.before);
  exec::for_each_index(exec, plan.before,
                       sim::GatherRows<E>{in, plan.order.data(), send.data(), false});
  exchange(exec, plan.pattern, true, send.data(), out);
}

/// in_bar (+)= the adjoints `out_bar` sent back to where each particle came from.
template <class E, class Exec>
void migrate_back(
    const Exec& exec, const MigrationData<Exec>& plan, const E* out_bar, E* in_bar, bool add) {
  Buffer<E, Exec> returned(exec, plan.before);
  exchange(exec, plan.pattern, false, out_bar, returned.data());
  exec::for_each_index(exec, plan.before,
                       ScatterRows<E>{returned.data(), plan.order.data(), in_bar, add});
}

} // namespace detail

/// Where each of this rank's particles goes: to the rank whose region holds its position
/// (this rank's own included). After the move a rank's particles are ordered by (source rank,
/// index on the source): the same order on every run. A copyable handle (the tape's records
/// keep its arrays).
template <class Exec>
class MigrationPlan {
public:
  MigrationPlan() = default;

  /// Collective. `positions`: this rank's particles (in `exec`'s memory; read once on the
  /// host). Throws `InvalidArgument` on every rank when a rank holds a position in no region
  /// (not finite, or outside the domain on an open axis) or more positions than 32-bit indices
  /// address, or a bad `decomposition` (see `owners`: another number of regions than ranks, or
  /// not rank 0's).
  template <int D, class T>
  MigrationPlan(const Communicator& comm,
                const Exec& exec,
                const Decomposition<D, T>& decomposition,
                Span<const Vec<T, D>> positions) {
    const auto located = locate(comm, exec, decomposition, positions, "dist::MigrationPlan");
    const auto& x = located.x;
    const auto& owner = located.owner;
    std::vector<std::int64_t> counts(static_cast<std::size_t>(comm.size()), 0);
    for (const int r : owner) {
      ++counts[std::size_t(r)];
    }
    // A counting sort by destination, stable in the index.
    std::vector<std::int64_t> next(counts.size(), 0);
    for (std::size_t r = 1; r < counts.size(); ++r) {
      next[r] = next[r - 1] + counts[r - 1];
    }
    std::vector<std::int32_t> order(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      order[std::size_t(next[std::size_t(owner[i])]++)] = std::int32_t(i);
    }
    data_ =
        std::make_shared<const detail::MigrationData<Exec>>(comm, exec, order, std::move(counts));
  }

  /// Particles on this rank before and after the move.
  std::int64_t before() const { return data_ ? data_->before : 0; }
  std::int64_t after() const { return data_ ? data_->after : 0; }
  /// How many particles this rank sends to each rank (its own count: those that stay).
  const std::vector<std::int64_t>& send_counts() const { return data_->pattern.send_counts; }
  const Communicator& communicator() const { return data_->pattern.comm; }
  const detail::MigrationData<Exec>& data() const { return *data_; }
  const std::shared_ptr<const detail::MigrationData<Exec>>& shared() const { return data_; }

private:
  std::shared_ptr<const detail::MigrationData<Exec>> data_;
};

namespace detail {

/// x̄ += Mᵀ ȳ: the backward of a recorded migration.
struct AddMigratedBack {
  template <class Exec, class E>
  void operator()(const Exec& exec, const MigrationData<Exec>& plan, const E* ybar, E* xbar) const {
    migrate_back(exec, plan, ybar, xbar, true);
  }
};

} // namespace detail

/// Collective: `out` = `in` moved along the plan ([plan.before()] → [plan.after()], in
/// `exec`'s memory; any trivially copyable element: positions, fields, kinds, dual numbers).
/// Throws naming `plan` (empty) or the view of the wrong size on every rank when any rank finds
/// one.
template <class E, class Exec>
void migrate(const Exec& exec, const MigrationPlan<Exec>& plan, Span<const E> in, Span<E> out) {
  constexpr const char* function = "dist::migrate";
  detail::require_plan_call(plan, function, [&] {
    detail::require_size(function, "in", in.size(), plan.before());
    detail::require_size(function, "out", out.size(), plan.after());
  });
  detail::migrate_forward(exec, plan.data(), in.data(), out.data());
}

/// The same into a new buffer.
template <class E, class Exec>
Buffer<E, Exec> migrate(const Exec& exec, const MigrationPlan<Exec>& plan, Span<const E> in) {
  Buffer<E, Exec> out(exec, plan.after());
  migrate(exec, plan, in, Span<E>{out.data(), out.size()});
  return out;
}

/// Collective: `migrate` recorded on `tape` when `x` is a `Variable` (a `Span` is moved and
/// not recorded): returns the moved array as a tape-owned `Variable` [plan.after()]. The
/// record keeps the plan; its backward moves the adjoints back (the reverse exchange, then the
/// inverse permutation: no sums). Throws on every rank when, on any rank, `plan` is empty or `x`
/// is an empty `Variable`, a `Variable` of another or a cleared tape, or not [plan.before()].
template <template <class> class TapeT,
          class Exec,
          class X,
          std::enable_if_t<is_tape_v<TapeT<Exec>>, int> = 0>
auto record_migrate(TapeT<Exec>& tape, const MigrationPlan<Exec>& plan, const X& x) {
  using E = view_element_t<X>;
  constexpr const char* function = "dist::record_migrate";
  detail::require_plan_call(plan, function, [&] {
    sphad::detail::require_readable(x, tape, function, "x");
    detail::require_size(function, "x", x.size(), plan.before());
  });
  Variable<E> out = sphad::detail::make_output<E>(tape, plan.after());
  detail::migrate_forward(tape.exec(), plan.data(), primal_view(x).data(),
                          const_cast<E*>(out.data()));
  detail::push_linear<detail::AddMigratedBack>(tape, plan.communicator(), plan.shared(), x, out,
                                               "x");
  return out;
}

} // namespace sphad::dist
