// SPDX-License-Identifier: MIT
// An operator output as a flat list of doubles, row-major with the innermost axis last (the
// layout of the reference's files and of the runtime front end): for comparing outputs of any
// shape element by element.
#pragma once

#include <sphad/ad/dual.hpp>
#include <sphad/math/mat.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/ops/operators.hpp>

#include <type_traits>
#include <vector>

namespace sphad::test {

template <class X>
void append_scalars(const X& x, std::vector<double>& out);

/// A Covariance result's matrix (its neighbour count is an integer: compare it exactly).
template <class T, int D>
void append_scalars(const ops::CovarianceResult<T, D>& c, std::vector<double>& out) {
  append_scalars(c.matrix, out);
}

template <class X>
void append_scalars(const X& x, std::vector<double>& out) {
  if constexpr (is_vec_v<X>) {
    for (int k = 0; k < X::dim; ++k) {
      append_scalars(x[k], out);
    }
  } else if constexpr (is_mat_v<X>) {
    for (int r = 0; r < X::rows; ++r) {
      for (int c = 0; c < X::cols; ++c) {
        append_scalars(x(r, c), out);
      }
    }
  } else if constexpr (is_dual_v<X>) {
    // A dual number: its value, then its tangents.
    append_scalars(x.value, out);
    for (const auto& t : x.tangent) {
      append_scalars(t, out);
    }
  } else {
    out.push_back(double(x));
  }
}

/// The inverse of `append_scalars` for plain values: x's scalars read in the same order from
/// `in`, which moves past them (a Covariance count is left alone).
template <class X>
void assign_scalars(X& x, const double*& in) {
  if constexpr (is_vec_v<X>) {
    for (int k = 0; k < X::dim; ++k) {
      assign_scalars(x[k], in);
    }
  } else if constexpr (is_mat_v<X>) {
    for (int r = 0; r < X::rows; ++r) {
      for (int c = 0; c < X::cols; ++c) {
        assign_scalars(x(r, c), in);
      }
    }
  } else if constexpr (std::is_arithmetic_v<X>) {
    x = X(*in++);
  } else {
    assign_scalars(x.matrix, in);
  }
}

template <class X>
std::vector<double> flatten(const X& x) {
  std::vector<double> out;
  append_scalars(x, out);
  return out;
}

} // namespace sphad::test
