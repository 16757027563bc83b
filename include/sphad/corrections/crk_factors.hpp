// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual_view.hpp>
#include <sphad/ad/safe.hpp>
#include <sphad/math/mat.hpp>
#include <sphad/math/scalar.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/pair/leaves.hpp>
#include <sphad/particles.hpp>
#include <sphad/scalar_traits.hpp>

#include <cstdint>

/// \file
/// \brief One particle's CRK factors from its moments: the moments (`Moments`), the factors
/// (`CRKRow`), the limiter (`crk_row_accepted`) and the solve (`solve_crk`), on plain and dual
/// scalars.

namespace sphad::corrections {

/// Knobs of the CRK pipeline that do not change code.
template <class R>
struct CRKOptions {
  OperationDirection direction = OperationDirection::AllToAll;
  /// The limiter: row i is rejected when det M_i ≤ τ (tr M_i / D)^D; 1e-12 in double,
  /// 1e-5 in float.
  R tau = sizeof(R) >= 8 ? R(1e-12) : R(1e-5);
};

/// The Scatter moments of one query, derivative index γ as named:
/// m0, m1[a], M[a][b], dm0[γ], dm1[a][γ] = ∂m1[a]/∂x_γ, dM[γ][a][b] = ∂M[a][b]/∂x_γ, and the
/// count of pairs with W > 0.
template <int D, class T>
struct Moments {
  T m0{};
  Vec<T, D> m1{};
  Mat<T, D, D> m2{};
  Vec<T, D> dm0{};
  Mat<T, D, D> dm1{};
  Vec<Mat<T, D, D>, D> dm2{};
  std::int32_t count = 0;

  SPHAD_HOST_DEVICE SPHAD_INLINE Moments& operator+=(const Moments& o) {
    m0 += o.m0;
    m1 += o.m1;
    m2 += o.m2;
    dm0 += o.dm0;
    dm1 += o.dm1;
    for (int g = 0; g < D; ++g) {
      dm2[g] += o.dm2[g];
    }
    count += o.count;
    return *this;
  }
  /// The moments of the plain kernel's identity correction (A = 1, B = 0, ∇A = ∇B = 0), all
  /// constants: what a rejected row is solved with, so its tangents are exactly zero.
  SPHAD_HOST_DEVICE static Moments identity() {
    Moments m;
    m.m0 = T(1);
    m.m2 = Mat<T, D, D>::identity();
    return m;
  }
};

} // namespace sphad::corrections

namespace sphad {
/// The moments' scalar.
template <int D, class T>
struct scalar_of<corrections::Moments<D, T>, void> {
  using type = T;
};
namespace ops {
/// The moments' scalar members, in memory order (the count is not one).
template <int D, class T>
struct Leaves<corrections::Moments<D, T>> {
  template <class S>
  using rebind = corrections::Moments<D, S>;
  static constexpr int count = 1 + D + D * D + D + D * D + D * D * D;
  template <class F, class... Xs>
  SPHAD_HOST_DEVICE SPHAD_INLINE static void zip(F&& f, Xs&... xs) {
    f(xs.m0...);
    f(xs.m1...);
    f(xs.m2...);
    f(xs.dm0...);
    f(xs.dm1...);
    f(xs.dm2...);
  }
  template <class A, class B>
  SPHAD_HOST_DEVICE SPHAD_INLINE static void copy_rest(A& to, const B& from) {
    to.count = from.count;
  }
};
} // namespace ops
} // namespace sphad

namespace sphad::corrections {

/// The CRK factors of one particle (∇B stored derivative-first).
template <int D, class T>
struct CRKRow {
  T a;
  Vec<T, D> b;
  Vec<T, D> grad_a;
  Mat<T, D, D> grad_b;
};

/// Whether a row passes the limiter and its Schur complement m0 − m1ᵀM⁻¹m1 is positive
/// (so A is finite); only then are the moments solved.
template <int D, class T>
SPHAD_HOST_DEVICE bool crk_row_accepted(const Moments<D, T>& m, primal_t<T> tau) {
  using R = primal_t<T>;
  if (m.count < 2) {
    return false;
  }
  Mat<R, D, D> m2{};
  Vec<R, D> m1{};
  for (int a = 0; a < D; ++a) {
    m1[a] = value_of(m.m1[a]);
    for (int b = 0; b < D; ++b) {
      m2(a, b) = value_of(m.m2(a, b));
    }
  }
  const R mean = trace(m2) / R(D);
  if (!(determinant(m2) > tau * ipow(mean, D))) {
    return false;
  }
  return value_of(m.m0) - dot(m1, inverse(m2) * m1) > R(0);
}

/// Stage 3: with P = M⁻¹ and u = P m1, A = 1/(m0 − m1·u), B = −u,
/// ∇A_γ = −A²(dm0_γ − 2 Σ_a u_a dm1[a][γ] + uᵀ dM_γ u), ∇B[γ][c] = −(P dm1)[c][γ] + (P dM_γ u)_c.
/// Rejected rows are solved from `Moments::identity()` instead: the identity correction with
/// zero tangents, and nothing non-finite is ever computed.
template <int D, class T>
SPHAD_HOST_DEVICE CRKRow<D, T> solve_crk(const Moments<D, T>& moments, primal_t<T> tau) {
  const Moments<D, T> m = crk_row_accepted(moments, tau) ? moments : Moments<D, T>::identity();
  const Mat<T, D, D> p = inverse(m.m2);
  const Vec<T, D> u = p * m.m1;
  const T a = T(1) / (m.m0 - dot(m.m1, u));
  const Mat<T, D, D> p_dm1 = p * m.dm1; // [c][γ]
  CRKRow<D, T> row{a, -u, {}, {}};
  for (int g = 0; g < D; ++g) {
    const Vec<T, D> dm2_u = m.dm2[g] * u;
    T s = m.dm0[g] + dot(u, dm2_u);
    for (int k = 0; k < D; ++k) {
      s -= T(2) * u[k] * m.dm1(k, g);
    }
    row.grad_a[g] = -(a * a) * s;
    const Vec<T, D> p_dm2_u = p * dm2_u;
    for (int c = 0; c < D; ++c) {
      row.grad_b(g, c) = p_dm2_u[c] - p_dm1(c, g);
    }
  }
  return row;
}

} // namespace sphad::corrections
