// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/dist/communicator.hpp>
#include <sphad/dist/decomposition.hpp>
#include <sphad/dist/exchange.hpp>
#include <sphad/errors.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/exec/host.hpp>
#include <sphad/sim/gather.hpp>
#include <sphad/span.hpp>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

/// \file
/// \brief The halo: `dist::HaloPlan` (which owned particles each rank sends as ghosts),
/// `halo_gather` (owned values → [owned | ghosts]) and its adjoint `halo_scatter_add` (each
/// ghost's value summed back into its owner). Ghosts are ordered by (source rank, position in
/// the source's send list) and the sums run in that order: no atomics, the same bits every run.

namespace sphad::dist {

namespace detail {

/// The plan's arrays, shared by the plan and the tape records that use it.
template <class Exec>
struct HaloData {
  Pattern pattern; ///< exports forward, ghosts back
  std::int64_t owned = 0;
  std::int64_t ghosts = 0;
  Buffer<std::int32_t, Exec> exports; ///< owned indices sent, by destination rank
  sim::IndexGroups<Exec> by_owner;    ///< the exports grouped by owned index

  HaloData(const Communicator& comm,
           const Exec& exec,
           std::int64_t n,
           const std::vector<std::int32_t>& export_list,
           std::vector<std::int64_t> sends)
      : pattern(comm,
                std::move(sends),
                !std::is_same_v<Exec, exec::host>,
                "dist::HaloPlan",
                "positions"),
        owned(n), ghosts(pattern.receives), exports(exec::to_buffer(exec, export_list)),
        by_owner(exec, Span<const std::int32_t>{exports.data(), exports.size()}, n) {}
};

} // namespace detail

/// Which owned particles go to which rank as ghosts, for one decomposition and one set of
/// owned positions (rebuild it when they move past the skin, or after a migration). A copyable
/// handle: copies share the arrays (the tape's records keep them alive).
///
/// Rank s sends its particle i to rank r ≠ s when i lies within `width` of r's region (the
/// nearest periodic image on periodic axes): with `width` the largest search radius plus the
/// Verlet skin, every neighbour of r's owned particles is then on r, owned or ghost. Ghosts keep
/// their owners' positions (not shifted by a period): the searches and operators take the
/// periodic domain and its minimum images, as on one rank.
template <class Exec>
class HaloPlan {
public:
  HaloPlan() = default;

  /// Collective. `positions`: this rank's owned particles (in `exec`'s memory; read once on the
  /// host), each inside this rank's region of `decomposition`; `width` ≥ 0 the same on every
  /// rank. Throws `InvalidArgument` on every rank when one rank finds a position not finite,
  /// outside every region, or in another rank's region (migrate first), more positions than
  /// 32-bit indices address, a bad `width` or one that differs from rank 0's, or a bad
  /// `decomposition` (see `owners`: another number of regions than ranks, or not rank 0's).
  template <int D, class T>
  HaloPlan(const Communicator& comm,
           const Exec& exec,
           const Decomposition<D, T>& decomposition,
           Span<const Vec<T, D>> positions,
           T width) {
    constexpr const char* function = "dist::HaloPlan";
    const auto located = locate(comm, exec, decomposition, positions, function);
    const auto& x = located.x;
    const auto& owner = located.owner;
    // All the same ⇔ all equal to rank 0's: a rank whose width differs names itself.
    const auto widths = comm.all_gather(double(width));
    const bool valid = std::isfinite(double(width)) && width >= T(0);
    comm.require_all(valid && double(width) == widths[0], function, "width", [&] {
      return valid ? sphad::detail::concat("must be the same on every rank (got ", width,
                                           ", rank 0 has ", widths[0], ")")
                   : sphad::detail::concat("must be finite, >= 0 and the same on every rank (got ",
                                           width, ")");
    });
    const std::int64_t n = positions.size();
    std::int64_t bad = -1;
    for (std::int64_t i = 0; i < n && bad < 0; ++i) {
      bad = owner[std::size_t(i)] != comm.rank() ? i : -1;
    }
    comm.require_all(bad < 0, function, "positions", [&] {
      return sphad::detail::concat("entry ", bad, " at ", describe(x[std::size_t(bad)]),
                                   " lies in rank ", owner[std::size_t(bad)],
                                   "'s region: migrate the particles first");
    });
    std::vector<std::int32_t> exports;
    std::vector<std::int64_t> counts(std::size_t(comm.size()), 0);
    for (int r = 0; r < comm.size(); ++r) {
      if (r == comm.rank()) {
        continue;
      }
      for (std::int64_t i = 0; i < n; ++i) {
        if (decomposition.distance(x[std::size_t(i)], r) <= width) {
          exports.push_back(std::int32_t(i));
          ++counts[std::size_t(r)];
        }
      }
    }
    data_ =
        std::make_shared<const detail::HaloData<Exec>>(comm, exec, n, exports, std::move(counts));
  }

  std::int64_t owned() const { return data_ ? data_->owned : 0; }
  std::int64_t ghosts() const { return data_ ? data_->ghosts : 0; }
  /// owned + ghosts: the size of an extended array.
  std::int64_t extended() const { return owned() + ghosts(); }
  /// How many (particle, rank) pairs this rank sends.
  std::int64_t exports() const { return data_ ? data_->exports.size() : 0; }
  /// How many ghosts rank r sends this rank ([ranks]).
  const std::vector<std::int64_t>& receive_counts() const { return data_->pattern.receive_counts; }
  const Communicator& communicator() const { return data_->pattern.comm; }
  const detail::HaloData<Exec>& data() const { return *data_; }
  const std::shared_ptr<const detail::HaloData<Exec>>& shared() const { return data_; }

private:
  std::shared_ptr<const detail::HaloData<Exec>> data_;
};

namespace detail {

/// y = G x: y[0, n) = x and the ghosts after (`add`: y += G x).
template <class E, class Exec>
void gather(const Exec& exec, const HaloData<Exec>& plan, const E* x, E* y, bool add) {
  if (add) {
    exec::for_each_index(exec, plan.owned, sphad::detail::AddInto<E>{y, x});
  } else {
    exec::copy(exec, x, y, plan.owned);
  }
  Buffer<E, Exec> send(exec, plan.exports.size());
  exec::for_each_index(exec, send.size(),
                       sim::GatherRows<E>{x, plan.exports.data(), send.data(), false});
  if (add) {
    Buffer<E, Exec> ghosts(exec, plan.ghosts);
    exchange(exec, plan.pattern, true, send.data(), ghosts.data());
    exec::for_each_index(exec, plan.ghosts,
                         sphad::detail::AddInto<E>{y + plan.owned, ghosts.data()});
  } else {
    exchange(exec, plan.pattern, true, send.data(), y + plan.owned);
  }
}

/// x = Gᵀ y: x_j = y_j + the ghosts of j returned by every rank that holds one, in (rank,
/// position) order (`add`: x += Gᵀ y).
template <class E, class Exec>
void scatter_add(const Exec& exec, const HaloData<Exec>& plan, const E* y, E* x, bool add) {
  Buffer<E, Exec> returned(exec, plan.exports.size());
  exchange(exec, plan.pattern, false, y + plan.owned, returned.data());
  if (!add) {
    exec::copy(exec, y, x, plan.owned);
  } else {
    exec::for_each_index(exec, plan.owned, sphad::detail::AddInto<E>{x, y});
  }
  exec::for_each_index(exec, plan.owned,
                       sim::SumGroups<E>{plan.by_owner.offsets.data(), plan.by_owner.entries.data(),
                                         returned.data(), x, true});
}

} // namespace detail

/// Collective: `extended` = [owned | ghosts], each ghost its owner's value (positions,
/// supports, masses, kinds, densities, fields, correction states, dual numbers: any trivially
/// copyable element). `owned`: [plan.owned()]; `extended`: [plan.extended()], in `exec`'s
/// memory. Throws naming `plan` (empty) or the view of the wrong size on every rank when any rank
/// finds one.
template <class E, class Exec>
void halo_gather(const Exec& exec,
                 const HaloPlan<Exec>& plan,
                 Span<const E> owned,
                 Span<E> extended) {
  constexpr const char* function = "dist::halo_gather";
  detail::require_plan_call(plan, function, [&] {
    detail::require_size(function, "owned", owned.size(), plan.owned());
    detail::require_size(function, "extended", extended.size(), plan.extended());
  });
  detail::gather(exec, plan.data(), owned.data(), extended.data(), false);
}

/// The same into a new buffer.
template <class E, class Exec>
Buffer<E, Exec> halo_gather(const Exec& exec, const HaloPlan<Exec>& plan, Span<const E> owned) {
  Buffer<E, Exec> out(exec, plan.extended());
  halo_gather(exec, plan, owned, Span<E>{out.data(), out.size()});
  return out;
}

/// Collective, the adjoint of `halo_gather`: `owned`_j = `extended`_j + Σ over the ranks holding
/// j as a ghost of that ghost's value, summed in (rank, position) order. `extended`:
/// [plan.extended()]; `owned`: [plan.owned()]. Throws naming `plan` (empty) or the view of the
/// wrong size on every rank when any rank finds one.
template <class E, class Exec>
void halo_scatter_add(const Exec& exec,
                      const HaloPlan<Exec>& plan,
                      Span<const E> extended,
                      Span<E> owned) {
  constexpr const char* function = "dist::halo_scatter_add";
  detail::require_plan_call(plan, function, [&] {
    detail::require_size(function, "extended", extended.size(), plan.extended());
    detail::require_size(function, "owned", owned.size(), plan.owned());
  });
  detail::scatter_add(exec, plan.data(), extended.data(), owned.data(), false);
}

} // namespace sphad::dist
