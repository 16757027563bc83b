// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/tape.hpp>
#include <sphad/ad/variable.hpp>
#include <sphad/errors.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/span.hpp>

#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

/// \file
/// \brief `PlainTape<Exec>`: the tape of a step that nothing differentiates. Every recording call
/// (`record<Op>`, `record_map`, `record_reduce`, the sums, gathers and correction pipelines)
/// accepts a `PlainTape` where it accepts a `Tape` of the same space, evaluates exactly as there
/// (the same bits) and records nothing; its outputs are `Variable`s in memory the plain tape
/// hands out again after `reset()`. A step written once over its tape type runs recorded on a
/// `Tape` or plain on a `PlainTape`, and plain it allocates nothing once the first steps have
/// sized the outputs.

namespace sphad {

template <class Exec>
class PlainTape;

namespace detail {
struct PlainTapeAccess;
}

/// A tape that records nothing: outputs in reused memory, no records, no gradients. Outputs are
/// handed out in call order from slots kept across `reset()`: the k-th output after a reset takes
/// the k-th slot (memory and identity), grown only when too small, so a step that makes the same
/// outputs every time allocates only in its first steps. An output stays valid until the next
/// `reset()` or the tape's destruction, which release it (reading or recording it afterwards
/// throws, as for a cleared `Tape`'s outputs). A rollout resets before every step, after the
/// previous step's outputs were copied into the state. Its outputs can be read by calls on any
/// tape as arrays, but a recording `Tape` refuses them (they are another tape's outputs).
/// @tparam Exec  `exec::host` or `exec::cuda`.
template <class Exec>
class PlainTape {
public:
  explicit PlainTape(const Exec& exec = {}) : exec_(exec) {}
  PlainTape(const PlainTape&) = delete;
  PlainTape& operator=(const PlainTape&) = delete;
  ~PlainTape() { release(); }

  const Exec& exec() const { return exec_; }
  /// Releases every output handed out and makes its slot free for the next outputs.
  void reset() {
    release();
    next_ = 0;
  }
  /// Outputs handed out since the last reset.
  std::int64_t outputs() const { return next_; }
  /// Bytes the tape holds in its output slots.
  std::int64_t bytes() const {
    std::int64_t total = 0;
    for (const auto& s : slots_) {
      total += s.memory.size() * std::int64_t(sizeof(Block));
    }
    return total;
  }
  /// Times a slot's memory was allocated or grown (constant once the outputs are sized).
  std::int64_t allocations() const { return allocations_; }

private:
  friend struct detail::PlainTapeAccess;
  struct alignas(16) Block {
    unsigned char bytes[16];
  };
  struct Slot {
    Buffer<Block, Exec> memory;
    std::shared_ptr<detail::VariableState> state;
  };

  /// n uninitialized elements of E in the next slot, as a `Variable` this tape owns.
  template <class E>
  Variable<E> output(std::int64_t n) {
    static_assert(alignof(E) <= alignof(Block), "sphad::PlainTape: over-aligned element");
    static_assert(std::is_trivially_copyable_v<E>, "sphad::PlainTape: outputs are plain arrays");
    const std::int64_t blocks = (n * std::int64_t(sizeof(E)) + std::int64_t(sizeof(Block)) - 1) /
                                std::int64_t(sizeof(Block));
    if (next_ == std::int64_t(slots_.size())) {
      slots_.emplace_back();
    }
    Slot& slot = slots_[std::size_t(next_++)];
    if (slot.memory.size() < blocks) {
      slot.memory = Buffer<Block, Exec>(exec_, blocks);
      ++allocations_;
    }
    // The slot's identity is reused unless a variable of its last use is still held somewhere
    // (that one stays released).
    if (!slot.state || slot.state.use_count() > 1) {
      slot.state = std::make_shared<detail::VariableState>();
    }
    *slot.state = detail::VariableState{};
    slot.state->owner = this;
    return detail::VariableAccess::make<E>(slot.state,
                                           Span<E>{reinterpret_cast<E*>(slot.memory.data()), n});
  }

  void release() {
    for (std::int64_t k = 0; k < next_; ++k) {
      slots_[std::size_t(k)].state->released = true;
    }
  }

  Exec exec_;
  std::vector<Slot> slots_;
  std::int64_t next_ = 0;
  std::int64_t allocations_ = 0;
};

/// Whether T is a recording `Tape` or a `PlainTape`: what the recording calls accept.
template <class T>
inline constexpr bool is_tape_v = false;
template <class Exec>
inline constexpr bool is_tape_v<Tape<Exec>> = true;
template <class Exec>
inline constexpr bool is_tape_v<PlainTape<Exec>> = true;

/// Whether T is a `PlainTape` (the recording calls skip their records there).
template <class T>
inline constexpr bool is_plain_tape_v = false;
template <class Exec>
inline constexpr bool is_plain_tape_v<PlainTape<Exec>> = true;

namespace detail {
struct PlainTapeAccess {
  template <class E, class Exec>
  static Variable<E> output(PlainTape<Exec>& tape, std::int64_t n) {
    return tape.template output<E>(n);
  }
};

/// A new output of n elements of E on either tape: a `Variable` the tape owns.
template <class E, class Exec>
Variable<E> make_output(Tape<Exec>& tape, std::int64_t n) {
  return TapeAccess::make_output<E>(tape, n);
}
template <class E, class Exec>
Variable<E> make_output(PlainTape<Exec>& tape, std::int64_t n) {
  return PlainTapeAccess::output<E>(tape, n);
}

/// Throws naming `argument` of `function` when `view` may not be read by a call on `tape`: on a
/// recording tape as `require_tracks_an_array`; on a plain tape, a `Variable` that is empty or
/// an output released by its tape (any live array may be read: nothing is recorded).
template <class View, class Exec>
void require_readable(const View& view,
                      const Tape<Exec>& tape,
                      const char* function,
                      const char* argument) {
  require_tracks_an_array(view, &tape, function, argument);
}
template <class View, class Exec>
void require_readable(const View& view,
                      const PlainTape<Exec>&,
                      const char* function,
                      const char* argument) {
  if constexpr (is_variable_v<View>) {
    SPHAD_REQUIRE(view.state != nullptr, function, argument,
                  "is an empty Variable (default-constructed: it tracks no array); give the "
                  "Variable of an array");
    SPHAD_REQUIRE(!view.state->released, function, argument,
                  "is an output of a tape that was cleared, reset or destroyed (its memory is "
                  "gone or reused); make it again");
  }
}
} // namespace detail

} // namespace sphad
