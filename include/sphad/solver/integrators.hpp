// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual_view.hpp>
#include <sphad/ad/plain_tape.hpp>
#include <sphad/ad/tape.hpp>
#include <sphad/errors.hpp>
#include <sphad/sim/record_map.hpp>
#include <sphad/sim/state.hpp>

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

/// \file
/// \brief Explicit integrators over a user's state struct (`sim/state.hpp`): symplectic Euler
/// and kick–drift–kick, recorded on the tape like any step (on a `PlainTape`: evaluated only). The
/// state has members `x` (positions) and `v` (velocities) and any others (densities, ...); the
/// caller's rate function returns the time derivatives as a state of the same struct.

namespace sphad::solver {

namespace detail {
/// Coefficient a in the primal scalar of element Y (a float state stays float).
template <class Y>
SPHAD_HOST_DEVICE SPHAD_INLINE auto coefficient(double a) {
  return primal_t<scalar_of_t<Y>>(a);
}
/// y + a r, for any element (scalars, `Vec`s) and mixed scalar types.
struct Axpy {
  double a;
  template <class Y, class R>
  SPHAD_HOST_DEVICE auto operator()(const Y& y, const R& r) const {
    return y + r * coefficient<Y>(a);
  }
};
/// y + a (r + w): positions drifting with the new velocity plus an extra rate.
struct Axpy2 {
  double a;
  template <class Y, class R, class W>
  SPHAD_HOST_DEVICE auto operator()(const Y& y, const R& r, const W& w) const {
    return y + (r + w) * coefficient<Y>(a);
  }
};
/// A copy: a field without a rate is carried on unchanged, as a new array.
struct Copy {
  template <class Y>
  SPHAD_HOST_DEVICE Y operator()(const Y& y) const {
    return y;
  }
};

/// Throws naming `rates` of `function` when a rate array is neither empty nor of its field's
/// size, or is an output of a tape that was cleared or destroyed (before anything is recorded).
template <template <class> class State, class Kind, class RKind>
void check_rates(const State<Kind>& s, const State<RKind>& r, const char* function) {
  std::size_t k = 0;
  sim::for_each_field_pair(s, r, [&](const auto& y, const auto& rate) {
    SPHAD_REQUIRE(rate.size() == 0 || rate.size() == y.size(), function, "rates",
                  sphad::detail::concat("returned array ", k, " of the state's fields() with ",
                                        rate.size(), " elements for a field of ", y.size(),
                                        " (a rate has its field's size, or none: carried on)"));
    if constexpr (is_variable_v<std::decay_t<decltype(rate)>>) {
      SPHAD_REQUIRE(rate.state == nullptr || !rate.state->released, function, "rates",
                    sphad::detail::concat("returned array ", k,
                                          " of the state's fields() as an output of a tape that "
                                          "was cleared or destroyed (its memory is gone)"));
    }
    ++k;
  });
}

/// Whether `member` is the array `target` itself.
template <class A, class B>
bool is_member(const A& member, const B& target) {
  return static_cast<const void*>(&member) == static_cast<const void*>(&target);
}

/// The kick of every field but x: y + Δt r_y (a copy where r_y is empty); x is copied.
template <class T, template <class> class State, class Kind, class RKind, std::size_t... K>
State<sim::Tracked> kick_fields(
    T& tape, const State<Kind>& s, const State<RKind>& r, double dt, std::index_sequence<K...>) {
  const auto fs = sim::fields_of(s);
  const auto fr = sim::fields_of(r);
  const auto one = [&](const auto& y, const auto& rate) {
    using Out = std::decay_t<decltype(record_map(tape, y.size(), Copy{}, y))>;
    if (is_member(y, s.x) || rate.size() == 0) {
      return Out(record_map(tape, y.size(), Copy{}, y));
    }
    return Out(record_map(tape, y.size(), Axpy{dt}, y, rate));
  };
  return State<sim::Tracked>{one(std::get<K>(fs), std::get<K>(fr))...};
}

/// Kicks every field but x by Δt_kick; then x' = x + Δt_drift (v' + r_x), or x + Δt_drift v'
/// when r_x is empty (v' the kicked velocities).
template <class T, template <class> class State, class Kind, class RKind>
State<sim::Tracked>
kick_drift(T& tape, const State<Kind>& s, const State<RKind>& r, double dt_kick, double dt_drift) {
  sim::check_fields<State>();
  constexpr std::size_t n = std::tuple_size_v<decltype(sim::fields_of(s))>;
  auto out = kick_fields(tape, s, r, dt_kick, std::make_index_sequence<n>{});
  if (dt_drift != 0) {
    out.x = r.x.size() == 0 ? record_map(tape, s.x.size(), Axpy{dt_drift}, s.x, out.v)
                            : record_map(tape, s.x.size(), Axpy2{dt_drift}, s.x, out.v, r.x);
  }
  return out;
}
/// x' = x + a (v_old + v_new) + b r_x (r_x empty: no extra rate): the corrector's drift.
struct Trapezoid {
  double a, b;
  template <class X, class V, class W>
  SPHAD_HOST_DEVICE auto operator()(const X& x, const V& v_old, const W& v_new) const {
    return x + (v_old + v_new) * coefficient<X>(a);
  }
  template <class X, class V, class W, class R>
  SPHAD_HOST_DEVICE auto operator()(const X& x, const V& v_old, const W& v_new, const R& r) const {
    return x + (v_old + v_new) * coefficient<X>(a) + r * coefficient<X>(b);
  }
};
} // namespace detail

/// One step of symplectic Euler over the state `s` (members `x`, `v`, any others):
///   r = rates(tape, s);  y' = y + Δt r_y for every field but x (v' = v + Δt a, ρ' = ρ + Δt Dρ);
///   x' = x + Δt (v' + r_x).
/// `rates(tape, s)` returns a `State<sim::Tracked>` of time derivatives: r.v the accelerations;
/// r.x an extra position rate added to v' (a shifting velocity) or empty; a field whose rate is
/// empty (a `Variable` of size 0) is carried on unchanged. Every stage is recorded on `tape` (a
/// `Tape`; on a `PlainTape` evaluated only).
/// First order; symplectic for conservative position-dependent forces; one rate evaluation.
template <class T,
          template <class>
          class State,
          class Kind,
          class Rates,
          std::enable_if_t<is_tape_v<T>, int> = 0>
State<sim::Tracked> symplectic_euler(T& tape, const State<Kind>& s, double dt, const Rates& rates) {
  const auto r = rates(tape, s);
  detail::check_rates(s, r, "solver::symplectic_euler");
  return detail::kick_drift(tape, s, r, dt, dt);
}

/// One kick–drift–kick (velocity Verlet) step over the state `s` (members `x`, `v`, others):
///   y½ = y + ½Δt r_y(s)  (every field but x);  x' = x + Δt (v½ + r_x(s));
///   y' = y½ + ½Δt r_y(x', y½)  (every field but x).
/// Rates as for `symplectic_euler`; the second kick evaluates them at the drifted positions and
/// the half-kicked fields. Second order and time-reversible for conservative forces; two rate
/// evaluations per step (carry the rates in the state to reuse the second as the next first).
template <class T,
          template <class>
          class State,
          class Kind,
          class Rates,
          std::enable_if_t<is_tape_v<T>, int> = 0>
State<sim::Tracked> kick_drift_kick(T& tape, const State<Kind>& s, double dt, const Rates& rates) {
  const auto first = rates(tape, s);
  detail::check_rates(s, first, "solver::kick_drift_kick");
  const auto half = detail::kick_drift(tape, s, first, dt / 2, dt);
  const auto second = rates(tape, half);
  detail::check_rates(s, second, "solver::kick_drift_kick");
  return detail::kick_drift(tape, half, second, dt / 2, 0.0);
}

/// One step of the symplectic predictor–corrector (DualSPHysics' "Symplectic"; explicit
/// midpoint in time), two rate evaluations:
///   predictor  y½ = y + ½Δt r_y(s)  (every field but x);  x½ = x + ½Δt (v + r_x(s));
///   corrector  y' = y + Δt r_y(s½)  (every field but x);  x' = x + ½Δt (v + v') + Δt r_x(s½).
/// Rates as for `symplectic_euler`. Second order. Use it when the state integrates a density
/// (continuity equation): symplectic Euler and kick–drift–kick update such a field from the old
/// velocities, which makes the acoustic oscillation grow; here the corrector's density rate sees
/// the midpoint velocities.
template <class T,
          template <class>
          class State,
          class Kind,
          class Rates,
          std::enable_if_t<is_tape_v<T>, int> = 0>
State<sim::Tracked>
predictor_corrector(T& tape, const State<Kind>& s, double dt, const Rates& rates) {
  sim::check_fields<State>();
  const auto first = rates(tape, s);
  detail::check_rates(s, first, "solver::predictor_corrector");
  const auto half = detail::kick_drift(tape, s, first, dt / 2, 0.0);
  // x½ with the old velocities: x + ½Δt (v + r_x).
  auto mid = half;
  mid.x = first.x.size() == 0
              ? record_map(tape, s.x.size(), detail::Axpy{dt / 2}, s.x, s.v)
              : record_map(tape, s.x.size(), detail::Axpy2{dt / 2}, s.x, s.v, first.x);
  const auto second = rates(tape, mid);
  detail::check_rates(s, second, "solver::predictor_corrector");
  constexpr std::size_t n = std::tuple_size_v<decltype(sim::fields_of(s))>;
  auto out = detail::kick_fields(tape, s, second, dt, std::make_index_sequence<n>{});
  out.x =
      second.x.size() == 0
          ? record_map(tape, s.x.size(), detail::Trapezoid{dt / 2, dt}, s.x, s.v, out.v)
          : record_map(tape, s.x.size(), detail::Trapezoid{dt / 2, dt}, s.x, s.v, out.v, second.x);
  return out;
}

} // namespace sphad::solver
