// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/span.hpp>

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

/// \file
/// \brief A state's `fields` (sim/state.hpp): the list itself (`fields_of`, `for_each_field_pair`)
/// and its compile-time check — it lists every array member once, in declaration order, and the
/// state holds nothing else. The members are found by a structured binding of the views' form
/// (an aggregate of `Span`s), and the references `fields` returns are compared with them one by
/// one in a constant expression.

namespace sphad::sim {
struct Views;
}

namespace sphad::sim::detail {

/// The most array members a state may have (one structured binding per count below).
inline constexpr std::size_t max_state_members = 16;

/// `tie(s)`: the N members of the aggregate s, in declaration order, as a tuple of references.
template <std::size_t N>
struct StateMembers;

template <>
struct StateMembers<0> {
  template <class S>
  static constexpr std::tuple<> tie(S&) {
    return {};
  }
};
#define SPHAD_DETAIL_STATE_MEMBERS(n, ...)                                                         \
  template <>                                                                                      \
  struct StateMembers<n> {                                                                         \
    template <class S>                                                                             \
    static constexpr auto tie(S& s) {                                                              \
      auto& [__VA_ARGS__] = s;                                                                     \
      return std::tie(__VA_ARGS__);                                                                \
    }                                                                                              \
  };
SPHAD_DETAIL_STATE_MEMBERS(1, m0)
SPHAD_DETAIL_STATE_MEMBERS(2, m0, m1)
SPHAD_DETAIL_STATE_MEMBERS(3, m0, m1, m2)
SPHAD_DETAIL_STATE_MEMBERS(4, m0, m1, m2, m3)
SPHAD_DETAIL_STATE_MEMBERS(5, m0, m1, m2, m3, m4)
SPHAD_DETAIL_STATE_MEMBERS(6, m0, m1, m2, m3, m4, m5)
SPHAD_DETAIL_STATE_MEMBERS(7, m0, m1, m2, m3, m4, m5, m6)
SPHAD_DETAIL_STATE_MEMBERS(8, m0, m1, m2, m3, m4, m5, m6, m7)
SPHAD_DETAIL_STATE_MEMBERS(9, m0, m1, m2, m3, m4, m5, m6, m7, m8)
SPHAD_DETAIL_STATE_MEMBERS(10, m0, m1, m2, m3, m4, m5, m6, m7, m8, m9)
SPHAD_DETAIL_STATE_MEMBERS(11, m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10)
SPHAD_DETAIL_STATE_MEMBERS(12, m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11)
SPHAD_DETAIL_STATE_MEMBERS(13, m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12)
SPHAD_DETAIL_STATE_MEMBERS(14, m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13)
SPHAD_DETAIL_STATE_MEMBERS(15, m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14)
SPHAD_DETAIL_STATE_MEMBERS(16, m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15)
#undef SPHAD_DETAIL_STATE_MEMBERS

/// Whether a and b are the same object (false when their types differ).
template <class A, class B>
constexpr bool same_object(A& a, B& b) {
  if constexpr (std::is_same_v<A, B>) {
    return &a == &b;
  } else {
    return false;
  }
}

/// Whether `fields(s)` of a value-initialized views' form names member k as its entry k, for
/// every k (the state holding n = sizeof / sizeof(Span) members: checked before).
template <template <class> class State, std::size_t... K>
constexpr bool fields_in_order(std::index_sequence<K...>) {
  State<Views> s{};
  [[maybe_unused]] const auto listed = State<Views>::fields(s);
  [[maybe_unused]] const auto members = StateMembers<sizeof...(K)>::tie(s);
  return (same_object(std::get<K>(listed), std::get<K>(members)) && ...);
}

/// The number of entries `fields` lists.
template <template <class> class State>
inline constexpr std::size_t listed_fields_v =
    std::tuple_size_v<decltype(State<Views>::fields(std::declval<State<Views>&>()))>;

/// Whether the views' form holds exactly the listed number of arrays (every member a `Span`, the
/// state nothing else).
template <template <class> class State>
inline constexpr bool holds_only_listed_v = listed_fields_v<State> == 0 ||
                                            sizeof(State<Views>) == listed_fields_v<State> *
                                                                        sizeof(Span<const double>);

/// Calls `fields` on a value-initialized views' form: a constant expression only when `fields`
/// is declared `constexpr`.
template <template <class> class State>
constexpr bool fields_run() {
  State<Views> s{};
  (void)State<Views>::fields(s);
  return true;
}

/// Whether `fields` can run in a constant expression, so its order can be checked at compile
/// time.
template <template <class> class State, class = void>
struct constant_fields : std::false_type {};
template <template <class> class State>
struct constant_fields<State, std::enable_if_t<fields_run<State>()>> : std::true_type {};

/// The element type of a `Buffer`, `Span` or `Variable`.
template <class A>
using array_element_t =
    std::remove_cv_t<std::remove_pointer_t<decltype(std::declval<const A&>().data())>>;

} // namespace sphad::sim::detail

namespace sphad::sim {

/// Checks the state's declaration: an aggregate whose `fields` (declared `constexpr`) lists
/// every array member once, in declaration order, and which holds nothing else.
template <template <class> class State>
constexpr bool check_fields() {
  using ViewState = State<Views>;
  static_assert(std::is_aggregate_v<ViewState>,
                "sphad::sim: a state is an aggregate: public array members, no constructors or "
                "bases (the library builds each form by listing its members in order)");
  static_assert(detail::holds_only_listed_v<State>,
                "sphad::sim: State::fields(s) must list every array member of the state, in "
                "declaration order (std::tie(s.x, s.v, ...)), and the state hold nothing else");
  static_assert(detail::listed_fields_v<State> <= detail::max_state_members,
                "sphad::sim: a state holds at most 16 arrays; gather related ones into Vec or "
                "Mat elements, or split the state");
  static_assert(detail::constant_fields<State>::value,
                "sphad::sim: declare State::fields constexpr (template <class Self> static "
                "constexpr auto fields(Self& s) { return std::tie(s.x, s.v); }) so its list can "
                "be checked at compile time");
  if constexpr (detail::holds_only_listed_v<State> && detail::constant_fields<State>::value &&
                detail::listed_fields_v<State> <= detail::max_state_members) {
    static_assert(
        detail::fields_in_order<State>(std::make_index_sequence<detail::listed_fields_v<State>>{}),
        "sphad::sim: State::fields(s) lists a member twice or out of declaration "
        "order; list each array member once, in the order the members are declared");
  }
  return true;
}

namespace detail {
/// Which state template a state type is made from (for `fields_of`'s check).
template <class S>
struct state_of;
template <template <class> class State, class Kind>
struct state_of<State<Kind>> {
  static constexpr bool check() { return check_fields<State>(); }
};
} // namespace detail

/// The members `State::fields` lists, as a tuple of references; the state's declaration is
/// checked at compile time. For code that handles any state (integrators, halo exchanges).
template <class S>
auto fields_of(S& state) {
  static_assert(detail::state_of<std::remove_const_t<S>>::check());
  return std::remove_const_t<S>::fields(state);
}

/// f(member k of a, member k of b) for each member k, in order (a and b: one state template,
/// any kinds, either const).
template <class A, class B, class F>
void for_each_field_pair(A& a, B& b, F&& f) {
  std::apply([&](auto&... x) { std::apply([&](auto&... y) { (f(x, y), ...); }, fields_of(b)); },
             fields_of(a));
}

} // namespace sphad::sim
