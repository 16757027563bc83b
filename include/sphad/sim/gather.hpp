// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual_view.hpp>
#include <sphad/ad/plain_tape.hpp>
#include <sphad/ad/tape.hpp>
#include <sphad/ad/variable.hpp>
#include <sphad/errors.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/exec/group.hpp>
#include <sphad/exec/host.hpp>
#include <sphad/sim/views.hpp>
#include <sphad/span.hpp>

#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

/// \file
/// \brief Index maps recorded on a tape: `record_gather` (y_i = x[index_i]: boundary
/// conditions, particle subsets) and `record_scatter_add` (y_j = Σ_{index_i = j} x_i). Each one's
/// adjoint is the other's form; the sums over an index group run over the group in increasing
/// i (the positions grouped by `exec::group_by_key` at record time): no atomics, the same bits
/// on every run and any number of threads.

namespace sphad {

namespace sim {

/// The row kernels of the gathers and scatter-adds (and of the distributed halo exchange and
/// migration, which move rows the same way), for `exec::for_each_index`.
/// y[i] (+)= x[index[i]].
template <class E>
struct GatherRows {
  const E* x;
  const std::int32_t* index;
  E* y;
  bool add;
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t i) const {
    y[i] = add ? y[i] + x[index[i]] : x[index[i]];
  }
};

/// y[j] (+)= Σ x[entries[t]] over group j's positions t (in increasing order; zero for none).
template <class E>
struct SumGroups {
  const std::int64_t* offsets;
  const std::int64_t* entries;
  const E* x;
  E* y;
  bool add;
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t j) const {
    E sum{};
    for (std::int64_t t = offsets[j]; t < offsets[j + 1]; ++t) {
      sum = sum + x[entries[t]];
    }
    y[j] = add ? y[j] + sum : sum;
  }
};

/// The positions of `index` grouped by target (`exec::group_by_key`).
template <class Exec>
struct IndexGroups {
  Buffer<std::int64_t, Exec> offsets; ///< [targets + 1]
  Buffer<std::int64_t, Exec> entries; ///< [index.size()]
  IndexGroups(const Exec& exec, Span<const std::int32_t> index, std::int64_t targets)
      : offsets(exec, targets + 1), entries(exec, index.size()) {
    exec::group_by_key(exec, index.data(), index.size(), targets, offsets.data(), entries.data());
  }
  std::int64_t bytes() const { return (offsets.size() + entries.size()) * 8; }
};

} // namespace sim

namespace sim::detail {

/// Throws naming `index` of `function` when an index lies outside [0, n) (read on the host
/// only: on CUDA the indices are not read back, which would synchronize).
template <class Exec>
void check_index(const Exec&,
                 Span<const std::int32_t> index,
                 std::int64_t n,
                 const char* function) {
  if constexpr (std::is_same_v<Exec, exec::host>) {
    for (std::int64_t i = 0; i < index.size(); ++i) {
      SPHAD_REQUIRE(index[i] >= 0 && index[i] < n, function, "index",
                    sphad::detail::concat("entry ", i, " is ", index[i], ", outside [0, ", n, ")"));
    }
  }
}

/// A recorded gather y = x[index]: its backward sums ȳ over each x_j's group.
template <class Exec, class E>
struct GatherRecord final : sphad::detail::Record<Exec> {
  Variable<E> x;
  Variable<E> output;
  IndexGroups<Exec> groups;
  std::vector<sphad::detail::VersionSnapshot> snapshots;
  GatherRecord(const Exec& exec, Variable<E> in, Variable<E> out, Span<const std::int32_t> index)
      : x(std::move(in)), output(std::move(out)), groups(exec, index, x.size()) {
    sphad::detail::snapshot_version(snapshots, "x", x);
    sphad::detail::snapshot_version(snapshots, "output", output);
  }
  void check_versions() const override { sphad::detail::check_snapshots(snapshots); }
  std::int64_t bytes() const override { return groups.bytes(); }
  void backward(Tape<Exec>& tape) const override {
    const Span<E> ybar = sphad::detail::TapeAccess::gradient_slot(tape, output, true);
    const Span<E> xbar = sphad::detail::TapeAccess::gradient_slot(tape, x);
    exec::for_each_index(
        tape.exec(), x.size(),
        SumGroups<E>{groups.offsets.data(), groups.entries.data(), ybar.data(), xbar.data(), true});
  }
};

/// A recorded scatter-add y_j = Σ_{index_i = j} x_i: its backward gathers ȳ at each index.
template <class Exec, class E>
struct ScatterAddRecord final : sphad::detail::Record<Exec> {
  Variable<E> x;
  Variable<E> output;
  Buffer<std::int32_t, Exec> index; ///< a copy of the caller's
  std::vector<sphad::detail::VersionSnapshot> snapshots;
  ScatterAddRecord(const Exec& exec, Variable<E> in, Variable<E> out, Span<const std::int32_t> at)
      : x(std::move(in)), output(std::move(out)), index(exec, at.size()) {
    exec::copy(exec, at.data(), index.data(), at.size());
    sphad::detail::snapshot_version(snapshots, "x", x);
    sphad::detail::snapshot_version(snapshots, "output", output);
  }
  void check_versions() const override { sphad::detail::check_snapshots(snapshots); }
  std::int64_t bytes() const override { return index.size() * 4; }
  void backward(Tape<Exec>& tape) const override {
    const Span<E> ybar = sphad::detail::TapeAccess::gradient_slot(tape, output, true);
    const Span<E> xbar = sphad::detail::TapeAccess::gradient_slot(tape, x);
    exec::for_each_index(tape.exec(), x.size(),
                         GatherRows<E>{ybar.data(), index.data(), xbar.data(), true});
  }
};

} // namespace sim::detail

/// y_i = x[index_i] for i < index.size(), recorded on `tape` when `x` is a `Variable` (its
/// gradient: x̄_j = Σ_{index_i = j} ȳ_i, summed over i in increasing order). `x`: a view of n
/// elements (`Variable` or `Span`); `index`: [m] values in [0, n), repeats allowed. The record
/// keeps the positions grouped by target (16 bytes per index). Throws `InvalidArgument` naming
/// `x` or `index` (an index outside [0, n): checked on the host; CUDA does not read the indices
/// back), before the tape changes.
template <class T, class X, std::enable_if_t<is_tape_v<T>, int> = 0>
auto record_gather(T& tape, const X& x, Span<const std::int32_t> index) {
  using Exec = std::decay_t<decltype(tape.exec())>;
  using E = view_element_t<X>;
  sim::check_view(tape, x, x.size(), "record_gather", "x");
  sim::detail::check_index(tape.exec(), index, x.size(), "record_gather");
  const auto out = sphad::detail::make_output<E>(tape, index.size());
  exec::for_each_index(
      tape.exec(), index.size(),
      sim::GatherRows<E>{primal_view(x).data(), index.data(), const_cast<E*>(out.data()), false});
  if constexpr (!is_plain_tape_v<T> && is_variable_v<X>) {
    sphad::detail::TapeAccess::push(
        tape, std::make_unique<sim::detail::GatherRecord<Exec, E>>(tape.exec(), x, out, index));
  }
  return out;
}

/// y_j = Σ_{index_i = j} x_i for j < n (zero where no index points), summed over i in increasing
/// order, recorded on `tape` when `x` is a `Variable` (its gradient: x̄_i = ȳ[index_i]). `x`
/// and `index`: [m] each, the indices in [0, n). The record keeps a copy of `index`. Throws
/// `InvalidArgument` naming `n`, `x` or `index` (see `record_gather`), before the tape changes.
template <class T, class X, std::enable_if_t<is_tape_v<T>, int> = 0>
auto record_scatter_add(T& tape, const X& x, Span<const std::int32_t> index, std::int64_t n) {
  using E = view_element_t<X>;
  SPHAD_REQUIRE(n >= 0, "record_scatter_add", "n", sphad::detail::concat("negative (got ", n, ")"));
  using Exec = std::decay_t<decltype(tape.exec())>;
  sim::check_view(tape, x, index.size(), "record_scatter_add", "x");
  sim::detail::check_index(tape.exec(), index, n, "record_scatter_add");
  const auto out = sphad::detail::make_output<E>(tape, n);
  const sim::IndexGroups<Exec> groups(tape.exec(), index, n);
  exec::for_each_index(tape.exec(), n,
                       sim::SumGroups<E>{groups.offsets.data(), groups.entries.data(),
                                         primal_view(x).data(), const_cast<E*>(out.data()), false});
  if constexpr (!is_plain_tape_v<T> && is_variable_v<X>) {
    sphad::detail::TapeAccess::push(
        tape, std::make_unique<sim::detail::ScatterAddRecord<Exec, E>>(tape.exec(), x, out, index));
  }
  return out;
}

} // namespace sphad
