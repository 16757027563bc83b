// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/variable.hpp>
#include <sphad/errors.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/sim/fields.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

/// \file
/// \brief What the state helpers (sim/state.hpp) check of a state's arrays, and the copy of one
/// state into a stored one that stays correct when the source arrays are the destination's own
/// arrays in any arrangement (a step returning its input `x` as the next `x_ref`, two arrays
/// swapped).

namespace sphad::sim {
template <class Exec>
struct Stored;
}

namespace sphad::sim::detail {

/// Throws naming `argument` of `function` when an array of `state` is an empty `Variable` or the
/// output of a tape that was cleared or destroyed (its memory is gone); other views pass.
template <class S>
void require_live_arrays(const S& state, const char* function, const char* argument) {
  std::size_t k = 0;
  std::apply(
      [&](const auto&... a) {
        [[maybe_unused]] const auto check = [&](const auto& view) {
          if constexpr (is_variable_v<std::decay_t<decltype(view)>>) {
            SPHAD_REQUIRE(view.state != nullptr, function, argument,
                          sphad::detail::concat("array ", k,
                                                " of its fields() is an empty Variable "
                                                "(default-constructed: it tracks no array)"));
            SPHAD_REQUIRE(!view.state->released, function, argument,
                          sphad::detail::concat("array ", k,
                                                " of its fields() is an output of a tape that "
                                                "was cleared or destroyed (its memory is gone)"));
          }
          ++k;
        };
        (check(a), ...);
      },
      fields_of(state));
}

/// [begin, end) of an array's bytes, as addresses.
struct ByteRange {
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
  bool overlaps(const ByteRange& other) const {
    return begin < end && other.begin < other.end && begin < other.end && other.begin < end;
  }
  bool operator==(const ByteRange& other) const { return begin == other.begin && end == other.end; }
};
template <class A>
ByteRange byte_range(const A& a) {
  const auto begin = reinterpret_cast<std::uintptr_t>(a.data());
  return {begin, begin + std::uintptr_t(a.size()) * sizeof(array_element_t<A>)};
}

/// Whether an array of the state `a` overlaps an array of the state `b` (any templates, kinds).
template <class A, class B>
bool share_memory(const A& a, const B& b) {
  bool shared = false;
  std::apply(
      [&](const auto&... x) {
        std::apply(
            [&](const auto&... y) {
              [[maybe_unused]] const auto against = [&](const auto& one) {
                ((shared = shared || byte_range(one).overlaps(byte_range(y))), ...);
              };
              (against(x), ...);
            },
            fields_of(b));
      },
      fields_of(a));
  return shared;
}

/// f(member k of a, member k of b) for the one k == `index`.
template <class A, class B, class F>
void visit_field_pair(A& a, B& b, std::size_t index, F&& f) {
  std::size_t k = 0;
  for_each_field_pair(a, b, [&](auto& x, auto& y) {
    if (k++ == index) {
      f(x, y);
    }
  });
}

/// Copies every array of `from` into `to` (reallocating those whose sizes differ when
/// `reallocate`; else the sizes are equal), in an order that reads every source before its
/// memory is written or freed: an array that is its own destination is left alone, a copy waits
/// until no pending source overlaps its destination, and a cycle of arrays (x ↔ v) is broken by
/// staging one source in a temporary. Stream-ordered, no synchronization.
template <class Exec, template <class> class State, class Kind>
void copy_state(const Exec& exec,
                const State<Kind>& from,
                State<Stored<Exec>>& to,
                bool reallocate) {
  constexpr std::size_t n = listed_fields_v<State>;
  std::array<ByteRange, n> source{};
  std::array<ByteRange, n> destination{};
  std::array<bool, n> done{};
  std::array<bool, n> staged{};
  State<Stored<Exec>> stage{}; // staged sources, only where a cycle needs them
  std::size_t k = 0;
  for_each_field_pair(from, to, [&](const auto& a, const auto& b) {
    source[k] = byte_range(a);
    destination[k] = byte_range(b);
    done[k] = source[k] == destination[k]; // the array itself: nothing to copy
    ++k;
  });
  const auto blocked = [&](std::size_t i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (!done[j] && source[j].overlaps(destination[i])) {
        return true;
      }
    }
    return false;
  };
  const auto copy = [&](std::size_t i) {
    visit_field_pair(from, to, i, [&](const auto& a, auto& b) {
      if (b.size() != a.size() && reallocate) {
        b = std::decay_t<decltype(b)>(exec, a.size());
      }
      if (staged[i]) {
        visit_field_pair(stage, to, i, [&](const auto& s, auto& d) {
          exec::copy(exec, s.data(), d.data(), s.size());
        });
      } else {
        exec::copy(exec, a.data(), b.data(), a.size());
      }
    });
    done[i] = true;
  };
  for (;;) {
    bool pending = false;
    bool progressed = false;
    for (std::size_t i = 0; i < n; ++i) {
      if (!done[i]) {
        pending = true;
        if (!blocked(i)) {
          copy(i);
          progressed = true;
        }
      }
    }
    if (!pending) {
      return;
    }
    if (!progressed) {
      // Every pending copy would overwrite a pending source: stage the first pending source.
      std::size_t i = 0;
      while (done[i]) {
        ++i;
      }
      visit_field_pair(from, stage, i, [&](const auto& a, auto& s) {
        s = std::decay_t<decltype(s)>(exec, a.size());
        exec::copy(exec, a.data(), s.data(), a.size());
        source[i] = byte_range(s);
      });
      staged[i] = true;
    }
  }
}

} // namespace sphad::sim::detail
