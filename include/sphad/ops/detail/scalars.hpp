// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual_view.hpp>
#include <sphad/math/mat.hpp>
#include <sphad/math/vec.hpp>

/// \file
/// \brief An element's scalars in a flat row: how many (`scalar_count`), written out
/// (`store_scalars`), read back (`load_scalars`), row-major and innermost last, and several
/// elements' side by side (`concat_scalars`).

namespace sphad::ops::detail {

/// The number of scalars in X (scalars 1, vectors and matrices the product of their extents).
template <class X>
SPHAD_HOST_DEVICE constexpr int scalar_count() {
  if constexpr (is_vec_v<X>) {
    return X::dim * scalar_count<typename X::value_type>();
  } else if constexpr (is_mat_v<X>) {
    return X::rows * X::cols * scalar_count<typename X::value_type>();
  } else {
    return 1;
  }
}

/// Writes x's scalars, row-major and innermost last, to out[0, scalar_count<X>()).
template <class X, class T>
SPHAD_HOST_DEVICE SPHAD_INLINE void store_scalars(const X& x, T* out) {
  if constexpr (is_vec_v<X>) {
    constexpr int inner = scalar_count<typename X::value_type>();
    for (int k = 0; k < X::dim; ++k) {
      store_scalars(x[k], out + k * inner);
    }
  } else if constexpr (is_mat_v<X>) {
    constexpr int inner = scalar_count<typename X::value_type>();
    for (int r = 0; r < X::rows; ++r) {
      for (int k = 0; k < X::cols; ++k) {
        store_scalars(x(r, k), out + (r * X::cols + k) * inner);
      }
    }
  } else {
    *out = x;
  }
}

/// An X from the scalars at in[0, scalar_count<X>()), as `store_scalars` wrote them.
template <class X, class T>
SPHAD_HOST_DEVICE SPHAD_INLINE X load_scalars(const T* in) {
  if constexpr (is_vec_v<X>) {
    constexpr int inner = scalar_count<typename X::value_type>();
    return sphad::detail::generate_vec<X::dim>([&](int k) SPHAD_LAMBDA_INLINE {
      return load_scalars<typename X::value_type>(in + k * inner);
    });
  } else if constexpr (is_mat_v<X>) {
    constexpr int inner = scalar_count<typename X::value_type>();
    X out;
    for (int r = 0; r < X::rows; ++r) {
      for (int k = 0; k < X::cols; ++k) {
        out(r, k) = load_scalars<typename X::value_type>(in + (r * X::cols + k) * inner);
      }
    }
    return out;
  } else {
    return X(*in);
  }
}

/// Its arguments' scalars side by side as one `Vec` (scalars, vectors and matrices, row-major),
/// in argument order, in the arguments' promoted scalar.
template <class... X>
SPHAD_HOST_DEVICE SPHAD_INLINE auto concat_scalars(const X&... x) {
  using S = promote_all_t<scalar_of_t<X>...>;
  Vec<S, (scalar_count<X>() + ...)> out;
  int at = 0;
  ((store_scalars(x, &out[at]), at += scalar_count<X>()), ...);
  return out;
}

} // namespace sphad::ops::detail
