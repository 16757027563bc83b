// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/sim/rollout.hpp>
#include <sphad/sim/state.hpp>

#include <cstdint>

/// \file
/// \brief `sim::problem` and `sim::gradients`: a differentiable rollout's inputs (the initial
/// state, the parameters — none by default —, the step and the loss) and its outputs bound once,
/// so the call reads `rollout_gradient(exec, steps, problem, gradients, options)`.

namespace sphad::sim {

namespace detail {
/// The parameters of a rollout that has none, and their (empty) gradient.
template <class Exec>
inline NoParams<Stored<Exec>> no_params{};
} // namespace detail

/// What a rollout differentiates: the initial state s_0 and the parameters θ (both held by
/// reference: they must outlive the calls), the step and the loss (held by value).
template <class Exec,
          template <class>
          class State,
          template <class>
          class Params,
          class Step,
          class Loss>
struct Problem {
  const State<Stored<Exec>>& initial;
  const Params<Stored<Exec>>& params;
  Step step;
  Loss loss;
};

/// Where a rollout's gradients go: states shaped like the problem's s_0 and θ (held by
/// reference).
template <class Exec, template <class> class State, template <class> class Params>
struct Gradients {
  State<Stored<Exec>>& initial;
  Params<Stored<Exec>>& params;
};

/// The problem of a rollout with parameters.
template <class Exec,
          template <class>
          class State,
          template <class>
          class Params,
          class Step,
          class Loss>
Problem<Exec, State, Params, Step, Loss> problem(const State<Stored<Exec>>& initial,
                                                 const Params<Stored<Exec>>& params,
                                                 const Step& step,
                                                 const Loss& loss) {
  return {initial, params, step, loss};
}

/// The problem of a rollout without parameters (the step and the loss get `NoParams`).
template <class Exec, template <class> class State, class Step, class Loss>
Problem<Exec, State, NoParams, Step, Loss>
problem(const State<Stored<Exec>>& initial, const Step& step, const Loss& loss) {
  return {initial, detail::no_params<Exec>, step, loss};
}

/// The gradients of s_0 and θ.
template <class Exec, template <class> class State, template <class> class Params>
Gradients<Exec, State, Params> gradients(State<Stored<Exec>>& initial,
                                         Params<Stored<Exec>>& params) {
  return {initial, params};
}

/// The gradient of s_0 alone, for a problem without parameters.
template <class Exec, template <class> class State>
Gradients<Exec, State, NoParams> gradients(State<Stored<Exec>>& initial) {
  return {initial, detail::no_params<Exec>};
}

/// `rollout_gradient` of a bound problem into bound gradients: the same computation, checks
/// (argument names included) and bits as the call with every argument spelled out.
template <class Exec,
          template <class>
          class State,
          template <class>
          class Params,
          class Step,
          class Loss>
RolloutResult<Exec> rollout_gradient(const Exec& exec,
                                     std::int64_t steps,
                                     const Problem<Exec, State, Params, Step, Loss>& problem,
                                     const Gradients<Exec, State, Params>& gradients,
                                     const RolloutOptions& options = {}) {
  return rollout_gradient(exec, steps, problem.initial, problem.params, problem.step, problem.loss,
                          gradients.initial, gradients.params, options);
}

} // namespace sphad::sim
