// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/plain_tape.hpp>
#include <sphad/ad/tape.hpp>
#include <sphad/ad/variable.hpp>
#include <sphad/dist/detail/linear_record.hpp>
#include <sphad/dist/halo.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/sim/views.hpp>
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

/// x̄ += Gᵀ ȳ: the backward of a recorded gather.
struct AddScatter {
  template <class Exec, class E>
  void operator()(const Exec& exec, const HaloData<Exec>& plan, const E* ybar, E* xbar) const {
    scatter_add(exec, plan, ybar, xbar, true);
  }
};

/// ȳ += G x̄: the backward of a recorded scatter-add.
struct AddGather {
  template <class Exec, class E>
  void operator()(const Exec& exec, const HaloData<Exec>& plan, const E* xbar, E* ybar) const {
    gather(exec, plan, xbar, ybar, true);
  }
};

/// x̄ += ȳ: the backward of a sum over ranks (the loss is the one value every rank holds, each
/// rank seeding its copy alike).
struct AddShare {
  template <class Exec, class E>
  void operator()(const Exec& exec, const Communicator&, const E* ybar, E* xbar) const {
    exec::for_each_index(exec, 1, sphad::detail::AddInto<E>{xbar, ybar});
  }
};

} // namespace detail

/// Collective: `halo_gather` recorded on `tape` when `owned` is a `Variable` (a `Span` is a
/// constant): returns [owned | ghosts] as a tape-owned `Variable` [plan.extended()]. The record
/// keeps the plan alive; its backward sums each ghost's adjoint into its owner's (the reverse
/// exchange), in (rank, position) order after the owner's own. Throws on every rank when, on any
/// rank, `plan` is empty or `owned` is an empty `Variable`, a `Variable` of another or a cleared
/// tape, or not [plan.owned()].
template <template <class> class TapeT,
          class Exec,
          class X,
          std::enable_if_t<is_tape_v<TapeT<Exec>>, int> = 0>
auto record_halo_gather(TapeT<Exec>& tape, const HaloPlan<Exec>& plan, const X& owned) {
  using E = view_element_t<X>;
  constexpr const char* function = "dist::record_halo_gather";
  detail::require_plan_call(plan, function, [&] {
    sphad::detail::require_readable(owned, tape, function, "owned");
    detail::require_size(function, "owned", owned.size(), plan.owned());
  });
  Variable<E> out = sphad::detail::make_output<E>(tape, plan.extended());
  detail::gather(tape.exec(), plan.data(), primal_view(owned).data(), const_cast<E*>(out.data()),
                 false);
  detail::push_linear<detail::AddScatter>(tape, plan.communicator(), plan.shared(), owned, out,
                                          "owned");
  return out;
}

/// Collective: `halo_scatter_add` recorded on `tape` (each ghost's value summed into its owner,
/// e.g. pair-once forces computed on ghosts): returns [plan.owned()] as a tape-owned `Variable`;
/// its backward gathers the owners' adjoints to the ghosts. Throws on every rank as
/// `record_halo_gather` does, naming `plan` or `extended` ([plan.extended()]).
template <template <class> class TapeT,
          class Exec,
          class X,
          std::enable_if_t<is_tape_v<TapeT<Exec>>, int> = 0>
auto record_halo_scatter_add(TapeT<Exec>& tape, const HaloPlan<Exec>& plan, const X& extended) {
  using E = view_element_t<X>;
  constexpr const char* function = "dist::record_halo_scatter_add";
  detail::require_plan_call(plan, function, [&] {
    sphad::detail::require_readable(extended, tape, function, "extended");
    detail::require_size(function, "extended", extended.size(), plan.extended());
  });
  Variable<E> out = sphad::detail::make_output<E>(tape, plan.owned());
  detail::scatter_add(tape.exec(), plan.data(), primal_view(extended).data(),
                      const_cast<E*>(out.data()), false);
  detail::push_linear<detail::AddGather>(tape, plan.communicator(), plan.shared(), extended, out,
                                         "extended");
  return out;
}

namespace detail {

/// Σ over the ranks of `x`[0] in rank order, into a new one-element buffer (no checks).
template <class E, class Exec>
Buffer<E, Exec> sum_over_ranks(const Communicator& comm, const Exec& exec, const E* x) {
  // host sync: one scalar per rank
  const E mine = exec::to_host(exec, x, 1)[0];
  const std::vector<E> all = comm.all_gather(mine);
  E sum = all[0];
  for (std::size_t r = 1; r < all.size(); ++r) {
    sum = sum + all[r];
  }
  return exec::to_buffer(exec, std::vector<E>{sum});
}

} // namespace detail

/// Collective: the sum over ranks of each rank's one-element `x` (a local loss), added in rank
/// order on every rank, so every rank holds the same bits. Returns one element in `exec`'s
/// memory (read through the host). Throws naming `x` on every rank when it has another size on
/// any rank.
template <class E, class Exec>
Buffer<E, Exec> all_sum(const Communicator& comm, const Exec& exec, Span<const E> x) {
  comm.require_all_pass([&] { detail::require_size("dist::all_sum", "x", x.size(), 1); });
  return detail::sum_over_ranks(comm, exec, x.data());
}

/// `all_sum` recorded on `tape`: the distributed loss L = Σ_ranks L_r. Every rank then calls
/// `tape.backward(loss)`; each rank's share gets ∂L/∂L_r = 1. Throws naming `x` on every rank
/// when it is, on any rank, an empty `Variable`, a `Variable` of another or a cleared tape, or
/// not one element.
template <template <class> class TapeT,
          class Exec,
          class X,
          std::enable_if_t<is_tape_v<TapeT<Exec>>, int> = 0>
auto record_all_sum(TapeT<Exec>& tape, const Communicator& comm, const X& x) {
  using E = view_element_t<X>;
  comm.require_all_pass([&] { sim::check_view(tape, x, 1, "dist::record_all_sum", "x"); });
  const Buffer<E, Exec> sum = detail::sum_over_ranks(comm, tape.exec(), primal_view(x).data());
  Variable<E> out = sphad::detail::make_output<E>(tape, 1);
  exec::copy(tape.exec(), sum.data(), const_cast<E*>(out.data()), 1);
  detail::push_linear<detail::AddShare>(tape, comm, std::make_shared<const Communicator>(comm), x,
                                        out, "x");
  return out;
}

} // namespace sphad::dist
