// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/plain_tape.hpp>
#include <sphad/ad/tape.hpp>
#include <sphad/ad/variable.hpp>
#include <sphad/errors.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/exec/host.hpp>
#include <sphad/sim/detail/schedule.hpp>
#include <sphad/sim/state.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

/// \file
/// \brief `rollout_gradient`: the gradient of a loss of the final state of T steps
/// s_{k+1} = step(s_k, θ), with respect to s_0 and θ, keeping at most a given number of states
/// and recomputing the others (binomial checkpointing). One tape per recorded step, cleared
/// after its sweep; the gradients are the same bits for every number of checkpoints.

namespace sphad::sim {

/// Knobs of `rollout_gradient`.
struct RolloutOptions {
  /// The most states kept as checkpoints at once, s_0 (the caller's) included: at least 1;
  /// 0 (the default) or at least the step count keeps every state, so nothing is recomputed.
  /// A rollout also holds one working state and one step's tape.
  std::int64_t checkpoints = 0;
};

/// What a `rollout_gradient` did.
template <class Exec>
struct RolloutResult {
  Buffer<double, Exec> loss;         ///< L (one element, in the space's memory: no read back)
  std::int64_t advances = 0;         ///< plain steps (not recorded), the first sweep's included
  std::int64_t recordings = 0;       ///< recorded steps: the step count
  std::int64_t peak_checkpoints = 0; ///< the most states kept at once, s_0 included
};

namespace detail {
template <class V>
inline constexpr bool is_float_or_double_variable =
    std::is_same_v<V, Variable<double>> || std::is_same_v<V, Variable<float>>;

/// One loss value widened to double (on the device where the space is one).
template <class T>
struct WidenOne {
  const T* from;
  double* to;
  SPHAD_HOST_DEVICE void operator()(std::int64_t) const { *to = double(*from); }
};
/// Copies the loss L (a float or a double) into the result's double, in the space's memory.
template <class Exec, class T>
void copy_loss(const Exec& exec, const T* from, double* to) {
  if constexpr (std::is_same_v<T, double>) {
    exec::copy(exec, from, to, 1);
  } else {
    exec::for_each_index(exec, 1, WidenOne<T>{from, to});
  }
}

/// Throws naming `step` of `function` when step k returned an array that is an empty
/// `Variable`, or an output of a tape other than its own `tape` or of one that was cleared.
template <class TapeT, class S>
void require_step_output(const TapeT& tape, const S& out, std::int64_t k, const char* function) {
  std::size_t j = 0;
  [[maybe_unused]] const auto check = [&](const auto& a) {
    const auto returned = [&](const char* what) {
      return sphad::detail::concat("step ", k, " returned array ", j, " of the state's fields() ",
                                   what);
    };
    SPHAD_REQUIRE(a.state != nullptr, function, "step",
                  returned("as an empty Variable (default-constructed: it tracks no array); a "
                           "step returns every array of the next state: an input passed "
                           "through, or an output recorded on the tape it is given"));
    SPHAD_REQUIRE(!a.state->released, function, "step",
                  returned("as an output of a tape that was cleared or destroyed (its memory is "
                           "gone); record it on the tape the step is given"));
    SPHAD_REQUIRE(a.state->owner == nullptr || a.state->owner == &tape, function, "step",
                  returned("as an output of another tape; record it on the tape the step is "
                           "given"));
    ++j;
  };
  std::apply([&](const auto&... a) { (check(a), ...); }, fields_of(out));
}

/// Whether `step` takes a plain tape (a step written over its tape type). Then the advances run
/// it on a `PlainTape`, recording nothing and reusing the plain tape's memory; a step that takes
/// only `Tape<Exec>&` runs on a fresh recording tape whose records are dropped.
template <class Exec, class State, class Params, class Step>
inline constexpr bool takes_plain_tape_v =
    std::is_invocable_v<const Step&,
                        PlainTape<Exec>&,
                        const decltype(views(std::declval<State&>()))&,
                        const decltype(views(std::declval<Params&>()))&,
                        std::int64_t>;

/// s ← step(s, θ) at step k, run plain (views in, nothing kept; on `plain` when the step takes
/// a plain tape); `function` names the caller in errors.
template <class Exec, class State, class Params, class Step>
void advance_one(const Exec& exec,
                 PlainTape<Exec>& plain,
                 State& s,
                 const Params& params,
                 const Step& step,
                 std::int64_t k,
                 const char* function) {
  if constexpr (takes_plain_tape_v<Exec, State, Params, Step>) {
    plain.reset(); // the previous step's outputs were copied into s
    const auto out = step(plain, views(s), views(params), k);
    require_step_output(plain, out, k, function);
    assign(exec, out, s);
  } else {
    Tape<Exec> tape(exec);
    const auto out = step(tape, views(s), views(params), k);
    require_step_output(tape, out, k, function);
    assign(exec, out, s);
  }
}

/// The rollout's work: advances, checkpoints, and the reverse sweep of one step at a time.
template <class Exec,
          template <class>
          class State,
          template <class>
          class Params,
          class Step,
          class Loss>
struct Rollout {
  using Stored = sim::Stored<Exec>;
  const Exec& exec;
  std::int64_t steps;
  const Params<Stored>& params;
  const Step& step;
  const Loss& loss;
  State<Stored>& state_adjoint; ///< ∂L/∂s_{k+1} while step k is reversed; ∂L/∂s_0 at the end
  Params<Stored>& params_adjoint; ///< Σ_k ∂L/∂θ through step k, summed in step order k = T−1..0
  RolloutResult<Exec>& result;
  State<Stored> work;          ///< the state being advanced
  PlainTape<Exec> plain{exec}; ///< the advances' outputs (when the step takes a plain tape)

  /// s ← step(s, θ) plain (nothing tracked, so nothing recorded).
  void advance(State<Stored>& s, std::int64_t k) {
    advance_one(exec, plain, s, params, step, k, "sim::rollout_gradient");
    ++result.advances;
  }

  /// Records step k from s_k (and the loss after the last step) on a fresh tape and sweeps it:
  /// the adjoint of s_{k+1} becomes that of s_k, θ's share is added.
  void reverse_step(std::int64_t k, const State<Stored>& s) {
    Tape<Exec> tape(exec);
    const State<Tracked> in = track(s);
    const Params<Tracked> theta = track(params);
    // Every input gets its gradient array now: one the step does not read has a zero
    // gradient, and one it passes through unchanged can be seeded as its output.
    register_fields(tape, in);
    register_fields(tape, theta);
    const State<Tracked> out = step(tape, in, theta, k);
    require_step_output(tape, out, k, "sim::rollout_gradient");
    if (k == steps - 1) {
      const auto l = loss(tape, out, theta);
      static_assert(is_float_or_double_variable<std::decay_t<decltype(l)>>,
                    "sim::rollout_gradient: the loss returns a Variable<double> or "
                    "Variable<float> of one element");
      SPHAD_REQUIRE(l.state != nullptr, "sim::rollout_gradient", "loss",
                    "returned an empty Variable (default-constructed: it tracks no array); "
                    "record the loss on the tape it is given");
      sphad::detail::require_on_tape(*l.state, &tape, "sim::rollout_gradient", "loss");
      SPHAD_REQUIRE(sphad::detail::TapeAccess::knows(tape, l), "sim::rollout_gradient", "loss",
                    "returned a Variable the tape it was given never recorded (its gradients "
                    "would all be zero); record the loss on that tape");
      SPHAD_REQUIRE(
          l.size() == 1, "sim::rollout_gradient", "loss",
          sphad::detail::concat("returned ", l.size(), " elements; a loss is one scalar"));
      copy_loss(exec, l.data(), result.loss.data());
      tape.backward(l);
    } else {
      std::apply(
          [&](const auto&... y) {
            std::apply(
                [&](const auto&... ybar) { tape.backward(BackwardOptions{}, seed_of(y, ybar)...); },
                fields_of(state_adjoint));
          },
          fields_of(out));
    }
    // The state's shape may change from step to step (migrating particles): ∂L/∂s_k takes s_k's.
    resize_like(exec, in, state_adjoint);
    for_each_field_pair(in, state_adjoint,
                        [&](const auto& x, auto& xbar) { tape.copy_gradient(x, span_of(xbar)); });
    for_each_field_pair(theta, params_adjoint,
                        [&](const auto& p, auto& pbar) { tape.add_gradient(p, span_of(pbar)); });
    ++result.recordings;
  }

  /// Reverses steps [0, T) from s_0 with `budget` checkpoints (s_0's included) by the binomial
  /// schedule, in a loop over an explicit stack of checkpoints (the stack of the recursion
  /// "advance m steps, keep s_m, reverse [m, l) with one checkpoint fewer, then [0, m)"), so the
  /// call stack stays the same depth for any T.
  void reverse_all(const State<Stored>& initial, std::int64_t budget) {
    struct Checkpoint {
      std::int64_t step;
      State<Stored> state;
    };
    std::vector<Checkpoint> kept_states; // s_0 is the caller's: not in the stack
    const auto top_step = [&] { return kept_states.empty() ? 0 : kept_states.back().step; };
    const auto top_state = [&]() -> const State<Stored>& {
      return kept_states.empty() ? initial : kept_states.back().state;
    };
    std::int64_t b = steps; // steps [b, T) are reversed
    while (b > 0) {
      if (top_step() == b) {
        kept_states.pop_back(); // its segment is reversed
        continue;
      }
      const std::int64_t a = top_step();
      const State<Stored>& s_a = top_state();
      const std::int64_t c = budget - std::int64_t(kept_states.size()); // s_a's included
      const std::int64_t length = b - a;
      if (length == 1) {
        reverse_step(a, s_a);
        b = a;
      } else if (c == 1) {
        // No checkpoint left: advance from s_a to the last step of the segment.
        assign(exec, s_a, work);
        for (std::int64_t j = a; j < b - 1; ++j) {
          advance(work, j);
        }
        reverse_step(b - 1, work);
        b -= 1;
      } else {
        const std::int64_t m = binomial_split(length, c);
        assign(exec, s_a, work);
        for (std::int64_t j = a; j < a + m; ++j) {
          advance(work, j);
        }
        kept_states.push_back(Checkpoint{a + m, clone(exec, work)});
        result.peak_checkpoints =
            std::max(result.peak_checkpoints, 1 + std::int64_t(kept_states.size()));
      }
    }
  }

  template <template <class> class S>
  static void register_fields(Tape<Exec>& tape, const S<Tracked>& s) {
    std::apply([&](const auto&... v) { (sphad::detail::TapeAccess::gradient_slot(tape, v), ...); },
               fields_of(s));
  }
  template <class E>
  static Seed<E> seed_of(const Variable<E>& y, const Buffer<E, Exec>& ybar) {
    return Seed<E>{y, Span<const E>{ybar.data(), ybar.size()}};
  }
  template <class E>
  static Span<E> span_of(Buffer<E, Exec>& b) {
    return {b.data(), b.size()};
  }
};

} // namespace detail

/// The plain rollout: advances `state` in place through steps k = `first`, …, `first` +
/// `steps` − 1 of `step` with parameters `params`, recording nothing (each step's outputs are
/// copied back into `state`). A step written over its tape type (`template <class T>
/// operator()(T& tape, ...)`, or a generic lambda) runs on `tape`, a `PlainTape` whose output
/// memory is reused from step to step (keep it across calls and a steady run allocates nothing
/// for the outputs); a step that takes only `Tape<Exec>&` runs on a fresh recording tape per
/// step. The same arithmetic as the advances inside `rollout_gradient`, so a
/// target made by it, or a loss's finite differences, see the same bits. Throws
/// `InvalidArgument` naming `steps` when it is negative.
template <class Exec, template <class> class State, template <class> class Params, class Step>
void rollout(PlainTape<Exec>& tape,
             std::int64_t steps,
             State<Stored<Exec>>& state,
             const Params<Stored<Exec>>& params,
             const Step& step,
             std::int64_t first = 0) {
  SPHAD_REQUIRE(steps >= 0, "sim::rollout", "steps",
                sphad::detail::concat("is negative (got ", steps, ")"));
  for (std::int64_t k = first; k < first + steps; ++k) {
    detail::advance_one(tape.exec(), tape, state, params, step, k, "sim::rollout");
  }
}

/// The plain rollout on a plain tape of its own (its output memory allocated by the first step
/// and reused by the others).
template <class Exec, template <class> class State, template <class> class Params, class Step>
void rollout(const Exec& exec,
             std::int64_t steps,
             State<Stored<Exec>>& state,
             const Params<Stored<Exec>>& params,
             const Step& step,
             std::int64_t first = 0) {
  PlainTape<Exec> tape(exec);
  rollout(tape, steps, state, params, step, first);
}

/// The gradient of L(s_T) for the rollout s_{k+1} = step(s_k, θ), k = 0 .. T−1, with respect
/// to s_0 (into `initial_gradient`) and θ (into `params_gradient`, summed over the steps in
/// the order k = T−1, ..., 0), both caller-owned states shaped like `initial` and `params`.
/// A step may change the state's array sizes (particles migrating between ranks): the working
/// state and the running adjoint are reallocated where they differ, and `initial_gradient`
/// ends shaped like `initial` (its arrays may be reallocated on the way).
///
/// `step(tape, s, theta, k)` returns s_{k+1} as `State<Tracked>` (the tape's outputs, or an
/// input it passes through) and is generic over the kinds of `s` and `theta`: it runs plain on
/// `State<Views>` and `Params<Views>` (advances: nothing is recorded; on a `PlainTape` of the
/// rollout's when the step is written over its tape type, as `rollout` says) and recorded on
/// `State<Tracked>` and `Params<Tracked>` (one fresh tape per step). `loss(tape, s_T, theta)`
/// returns a `Variable<double>` (or, for a float state, `Variable<float>`) of one element,
/// recorded on the last step's tape; `RolloutResult::loss` holds it as a double. Decisions a
/// step takes from its input (a neighbour-list rebuild) repeat exactly on recomputation,
/// because the recomputed states are the same bits.
///
/// Checkpointing: with c = `options.checkpoints` states kept (s_0 included) the steps are
/// reversed by the binomial (Revolve) schedule — at most as many plain advances as that
/// schedule's minimum, F(T, c) = t·T − C(c + t, t − 1) with t the least integer such that
/// C(c + t, c) ≥ T (docs/sim.md) — and every state is kept when c = 0 or c ≥ T. The gradients
/// are the same bits for every c: a recomputed state repeats the same arithmetic. Throws
/// `InvalidArgument` naming `steps` (below 1) or `options` (negative checkpoints) before any
/// work, `initial_gradient` or `params_gradient` when shaped unlike `initial` or `params`, and
/// `loss` when it is not one element.
template <class Exec,
          template <class>
          class State,
          template <class>
          class Params,
          class Step,
          class Loss>
RolloutResult<Exec> rollout_gradient(const Exec& exec,
                                     std::int64_t steps,
                                     const State<Stored<Exec>>& initial,
                                     const Params<Stored<Exec>>& params,
                                     const Step& step,
                                     const Loss& loss,
                                     State<Stored<Exec>>& initial_gradient,
                                     Params<Stored<Exec>>& params_gradient,
                                     const RolloutOptions& options = {}) {
  constexpr const char* function = "sim::rollout_gradient";
  SPHAD_REQUIRE(steps >= 1, function, "steps",
                sphad::detail::concat("must be at least 1 (got ", steps, ")"));
  SPHAD_REQUIRE(options.checkpoints >= 0, function, "options",
                sphad::detail::concat("checkpoints is negative (got ", options.checkpoints, ")"));
  SPHAD_REQUIRE(same_sizes(initial, initial_gradient), function, "initial_gradient",
                "an array has another size than the initial state's");
  SPHAD_REQUIRE(same_sizes(params, params_gradient), function, "params_gradient",
                "an array has another size than the parameters'");
  const auto separate = [&](const auto& gradient, const char* argument) {
    const auto from = [&](const char* other) {
      return sphad::detail::concat("shares memory with `", other,
                                   "` (the rollout would overwrite what it still reads); give "
                                   "the gradient a state of its own");
    };
    SPHAD_REQUIRE(!detail::share_memory(gradient, initial), function, argument, from("initial"));
    SPHAD_REQUIRE(!detail::share_memory(gradient, params), function, argument, from("params"));
  };
  separate(initial_gradient, "initial_gradient");
  separate(params_gradient, "params_gradient");
  SPHAD_REQUIRE(!detail::share_memory(initial_gradient, params_gradient), function,
                "params_gradient",
                "shares memory with `initial_gradient`; give each gradient a state of its own");
  std::apply(
      [&](auto&... g) {
        (exec::fill(exec, g.data(), g.size(), std::remove_reference_t<decltype(*g.data())>{}), ...);
      },
      fields_of(params_gradient));
  RolloutResult<Exec> result{Buffer<double, Exec>(exec, 1), 0, 0, 1};
  detail::Rollout<Exec, State, Params, Step, Loss> rollout{exec,
                                                           steps,
                                                           params,
                                                           step,
                                                           loss,
                                                           initial_gradient,
                                                           params_gradient,
                                                           result,
                                                           clone(exec, initial)};
  const std::int64_t c =
      options.checkpoints == 0 || options.checkpoints >= steps ? steps : options.checkpoints;
  rollout.reverse_all(initial, c);
  return result;
}

} // namespace sphad::sim
