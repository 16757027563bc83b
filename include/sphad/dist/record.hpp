// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/tape.hpp>
#include <sphad/ad/variable.hpp>
#include <sphad/dist/halo.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/sim/detail/views.hpp>
#include <sphad/span.hpp>

#include <memory>
#include <vector>

/// \file
/// \brief The halo exchange and the sum over ranks recorded on a `Tape`: `record_halo_gather`
/// (backward: the ghosts' adjoints summed into their owners), `record_halo_scatter_add`
/// (backward: a gather) and `record_all_sum` (a loss summed over the ranks). Their backward
/// sweeps communicate, so every rank records the same calls in the same order and sweeps its
/// tape backward together with the others.

namespace sphad::dist {

namespace detail {

/// A recorded y = G x: its backward adds Gᵀ ȳ to x̄.
template <class Exec, class E>
struct HaloGatherRecord final : sphad::detail::Record<Exec> {
  std::shared_ptr<const HaloData<Exec>> plan;
  Variable<E> x;
  Variable<E> output;
  std::vector<sphad::detail::VersionSnapshot> snapshots;
  HaloGatherRecord(std::shared_ptr<const HaloData<Exec>> p, Variable<E> in, Variable<E> out)
      : plan(std::move(p)), x(std::move(in)), output(std::move(out)) {
    sphad::detail::snapshot_version(snapshots, "owned", x);
    sphad::detail::snapshot_version(snapshots, "output", output);
  }
  void check_versions() const override { sphad::detail::check_snapshots(snapshots); }
  std::int64_t bytes() const override { return 0; }
  void backward(Tape<Exec>& tape) const override {
    const Span<E> ybar = sphad::detail::TapeAccess::gradient_slot(tape, output, true);
    const Span<E> xbar = sphad::detail::TapeAccess::gradient_slot(tape, x);
    scatter_add(tape.exec(), *plan, ybar.data(), xbar.data(), true);
  }
};

/// A recorded x = Gᵀ y: its backward adds G x̄ to ȳ.
template <class Exec, class E>
struct HaloScatterAddRecord final : sphad::detail::Record<Exec> {
  std::shared_ptr<const HaloData<Exec>> plan;
  Variable<E> y;
  Variable<E> output;
  std::vector<sphad::detail::VersionSnapshot> snapshots;
  HaloScatterAddRecord(std::shared_ptr<const HaloData<Exec>> p, Variable<E> in, Variable<E> out)
      : plan(std::move(p)), y(std::move(in)), output(std::move(out)) {
    sphad::detail::snapshot_version(snapshots, "extended", y);
    sphad::detail::snapshot_version(snapshots, "output", output);
  }
  void check_versions() const override { sphad::detail::check_snapshots(snapshots); }
  std::int64_t bytes() const override { return 0; }
  void backward(Tape<Exec>& tape) const override {
    const Span<E> xbar = sphad::detail::TapeAccess::gradient_slot(tape, output, true);
    const Span<E> ybar = sphad::detail::TapeAccess::gradient_slot(tape, y);
    gather(tape.exec(), *plan, xbar.data(), ybar.data(), true);
  }
};

/// A recorded sum over ranks of one element: every rank holds the sum, and the loss is that one
/// value (each rank seeds its copy alike), so x̄ = ȳ on every rank.
template <class Exec, class E>
struct AllSumRecord final : sphad::detail::Record<Exec> {
  Variable<E> x;
  Variable<E> output;
  std::vector<sphad::detail::VersionSnapshot> snapshots;
  AllSumRecord(Variable<E> in, Variable<E> out) : x(std::move(in)), output(std::move(out)) {
    sphad::detail::snapshot_version(snapshots, "x", x);
    sphad::detail::snapshot_version(snapshots, "output", output);
  }
  void check_versions() const override { sphad::detail::check_snapshots(snapshots); }
  std::int64_t bytes() const override { return 0; }
  void backward(Tape<Exec>& tape) const override {
    const Span<E> ybar = sphad::detail::TapeAccess::gradient_slot(tape, output, true);
    const Span<E> xbar = sphad::detail::TapeAccess::gradient_slot(tape, x);
    exec::for_each_index(tape.exec(), 1, sphad::detail::AddInto<E>{xbar.data(), ybar.data()});
  }
};

} // namespace detail

/// Collective: `halo_gather` recorded on `tape` when `owned` is a `Variable` (a `Span` is a
/// constant): returns [owned | ghosts] as a tape-owned `Variable` [plan.extended()]. The record
/// keeps the plan alive; its backward sums each ghost's adjoint into its owner's (the reverse
/// exchange), in (rank, position) order after the owner's own.
template <class Exec, class X>
auto record_halo_gather(Tape<Exec>& tape, const HaloPlan<Exec>& plan, const X& owned) {
  using E = view_element_t<X>;
  constexpr const char* function = "dist::record_halo_gather";
  detail::require_plan(plan, function);
  sphad::detail::require_tracks_an_array(owned, &tape, function, "owned");
  detail::require_sizes(plan, owned.size(), plan.owned(), "owned", plan.extended(), plan.extended(),
                        "owned", function);
  Variable<E> out = sphad::detail::TapeAccess::make_output<E>(tape, plan.extended());
  detail::gather(tape.exec(), plan.data(), primal_view(owned).data(), const_cast<E*>(out.data()),
                 false);
  if constexpr (is_variable_v<X>) {
    sphad::detail::TapeAccess::push(
        tape, std::make_unique<detail::HaloGatherRecord<Exec, E>>(plan.shared(), owned, out));
  }
  return out;
}

/// Collective: `halo_scatter_add` recorded on `tape` (each ghost's value summed into its owner,
/// e.g. pair-once forces computed on ghosts): returns [plan.owned()] as a tape-owned `Variable`;
/// its backward gathers the owners' adjoints to the ghosts.
template <class Exec, class X>
auto record_halo_scatter_add(Tape<Exec>& tape, const HaloPlan<Exec>& plan, const X& extended) {
  using E = view_element_t<X>;
  constexpr const char* function = "dist::record_halo_scatter_add";
  detail::require_plan(plan, function);
  sphad::detail::require_tracks_an_array(extended, &tape, function, "extended");
  detail::require_sizes(plan, extended.size(), plan.extended(), "extended", plan.owned(),
                        plan.owned(), "extended", function);
  Variable<E> out = sphad::detail::TapeAccess::make_output<E>(tape, plan.owned());
  detail::scatter_add(tape.exec(), plan.data(), primal_view(extended).data(),
                      const_cast<E*>(out.data()), false);
  if constexpr (is_variable_v<X>) {
    sphad::detail::TapeAccess::push(tape, std::make_unique<detail::HaloScatterAddRecord<Exec, E>>(
                                              plan.shared(), extended, out));
  }
  return out;
}

/// Collective: the sum over ranks of each rank's one-element `x` (a local loss), added in rank
/// order on every rank, so every rank holds the same bits. Returns one element in `exec`'s
/// memory (read through the host).
template <class E, class Exec>
Buffer<E, Exec> all_sum(const Communicator& comm, const Exec& exec, Span<const E> x) {
  SPHAD_REQUIRE(x.size() == 1, "dist::all_sum", "x",
                sphad::detail::concat("has ", x.size(), " elements where 1 is needed"));
  // host sync: one scalar per rank
  const E mine = exec::to_host(exec, x.data(), 1)[0];
  const std::vector<E> all = comm.all_gather(mine);
  E sum = all[0];
  for (std::size_t r = 1; r < all.size(); ++r) {
    sum = sum + all[r];
  }
  return exec::to_buffer(exec, std::vector<E>{sum});
}

/// `all_sum` recorded on `tape`: the distributed loss L = Σ_ranks L_r. Every rank then calls
/// `tape.backward(loss)`; each rank's share gets ∂L/∂L_r = 1.
template <class Exec, class X>
auto record_all_sum(Tape<Exec>& tape, const Communicator& comm, const X& x) {
  using E = view_element_t<X>;
  sim::detail::check_view(tape, x, 1, "dist::record_all_sum", "x");
  const Buffer<E, Exec> sum = all_sum(comm, tape.exec(), primal_view(x));
  Variable<E> out = sphad::detail::TapeAccess::make_output<E>(tape, 1);
  exec::copy(tape.exec(), sum.data(), const_cast<E*>(out.data()), 1);
  if constexpr (is_variable_v<X>) {
    sphad::detail::TapeAccess::push(tape, std::make_unique<detail::AllSumRecord<Exec, E>>(x, out));
  }
  return out;
}

} // namespace sphad::dist
