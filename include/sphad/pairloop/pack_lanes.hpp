// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual.hpp>
#include <sphad/ad/lanewise.hpp>
#include <sphad/kernels/support.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/pairloop/vocabulary.hpp>
#include <sphad/simd/pack.hpp>

#include <type_traits>

/// \file
/// \brief The host's pair blocks' values as packs and one lane of them back: `PackedOutput` (an
/// operator's output as packs), `lane_of` (lane l of a pack, of a `Dual` over packs, of a
/// kernel linearization on packs) and `tangent_of` (a position's tangent, 0 for a plain one).

namespace sphad::pairloop {

/// Tangent k of a position component with one layer of tangents (0 for a plain one).
template <class X>
SPHAD_INLINE primal_t<X> tangent_of(const X& x, int k) {
  if constexpr (is_dual_v<X>) {
    return x.tangent[k];
  } else {
    (void)x;
    (void)k;
    return primal_t<X>(0);
  }
}

#if SPHAD_HAS_PACKS
/// Lane l of a pack, of a `Dual` over packs (the scalar path's `Dual`), of a `Vec` of them.
template <class T, int W>
SPHAD_INLINE T lane_of(const simd::Pack<T, W>& v, int l) {
  return v[l];
}
template <class T, int W, int N>
SPHAD_INLINE Dual<T, N> lane_of(const Dual<simd::Pack<T, W>, N>& v, int l) {
  Dual<T, N> out;
  out.value = v.value[l];
  for (int k = 0; k < N; ++k) {
    out.tangent[k] = v.tangent[k][l];
  }
  return out;
}
template <class X, int D>
SPHAD_INLINE auto lane_of(const Vec<X, D>& v, int l) {
  Vec<decltype(lane_of(v[0], l)), D> out;
  for (int a = 0; a < D; ++a) {
    out[a] = lane_of(v[a], l);
  }
  return out;
}
/// Lane l of a kernel linearization on packs: pair l's, as `kernels::linearize` forms it.
template <class T, int W, int D>
SPHAD_INLINE kernels::KernelLinearization<T, D>
lane_of(const kernels::KernelLinearization<simd::Pack<T, W>, D>& k, int l) {
  return {k.w[l],      lane_of(k.grad, l), lane_of(k.x, l), k.scale[l], k.g[l],
          k.radial[l], k.w_dh[l],          k.grad_dh[l],    k.r[l]};
}
template <SupportScheme S, class T, int W, int D>
SPHAD_INLINE kernels::PairLinearization<S, T, D>
lane_of(const kernels::PairLinearization<S, simd::Pack<T, W>, D>& p, int l) {
  if constexpr (kernels::averages_evaluations_v<S>) {
    return {lane_of(p.first, l), lane_of(p.second, l), p.h_i[l], p.h_j[l]};
  } else {
    return {lane_of(p.first, l), {}, p.h_i[l], p.h_j[l]};
  }
}

/// The packs of a pair block's combination: the scalar Out (a plain or dual scalar, or a `Vec`
/// of one of them) as packs (`void`: not packed, the block combines lane by lane).
template <class Out, class P>
struct PackedOutput {
  using type = void;
};
template <class P>
struct PackedOutput<typename P::scalar_type, P> {
  using type = P;
};
template <class P, int N>
struct PackedOutput<Dual<typename P::scalar_type, N>, P> {
  using type = Dual<P, N>;
};
template <class P, int D>
struct PackedOutput<Vec<typename P::scalar_type, D>, P> {
  using type = Vec<P, D>;
};
template <class P, int N, int D>
struct PackedOutput<Vec<Dual<typename P::scalar_type, N>, D>, P> {
  using type = Vec<Dual<P, N>, D>;
};

/// A pair block's field values as packs: `NoField` stays, a plain scalar is a pack, a plain
/// `Vec` a `Vec` of packs; anything else (values with tangents) is `void`: not packed.
template <class F, class P>
struct PackedFieldOf {
  using type = void;
};
template <class P>
struct PackedFieldOf<ops::NoField, P> {
  using type = ops::NoField;
};
template <class P>
struct PackedFieldOf<typename P::scalar_type, P> {
  using type = P;
};
template <class P, int D>
struct PackedFieldOf<Vec<typename P::scalar_type, D>, P> {
  using type = Vec<P, D>;
};
#endif

} // namespace sphad::pairloop
