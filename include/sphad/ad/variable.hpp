// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual_view.hpp>
#include <sphad/errors.hpp>
#include <sphad/math/vec.hpp>

#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

/// \file
/// \brief `Variable<E>`: a tracked view of an array, with an identity and a version counter,
/// whose gradient a `Tape` (<sphad/ad/tape.hpp>) computes; `Seed`, an output with the adjoint
/// that starts a sweep from it.

namespace sphad {

template <class E>
struct Variable;

namespace detail {
/// What a variable shares with its copies and with the records that read it: its identity
/// (the address of this object) and how often it was written through `Variable::write`.
struct VariableState {
  std::uint64_t version = 0;
  /// The tape whose output this is (null for caller memory), and whether that tape has since
  /// freed it (`clear` or destruction): a released output can no longer be read or recorded.
  const void* owner = nullptr;
  bool released = false;
};

struct VariableAccess {
  /// A variable of `memory` with an existing identity `state`.
  template <class E>
  static Variable<E> make(std::shared_ptr<VariableState> state, Span<E> memory) {
    return Variable<E>(std::move(state), memory);
  }
};

/// Throws unless `state` may be recorded on (or seeded from) the tape at `tape`: not an output
/// that was freed, not an output of another tape.
inline void require_on_tape(const VariableState& state,
                            const void* tape,
                            const char* function,
                            const char* argument) {
  SPHAD_REQUIRE(!state.released, function, argument,
                "is an output of a tape that was cleared or destroyed (its memory is gone); "
                "record the launch that made it again");
  SPHAD_REQUIRE(state.owner == nullptr || state.owner == tape, function, argument,
                "is an output of another tape: record every launch a loss depends on on one tape "
                "(or pass its span() to use it as a constant)");
}
} // namespace detail

/// A tracked array: a read-only view of E [size()] (caller memory, or a tape's output) with an
/// identity and a version counter. Give it wherever a view is accepted (a `ParticleSet` field,
/// field values, a correction state's array) to `record<Op>`, and the tape computes its
/// gradient. Copies are the same variable. Write through `write()`, which bumps the version:
/// a backward over a record made before such a write throws. Writing through
/// other pointers to the same memory is not seen.
/// @tparam E  a floating scalar, `Vec` or `Mat` (kinds and indices are never differentiable:
///            tracking them does not compile); its scalar may be a `Dual` (a tape over dual
///            numbers: forward over reverse, see `record`).
template <class E>
struct Variable {
  static_assert(std::is_floating_point_v<primal_t<scalar_of_t<E>>>,
                "sphad::Variable: only arrays of float or double (scalars, Vec, Mat, or their dual "
                "numbers) are tracked (kinds, neighbour lists, grids and domains are never "
                "differentiable)");
  std::shared_ptr<detail::VariableState> state;
  bool writable = true; ///< false when made from read-only memory (`write()` throws)

  Variable() = default;
  /// Tracks caller memory (on the device for a CUDA tape); it must outlive the tape's backward.
  explicit Variable(Span<E> memory)
      : state(std::make_shared<detail::VariableState>()), data_(memory.data()),
        size_(memory.size()) {}
  /// Tracks read-only caller memory: everything but `write()` works.
  explicit Variable(Span<const E> memory)
      : state(std::make_shared<detail::VariableState>()), writable(false), data_(memory.data()),
        size_(memory.size()) {}

  /// Tracks a container's elements: a `std::vector` or a Thrust vector (a `device_vector` for
  /// a CUDA tape), read-only when the container is const.
  template <class C, std::enable_if_t<std::is_constructible_v<Span<E>, C&>, int> = 0>
  explicit Variable(C& container) : Variable(Span<E>(container)) {}
  template <class C,
            std::enable_if_t<!std::is_constructible_v<Span<E>, C&> &&
                                 std::is_constructible_v<Span<const E>, C&>,
                             int> = 0>
  explicit Variable(C& container) : Variable(Span<const E>(container)) {}

  /// Tracks `n` elements at `memory`.
  Variable(E* memory, std::int64_t n) : Variable(Span<E>{memory, n}) {}
  /// Tracks `n` read-only elements at `memory`.
  Variable(const E* memory, std::int64_t n) : Variable(Span<const E>{memory, n}) {}

  /// The first element (read-only).
  SPHAD_HOST_DEVICE SPHAD_INLINE const E* data() const { return data_; }
  /// The number of elements.
  SPHAD_HOST_DEVICE SPHAD_INLINE std::int64_t size() const { return size_; }
  SPHAD_HOST_DEVICE SPHAD_INLINE const E& operator[](std::int64_t i) const { return data_[i]; }
  /// The array, read-only.
  Span<const E> span() const { return {data_, size_}; }
  /// The array for writing; counts as a modification (records made before it cannot be swept
  /// backward any more).
  Span<E> write() const {
    SPHAD_REQUIRE(writable, "Variable::write", "variable",
                  "wraps read-only memory (it was made from a view of const elements)");
    ++state->version;
    return {const_cast<E*>(data_), size_};
  }
  std::uint64_t version() const { return state->version; }
  /// Whether `other` is this variable (the same identity).
  bool same_as(const Variable& other) const { return state == other.state; }

private:
  friend struct detail::VariableAccess;
  /// A variable of `memory` with the identity `s` (a plain tape's reused output states).
  Variable(std::shared_ptr<detail::VariableState> s, Span<E> memory)
      : state(std::move(s)), data_(memory.data()), size_(memory.size()) {}

  const E* data_ = nullptr;
  std::int64_t size_ = 0;
};

/// The array of a variable, untracked.
template <class E>
Span<const E> primal_view(const Variable<E>& variable) {
  return variable.span();
}

/// Whether a view is a `Variable` (its gradient is wanted), const or not: a correction state
/// spelled with `decltype` of a `const` variable names `const Variable<E>`.
template <class View>
inline constexpr bool is_variable_v = false;
template <class E>
inline constexpr bool is_variable_v<Variable<E>> = true;
template <class E>
inline constexpr bool is_variable_v<const Variable<E>> = true;

namespace detail {
/// Throws naming `argument` when `view` is an empty (default-constructed) `Variable`, which
/// tracks no array, or one `require_on_tape` refuses; other views pass.
template <class View>
void require_tracks_an_array(const View& view,
                             const void* tape,
                             const char* function,
                             const char* argument) {
  if constexpr (is_variable_v<View>) {
    SPHAD_REQUIRE(view.state != nullptr, function, argument,
                  "is an empty Variable (default-constructed: it tracks no array); give the "
                  "Variable of an array");
    require_on_tape(*view.state, tape, function, argument);
  }
}
} // namespace detail

/// An output variable and the adjoint ȳ that starts the sweep from it (copied, never aliased).
template <class E>
struct Seed {
  Variable<E> output;
  Span<const E> adjoint;
};
template <class E>
Seed(Variable<E>, Span<const E>) -> Seed<E>;

} // namespace sphad
