// SPDX-License-Identifier: MIT
// An operator entry: the value, JVP and VJP of one operator type Op in dimension D, scalar T,
// field type Field (`ops::NoField` for Density), with or without volumes, with the corrections
// named by the bits of `Corrections` (CRK, renormalization, grad-h), as one function of an
// `OperatorCall`. The module compiles the entries it is built with; any other
// is compiled on first use from the same source (sphad/_jit.py), so every combination runs the
// C++ library's own instantiation.
#pragma once

#include <sphad/ad.hpp>
#include <sphad/errors.hpp>
#include <sphad/ops.hpp>

#include "operator_call.hpp"

#include <cstdio>
#include <exception>
#include <functional>
#include <string>
#include <vector>

namespace sphad::python {
namespace entry_detail {

/// The trailing extents of an element type: () for a scalar, (K) for Vec<·, K>, (R, C) for
/// Mat<·, R, C>, nested left to right.
template <class E>
struct Extents {
  static constexpr int rank = 0;
  static void fill(std::int64_t*) {}
};
template <class E, int K>
struct Extents<Vec<E, K>> {
  static constexpr int rank = 1 + Extents<E>::rank;
  static void fill(std::int64_t* p) {
    p[0] = K;
    Extents<E>::fill(p + 1);
  }
};
template <class E, int R, int C>
struct Extents<Mat<E, R, C>> {
  static constexpr int rank = 2 + Extents<E>::rank;
  static void fill(std::int64_t* p) {
    p[0] = R;
    p[1] = C;
    Extents<E>::fill(p + 2);
  }
};

/// The name of derived input d (`positions`, `references.masses`, `crk.a`, ...).
inline std::string derived_name(int d) {
  if (d < 2 * slot::derived) {
    return std::string(d < slot::derived ? "" : "references.") +
           input_names[slot::input_of_derived(d % slot::derived)];
  }
  return correction_names[d - 2 * slot::derived];
}

/// The Python name of slot s, for messages.
inline std::string slot_name(int s) {
  if (s < 2 * slot::inputs) {
    return std::string(s < slot::inputs ? "" : "references.") + input_names[s % slot::inputs];
  }
  if (s < slot::all_inputs) {
    return correction_names[s - 2 * slot::inputs];
  }
  if (s < slot::gradient(0)) {
    return derived_name(s - slot::tangent(0)) + "_tangent";
  }
  if (s < slot::out) {
    return derived_name(s - slot::gradient(0)) + "_grad";
  }
  return s == slot::out ? "out" : s == slot::out_tangent ? "out_tangent" : "seed";
}

/// The array in slot s as n elements of E (checked: rank and extents; n < 0: any length).
template <class E>
Span<E> view(const OperatorCall& c, int s, std::int64_t n) {
  using V = std::remove_const_t<E>;
  const ArrayRef& a = c.arrays[s];
  constexpr int rank = Extents<V>::rank;
  std::int64_t extents[8] = {};
  Extents<V>::fill(extents);
  std::string expected = "(" + (n < 0 ? std::string("n") : std::to_string(n));
  for (int k = 0; k < rank; ++k) {
    expected += ", " + std::to_string(extents[k]);
  }
  expected += rank == 0 ? ",)" : ")";
  bool ok = a.ndim == rank + 1 && (n < 0 || a.shape[0] == n);
  for (int k = 0; ok && k < rank; ++k) {
    ok = a.shape[k + 1] == extents[k];
  }
  if (!ok) {
    std::string got = "(";
    for (int k = 0; k < a.ndim; ++k) {
      got += (k ? ", " : "") + std::to_string(a.shape[k]);
    }
    got += a.ndim == 1 ? ",)" : ")";
    sphad::detail::throw_invalid_argument(c.function, slot_name(s).c_str(),
                                          "has shape " + got + ", expected " + expected);
  }
  return {static_cast<E*>(a.data), a.shape[0]};
}

inline bool given(const OperatorCall& c, int s) {
  return c.arrays[s].ndim >= 0;
}

/// Slot s's array, which the operator needs (a clear error when it is missing).
template <class E>
Span<E> required(const OperatorCall& c, int s, std::int64_t n, const char* why) {
  SPHAD_REQUIRE(given(c, s), c.function, slot_name(s).c_str(), why);
  return view<E>(c, s, n);
}

} // namespace entry_detail

/// The entry of operator Op (see the file comment).
template <class Op, int D, class T, class Field, bool Volumes, int Corrections>
void entry(int verb, OperatorCall* call) noexcept {
  using namespace entry_detail;
  OperatorCall& c = *call;
  constexpr bool fields = Op::needs_values;
  constexpr bool densities = Op::needs_densities;
  try {
    const exec::host ex;
    // The sets' arrays, rows counted from the positions.
    std::int64_t rows[2] = {};
    for (int r = 0; r < 2 && verb != int(Verb::describe); ++r) {
      rows[r] = view<const Vec<T, D>>(c, slot::input(r, 0), -1).size();
    }
    const auto scalar_in = [&](int r, int k) {
      return required<const T>(c, slot::input(r, k), rows[r], "is required");
    };
    // Each differentiable input (derived index d) wrapped by `wrap(d, span)`: a span, a span
    // with tangents, a variable.
    const auto make_set = [&](int r, auto&& wrap_derived) {
      const auto wrap = [&](int, int k, auto span) {
        return wrap_derived(slot::set_derived(r, k), span);
      };
      const auto x = view<const Vec<T, D>>(c, slot::input(r, 0), rows[r]);
      const auto kinds = required<const std::int32_t>(c, slot::input(r, 3), rows[r], "is required");
      const ParticleSet<D, T> base{x, scalar_in(r, 1), scalar_in(r, 2), kinds};
      const auto with_xhm = base.with_positions(wrap(r, 0, x))
                                .with_supports(wrap(r, 1, base.supports))
                                .with_masses(wrap(r, 2, base.masses));
      const auto with_rho = [&] {
        if constexpr (densities) {
          return with_xhm.with_densities(
              wrap(r, 3,
                   required<const T>(c, slot::input(r, 4), rows[r],
                                     "is required by this operator (V = m/rho, or its scheme)")));
        } else {
          return with_xhm;
        }
      }();
      if constexpr (Volumes) {
        return with_rho.with_volumes(wrap(r, 4, scalar_in(r, 5)));
      } else {
        return with_rho;
      }
    };
    const auto make_values = [&](int r, auto&& wrap) {
      if constexpr (fields) {
        return wrap(slot::set_derived(r, 5), required<const Field>(c, slot::input(r, 6), rows[r],
                                                                   "is required by this operator"));
      } else {
        return Span<const ops::NoField>{};
      }
    };
    const auto make_corrections = [&](auto&& wrap) {
      const auto state = [&](int k, auto span_type, std::int64_t n) {
        using E = typename decltype(span_type)::type;
        return wrap(slot::correction_derived(k),
                    required<const E>(c, slot::correction(k), n, "is required by the corrections"));
      };
      const auto crk = [&] {
        if constexpr ((Corrections & correction::crk) != 0) {
          const auto a = state(0, std::common_type<T>{}, rows[0]);
          const auto b = state(1, std::common_type<Vec<T, D>>{}, rows[0]);
          const auto ga = state(2, std::common_type<Vec<T, D>>{}, rows[0]);
          const auto gb = state(3, std::common_type<Mat<T, D, D>>{}, rows[0]);
          return ops::CRK<D, T, decltype(a), decltype(b), decltype(ga), decltype(gb)>{a, b, ga, gb};
        } else {
          return ops::NoCRK{};
        }
      }();
      const auto renormalization = [&] {
        if constexpr ((Corrections & correction::renormalization) != 0) {
          const auto l = state(4, std::common_type<Mat<T, D, D>>{}, rows[0]);
          return ops::Renormalization<D, T, decltype(l)>{l};
        } else {
          return ops::NoRenormalization{};
        }
      }();
      const auto grad_h = [&] {
        if constexpr ((Corrections & correction::grad_h) != 0) {
          const auto q = state(5, std::common_type<T>{}, rows[0]);
          const auto r = state(6, std::common_type<T>{}, rows[1]);
          return ops::GradH<T, decltype(q), decltype(r)>{q, r};
        } else {
          return ops::NoGradH{};
        }
      }();
      return ops::Corrections<std::remove_const_t<decltype(crk)>,
                              std::remove_const_t<decltype(renormalization)>,
                              std::remove_const_t<decltype(grad_h)>>{crk, renormalization, grad_h};
    };
    Domain<D, T> domain{};
    for (int a = 0; a < D; ++a) {
      domain.min[a] = T(c.min[a]);
      domain.max[a] = T(c.max[a]);
      domain.periodic[a] = c.periodic[a];
    }
    ApplyOptions<T> options;
    options.direction = c.direction;
    options.calibration_n_h = T(c.calibration_n_h);
    const auto plain = [](int, auto span) { return span; };
    using PlainSet = decltype(make_set(0, plain));
    using PlainValues = decltype(make_values(0, plain));
    using PlainCorrections = decltype(make_corrections(plain));
    using Out =
        ops::output_of_t<Op, PlainSet, PlainSet, PlainValues, PlainValues, PlainCorrections>;

    switch (static_cast<Verb>(verb)) {
    case Verb::describe: {
      c.out_ndim = Extents<Out>::rank;
      Extents<Out>::fill(c.out_shape);
      c.needs_densities = densities;
      c.needs_values = fields;
      return;
    }
    case Verb::value: {
      const auto q = make_set(0, plain);
      const auto r = make_set(1, plain);
      const auto out = view<Out>(c, slot::out, rows[0]);
      apply_into<Op>(ex, q, r, domain, *c.list, make_values(0, plain), make_values(1, plain), out,
                     options, make_corrections(plain));
      return;
    }
    case Verb::jvp: {
      // Absent tangents are zero arrays (one instantiation serves every combination).
      std::vector<std::vector<T>> zeros;
      const auto tangent = [&](int d, auto span) {
        using E = std::remove_const_t<typename decltype(span)::element_type>;
        const int s = slot::tangent(d);
        Span<const E> t;
        if (given(c, s)) {
          t = view<const E>(c, s, span.size());
        } else {
          zeros.emplace_back(std::size_t(span.size()) * sizeof(E) / sizeof(T), T(0));
          t = Span<const E>(reinterpret_cast<const E*>(zeros.back().data()), span.size());
        }
        return with_tangents<1>(span, t);
      };
      zeros.reserve(slot::all_derived);
      const auto q = make_set(0, tangent);
      const auto r = make_set(1, tangent);
      const auto qv = make_values(0, tangent);
      const auto rv = make_values(1, tangent);
      const auto out = view<Out>(c, slot::out, rows[0]);
      const auto out_dot = view<Out>(c, slot::out_tangent, rows[0]);
      jvp_into<Op>(ex, q, r, domain, *c.list, qv, rv, out, out_dot, options,
                   make_corrections(tangent));
      return;
    }
    case Verb::vjp: {
      // Every differentiable input a variable; the ones whose gradient is asked for are copied.
      std::vector<std::function<void(const Tape<exec::host>&)>> copies;
      const auto variable = [&](int d, auto span) {
        using E = std::remove_const_t<typename decltype(span)::element_type>;
        const Variable<E> v(span);
        const int s = slot::gradient(d);
        if (given(c, s)) {
          const auto g = view<E>(c, s, span.size());
          copies.emplace_back([v, g](const Tape<exec::host>& tape) { tape.copy_gradient(v, g); });
        }
        return v;
      };
      const auto seed = view<const Out>(c, slot::seed, rows[0]);
      Tape<exec::host> tape(ex);
      const auto q = make_set(0, variable);
      const auto r = make_set(1, variable);
      const auto out = record<Op>(tape, q, r, domain, *c.list, make_values(0, variable),
                                  make_values(1, variable), options, make_corrections(variable));
      tape.backward(out, seed);
      for (const auto& copy : copies) {
        copy(tape);
      }
      return;
    }
    }
    sphad::detail::throw_invalid_argument(c.function, "verb", "unknown");
  } catch (const InvalidArgument& e) {
    c.status = 1;
    std::snprintf(c.message, sizeof c.message, "%s", e.what());
  } catch (const std::exception& e) {
    c.status = 2;
    std::snprintf(c.message, sizeof c.message, "%s", e.what());
  } catch (...) {
    c.status = 2;
    std::snprintf(c.message, sizeof c.message, "%s: unknown C++ exception", c.function);
  }
}

} // namespace sphad::python

/// Defines `extern "C" void NAME(int, OperatorCall*)` as the entry of the given operator type,
/// dimension, scalar, field type, volume flag and corrections (bits of `correction`).
#define SPHAD_PYTHON_ENTRY(NAME, OP, D, T, FIELD, VOLUMES, CORRECTIONS)                            \
  extern "C" void NAME(int verb, ::sphad::python::OperatorCall* call) {                            \
    ::sphad::python::entry<OP, D, T, FIELD, VOLUMES, CORRECTIONS>(verb, call);                     \
  }
