// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/plain_tape.hpp>
#include <sphad/ad/tape.hpp>
#include <sphad/math/mat.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/sim/record_map.hpp>
#include <sphad/sim/views.hpp>

#include <cstdint>
#include <type_traits>

/// \file
/// \brief The recorded sums a loss is made of: `record_sum`, `record_weighted_sum`,
/// `record_dot`, `record_squared_norm` (each `record_reduce` over a row function below). Each
/// returns a `Variable` of one element; a scalar one is a loss `Tape::backward(loss)` seeds
/// with 1.

namespace sphad {

namespace sim {

/// x.
struct Identity {
  template <class X>
  SPHAD_HOST_DEVICE SPHAD_INLINE X operator()(const X& x) const {
    return x;
  }
};

/// w · x (w a scalar, x any element).
struct Weighted {
  template <class W, class X>
  SPHAD_HOST_DEVICE SPHAD_INLINE auto operator()(const W& w, const X& x) const {
    return x * w;
  }
};

/// ⟨a, b⟩: the sum of the products of their scalars (a · b for scalars, the dot product of
/// vectors, the Frobenius product of matrices).
struct Dot {
  template <class A, class B>
  SPHAD_HOST_DEVICE SPHAD_INLINE auto operator()(const A& a, const B& b) const {
    if constexpr (is_vec_v<A>) {
      return dot(a, b);
    } else if constexpr (is_mat_v<A>) {
      auto sum = a(0, 0) * b(0, 0);
      SPHAD_PRAGMA_UNROLL
      for (int k = 1; k < A::rows * A::cols; ++k) {
        sum += a(k / A::cols, k % A::cols) * b(k / A::cols, k % A::cols);
      }
      return sum;
    } else {
      return a * b;
    }
  }
};

/// ⟨x, x⟩.
struct SquaredNorm {
  template <class X>
  SPHAD_HOST_DEVICE SPHAD_INLINE auto operator()(const X& x) const {
    return Dot{}(x, x);
  }
};

} // namespace sim

/// Σ_i x_i (an element of x's type), recorded: each x_i's gradient is the sum's adjoint. Each
/// sum here takes a `Tape` or a `PlainTape` (evaluated, not recorded).
template <class T, class X, std::enable_if_t<is_tape_v<T>, int> = 0>
auto record_sum(T& tape, const X& x) {
  sim::check_view(tape, x, x.size(), "record_sum", "x");
  return record_reduce(tape, x.size(), sim::Identity{}, x);
}

/// Σ_i w_i x_i (w: scalars; x: any elements, as many), recorded.
template <class T, class W, class X, std::enable_if_t<is_tape_v<T>, int> = 0>
auto record_weighted_sum(T& tape, const W& w, const X& x) {
  sim::check_view(tape, x, x.size(), "record_weighted_sum", "x");
  sim::check_view(tape, w, x.size(), "record_weighted_sum", "w");
  return record_reduce(tape, x.size(), sim::Weighted{}, w, x);
}

/// Σ_i ⟨a_i, b_i⟩ (the sum of the products of all their scalars), recorded.
template <class T, class A, class B, std::enable_if_t<is_tape_v<T>, int> = 0>
auto record_dot(T& tape, const A& a, const B& b) {
  sim::check_view(tape, a, a.size(), "record_dot", "a");
  sim::check_view(tape, b, a.size(), "record_dot", "b");
  return record_reduce(tape, a.size(), sim::Dot{}, a, b);
}

/// Σ_i ⟨x_i, x_i⟩ (the squared L2 norm over every scalar of x), recorded.
template <class T, class X, std::enable_if_t<is_tape_v<T>, int> = 0>
auto record_squared_norm(T& tape, const X& x) {
  sim::check_view(tape, x, x.size(), "record_squared_norm", "x");
  return record_reduce(tape, x.size(), sim::SquaredNorm{}, x);
}

} // namespace sphad
