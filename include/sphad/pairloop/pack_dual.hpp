// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/pairloop/vocabulary.hpp>
#include <sphad/simd/pack.hpp>

#include <type_traits>

/// \file
/// \brief Dual numbers on SIMD packs for the host's pair blocks: `PackDual` (values and
/// tangents as packs, `Dual`'s arithmetic lane by lane), `PackedOutput` (an operator's output
/// as packs and one lane of it back), and the lane helpers `keep_lanes`, `lane_of`, `tangent_of`.

namespace sphad::pairloop {

#if SPHAD_HAS_PACKS
/// The packs of a pair block's combination: the scalar Out (or a `Vec` of them) as packs, and a
/// lane of them back.
template <class Out, class P>
struct PackedOutput {
  using type = void; // not packed: the block combines lane by lane
};
template <class P>
struct PackedOutput<typename P::scalar_type, P> {
  using type = P;
  SPHAD_INLINE static typename P::scalar_type lane(const P& v, int l) { return v[l]; }
};
template <class P, int D>
struct PackedOutput<Vec<typename P::scalar_type, D>, P> {
  using type = Vec<P, D>;
  SPHAD_INLINE static Vec<typename P::scalar_type, D> lane(const Vec<P, D>& v, int l) {
    Vec<typename P::scalar_type, D> out;
    for (int a = 0; a < D; ++a) {
      out[a] = v[a][l];
    }
    return out;
  }
};

/// A pack of kernel quantities with N position directions: the values and each direction's
/// tangents as packs, with `Dual`'s arithmetic — against packs without tangents too — each
/// operation formed as `Dual` forms it (the same bits, lane by lane), so that an operator's
/// lanewise combination takes it as it takes dual numbers.
template <class P, int N>
struct PackDual {
  P value;
  P tangent[N];

  PackDual() = default;
  /// A constant: `value` with zero tangents, as `Dual`'s constructor from a scalar.
  SPHAD_INLINE explicit PackDual(P v) : value(v) {
    for (int k = 0; k < N; ++k) {
      tangent[k] = P(typename P::scalar_type(0));
    }
  }

  /// f(tangent k of a, tangent k of b...) for each k, into a copy of `a`'s layout.
  template <class F>
  SPHAD_INLINE static PackDual with_tangents(P value, const F& f) {
    PackDual out;
    out.value = value;
    for (int k = 0; k < N; ++k) {
      out.tangent[k] = f(k);
    }
    return out;
  }
  SPHAD_INLINE friend PackDual operator-(const PackDual& a) {
    return with_tangents(-a.value, [&](int k) { return -a.tangent[k]; });
  }
  SPHAD_INLINE friend PackDual operator+(const PackDual& a, const PackDual& b) {
    return with_tangents(a.value + b.value, [&](int k) { return a.tangent[k] + b.tangent[k]; });
  }
  SPHAD_INLINE friend PackDual operator-(const PackDual& a, const PackDual& b) {
    return with_tangents(a.value - b.value, [&](int k) { return a.tangent[k] - b.tangent[k]; });
  }
  SPHAD_INLINE friend PackDual operator*(const PackDual& a, const PackDual& b) {
    return with_tangents(a.value * b.value,
                         [&](int k) { return a.tangent[k] * b.value + a.value * b.tangent[k]; });
  }
  SPHAD_INLINE friend PackDual operator/(const PackDual& a, const PackDual& b) {
    const P quotient = a.value / b.value, inverse = P(1) / b.value; // as `Dual::operator/=`
    return with_tangents(quotient,
                         [&](int k) { return (a.tangent[k] - quotient * b.tangent[k]) * inverse; });
  }
  // With a pack without tangents: + and − leave the tangents, * and / scale them.
  SPHAD_INLINE friend PackDual operator+(PackDual a, P s) {
    a.value = a.value + s;
    return a;
  }
  SPHAD_INLINE friend PackDual operator+(P s, const PackDual& a) { return a + s; }
  SPHAD_INLINE friend PackDual operator-(PackDual a, P s) {
    a.value = a.value - s;
    return a;
  }
  SPHAD_INLINE friend PackDual operator-(P s, const PackDual& a) { return -a + s; }
  SPHAD_INLINE friend PackDual operator*(const PackDual& a, P s) {
    return with_tangents(a.value * s, [&](int k) { return a.tangent[k] * s; });
  }
  SPHAD_INLINE friend PackDual operator*(P s, const PackDual& a) { return a * s; }
  SPHAD_INLINE friend PackDual operator/(const PackDual& a, P s) {
    return with_tangents(a.value / s, [&](int k) { return a.tangent[k] / s; });
  }
  SPHAD_INLINE friend PackDual operator/(P s, const PackDual& a) {
    const P value = s / a.value, factor = -value / a.value; // as `Dual`'s s / a
    return with_tangents(value, [&](int k) { return factor * a.tangent[k]; });
  }
  SPHAD_INLINE PackDual& operator+=(const PackDual& b) { return *this = *this + b; }
  /// √a, its tangents a'/(2√a) as `sqrt` of a `Dual` forms them (not finite where a = 0).
  SPHAD_INLINE friend PackDual sqrt(const PackDual& a) {
    const P root = simd::sqrt(a.value), slope = P(typename P::scalar_type(0.5)) / root;
    return with_tangents(root, [&](int k) { return slope * a.tangent[k]; });
  }

  /// Lane l as the scalar path's `Dual`.
  SPHAD_INLINE Dual<typename P::scalar_type, N> lane(int l) const {
    Dual<typename P::scalar_type, N> out;
    out.value = value[l];
    for (int k = 0; k < N; ++k) {
      out.tangent[k] = tangent[k][l];
    }
    return out;
  }
};

/// The primal value of a plain pack or of a `PackDual`'s (every lane's).
template <class T, int W>
SPHAD_INLINE simd::Pack<T, W> pack_value(const simd::Pack<T, W>& v) {
  return v;
}
template <class P, int N>
SPHAD_INLINE P pack_value(const PackDual<P, N>& v) {
  return v.value;
}

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

/// The lanes of a packed term that `keep` holds, +0 (value and tangents) in the others.
template <class T, int W>
SPHAD_INLINE simd::Pack<T, W> keep_lanes(simd::PackMask<T, W> keep, simd::Pack<T, W> term) {
  return select(keep, term, simd::Pack<T, W>(T(0)));
}
template <class P, int N>
SPHAD_INLINE PackDual<P, N> keep_lanes(typename P::mask keep, PackDual<P, N> term) {
  term.value = keep_lanes(keep, term.value);
  for (int k = 0; k < N; ++k) {
    term.tangent[k] = keep_lanes(keep, term.tangent[k]);
  }
  return term;
}
template <class M, class X, int D>
SPHAD_INLINE Vec<X, D> keep_lanes(M keep, Vec<X, D> term) {
  for (int a = 0; a < D; ++a) {
    term[a] = keep_lanes(keep, term[a]);
  }
  return term;
}

/// Lane l of a kernel quantity's pack (plain or with tangents).
template <class P>
SPHAD_INLINE typename P::scalar_type lane_of(const P& v, int l) {
  return v[l];
}
template <class P, int N>
SPHAD_INLINE Dual<typename P::scalar_type, N> lane_of(const PackDual<P, N>& v, int l) {
  return v.lane(l);
}

/// A JVP's scalar (`Dual<V, N>`) and vector outputs as `PackDual`s.
template <class P, int N>
struct PackedOutput<Dual<typename P::scalar_type, N>, P> {
  using type = PackDual<P, N>;
  SPHAD_INLINE static Dual<typename P::scalar_type, N> lane(const type& v, int l) {
    return v.lane(l);
  }
};
template <class P, int N, int D>
struct PackedOutput<Vec<Dual<typename P::scalar_type, N>, D>, P> {
  using type = Vec<PackDual<P, N>, D>;
  SPHAD_INLINE static Vec<Dual<typename P::scalar_type, N>, D> lane(const type& v, int l) {
    Vec<Dual<typename P::scalar_type, N>, D> out;
    for (int a = 0; a < D; ++a) {
      out[a] = v[a].lane(l);
    }
    return out;
  }
};
#endif

} // namespace sphad::pairloop

#if SPHAD_HAS_PACKS
namespace sphad {
/// A pack's and a `PackDual`'s primal scalar: their lanes' (as for `Dual`), so that generic
/// arithmetic's constants (`primal_t<T>(c)`) broadcast.
template <class T, int W>
struct primal<simd::Pack<T, W>> {
  using type = T;
};
template <class P, int N>
struct primal<pairloop::PackDual<P, N>> {
  using type = typename P::scalar_type;
};
} // namespace sphad

/// A pack and a `PackDual` of it promote to the `PackDual` (`promote_t`, as a plain scalar and
/// a `Dual` do): generic combinations convert the pack to a constant, as they convert a scalar.
template <class P, int N>
struct std::common_type<sphad::pairloop::PackDual<P, N>, P> {
  using type = sphad::pairloop::PackDual<P, N>;
};
template <class P, int N>
struct std::common_type<P, sphad::pairloop::PackDual<P, N>> {
  using type = sphad::pairloop::PackDual<P, N>;
};
#endif
