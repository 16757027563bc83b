// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/variable.hpp>
#include <sphad/errors.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/sim/detail/state_copy.hpp>
#include <sphad/sim/fields.hpp>
#include <sphad/span.hpp>

#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

/// \file
/// \brief A simulation's state as a struct declared once: its array members are typed by an
/// array kind (`Array<Kind, E>`: owned storage, read-only views, tracked `Variable`s), and one
/// list of them (`fields`) lets the library make every other form of it, copy it and restore it
/// without the caller naming the arrays again.
///
/// ```cpp
/// template <class Kind>
/// struct Fluid {
///   sim::Array<Kind, Vec<double, 2>> x, v;
///   sim::Array<Kind, double> rho;
///   template <class Self>  // every array, in order; constexpr, so the list is checked
///   static constexpr auto fields(Self& s) { return std::tie(s.x, s.v, s.rho); }
/// };
/// Fluid<sim::Stored<exec::host>> state = ...;        // owns the arrays
/// const auto views = sim::views(state);               // Fluid<sim::Views>
/// const auto tracked = sim::track(state);             // Fluid<sim::Tracked>, for a tape
/// auto saved = sim::clone(exec, state);               // a checkpoint; sim::copy_into restores
/// ```

namespace sphad::sim {

/// Owned arrays in `Exec`'s memory (`Buffer`): the state between steps, a checkpoint.
template <class Exec>
struct Stored {
  template <class E>
  using array = Buffer<E, Exec>;
};
/// Read-only views (`Span<const E>`): a step's untracked input.
struct Views {
  template <class E>
  using array = Span<const E>;
};
/// Tracked arrays (`Variable<E>`): a recorded step's input, or its outputs (the tape's).
struct Tracked {
  template <class E>
  using array = Variable<E>;
};

/// The member type of a state of kind `Kind` holding elements E.
template <class Kind, class E>
using Array = typename Kind::template array<E>;

namespace detail {
/// State<To> whose member k is f(member k of `state`).
template <class To, template <class> class State, class Kind, class F>
State<To> map_state(const State<Kind>& state, F&& f) {
  check_fields<State>();
  return std::apply([&](const auto&... a) { return State<To>{f(a)...}; }, fields_of(state));
}
} // namespace detail

/// The state's arrays as read-only views (`State<Views>`), from any kind. Throws
/// `InvalidArgument` naming `state` when an array is an empty `Variable` or the output of a tape
/// that was cleared or destroyed.
template <template <class> class State, class Kind>
State<Views> views(const State<Kind>& state) {
  detail::require_live_arrays(state, "sim::views", "state");
  return detail::map_state<Views>(state, [](const auto& a) {
    using E = detail::array_element_t<std::decay_t<decltype(a)>>;
    return Span<const E>{a.data(), a.size()};
  });
}

/// The stored state's arrays as `Variable`s (`State<Tracked>`): new identities, tracking the
/// buffers' memory read-only, for a step recorded on a tape.
template <template <class> class State, class Exec>
State<Tracked> track(const State<Stored<Exec>>& state) {
  return detail::map_state<Tracked>(state, [](const auto& a) {
    using E = detail::array_element_t<std::decay_t<decltype(a)>>;
    return Variable<E>(a.data(), a.size());
  });
}

/// A copy of the state's arrays in `exec`'s memory (`State<Stored<Exec>>`), from any kind:
/// a checkpoint, or the next state from a step's outputs. Stream-ordered, no synchronization.
/// Throws as `views`.
template <class Exec, template <class> class State, class Kind>
State<Stored<Exec>> clone(const Exec& exec, const State<Kind>& state) {
  detail::require_live_arrays(state, "sim::clone", "state");
  return detail::map_state<Stored<Exec>>(state, [&](const auto& a) {
    using E = detail::array_element_t<std::decay_t<decltype(a)>>;
    Buffer<E, Exec> out(exec, a.size());
    exec::copy(exec, a.data(), out.data(), a.size());
    return out;
  });
}

/// Whether two states (any kinds) have arrays of the same sizes, member by member.
template <template <class> class State, class KindA, class KindB>
bool same_sizes(const State<KindA>& a, const State<KindB>& b) {
  check_fields<State>();
  bool same = true;
  for_each_field_pair(a, b,
                      [&](const auto& x, const auto& y) { same = same && x.size() == y.size(); });
  return same;
}

/// Copies every array of `from` (any kind) into the stored state `to`, whose arrays must have
/// the same sizes: restoring a checkpoint without allocating. `from`'s arrays may be `to`'s own
/// in any arrangement (a step's output `x_ref` that is its input `x`, arrays swapped): each is
/// read before it is overwritten. Throws `InvalidArgument` naming `to` when a size differs, or
/// `from` when an array is an empty `Variable` or a cleared tape's output, before anything is
/// copied. Stream-ordered, no synchronization.
template <class Exec, template <class> class State, class Kind>
void copy_into(const Exec& exec, const State<Kind>& from, State<Stored<Exec>>& to) {
  detail::require_live_arrays(from, "sim::copy_into", "from");
  SPHAD_REQUIRE(same_sizes(from, to), "sim::copy_into", "to",
                "an array has another size than the state copied into it");
  detail::copy_state(exec, from, to, false);
}

/// Copies every array of `from` (any kind) into the stored state `to`, reallocating the arrays
/// whose sizes differ (a state whose particle count changes: particles migrating between
/// ranks). As in `copy_into`, `from`'s arrays may be `to`'s own in any arrangement. Throws
/// `InvalidArgument` naming `from` as `copy_into` does. Stream-ordered, no synchronization.
template <class Exec, template <class> class State, class Kind>
void assign(const Exec& exec, const State<Kind>& from, State<Stored<Exec>>& to) {
  detail::require_live_arrays(from, "sim::assign", "from");
  detail::copy_state(exec, from, to, true);
}

/// Reallocates the arrays of the stored state `to` whose sizes differ from `like`'s (any kind),
/// leaving their contents unset; arrays of the right size are kept as they are.
template <class Exec, template <class> class State, class Kind>
void resize_like(const Exec& exec, const State<Kind>& like, State<Stored<Exec>>& to) {
  for_each_field_pair(like, to, [&](const auto& a, auto& b) {
    if (b.size() != a.size()) {
      b = std::decay_t<decltype(b)>(exec, a.size());
    }
  });
}

/// A state without arrays: the parameters of a rollout that has none.
template <class Kind>
struct NoParams {
  template <class Self>
  static constexpr std::tuple<> fields(Self&) {
    return {};
  }
};

} // namespace sphad::sim
