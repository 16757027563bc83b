// SPDX-License-Identifier: MIT
// An operator entry: the value, JVP and VJP of one operator type Op in dimension D, scalar T,
// field type Field (`ops::NoField` for Density), with or without volumes, with the corrections
// named by the bits of `Corrections` (CRK, renormalization, grad-h), as one function of an
// `OperatorCall`. The module compiles the entries it is built with; any other is compiled on
// first use from the same source (sphad/_jit.py), so every combination runs the C++ library's own
// instantiation. The correction pipelines' entries: pipelines.hpp.
#pragma once

#include "call_args.hpp"

namespace sphad::python {

/// An entry for a field the operator does not take (the operator's own rule, as the runtime
/// front end states it): every verb reports it, naming `values`.
inline void unsupported_field(OperatorCall& c) noexcept {
  reporting_errors(c, [&] {
    sphad::detail::throw_invalid_argument(
        c.function, "values",
        "this operator does not take fields of this trailing shape (Divergence: a vector of "
        "extent D, or a matrix with D rows (standard mode) or columns (dot mode); Curl: the "
        "same, for D >= 2; the Laplacian's dot scheme and positive divergence: a scalar or "
        "vector with a multiple of D, at least D, components)");
  });
}

/// The entry of operator Op (see the file comment), for a field it takes.
template <class Op, int D, class T, class Field, bool Volumes, int Corrections>
void operator_entry(int verb, OperatorCall& c) noexcept {
  constexpr bool densities = Op::needs_densities;
  reporting_errors(c, [&] {
    const CallArgs<D, T, Volumes, Corrections> args(c, verb != int(Verb::describe));
    using Set = decltype(args.template set<densities, 0>(PlainArrays{}));
    using Values = decltype(args.template values<Field, 0>(PlainArrays{}));
    using Corr = decltype(args.corrections(PlainArrays{}));
    using Out = ops::output_of_t<Op, Set, Set, Values, Values, Corr>;
    const auto run = [&](auto&& wrap, auto&& f) { // built in order: the first error is the queries'
      const auto q = args.template set<densities, 0>(wrap);
      const auto r = args.template set<densities, 1>(wrap);
      const auto qv = args.template values<Field, 0>(wrap);
      const auto rv = args.template values<Field, 1>(wrap);
      f(q, r, qv, rv, args.corrections(wrap));
    };
    if (verb == int(Verb::describe)) {
      describe_output<Out>(c, 0);
      c.needs_densities = densities;
      c.needs_values = Op::needs_values;
      return;
    }
    const OnCallDevice on_device(c);
    const Space ex = space_of(c);
    const NeighborList<Space>& list = list_of(c);
    switch (static_cast<Verb>(verb)) {
    case Verb::value:
      run(PlainArrays{},
          [&](const auto& q, const auto& r, const auto& qv, const auto& rv, const auto& corr) {
            apply_into<Op>(ex, ops::pairs(q, r, args.domain, list, args.options),
                           args.template out<Out>(0), qv, rv, corr);
          });
      return;
    case Verb::jvp: {
      TangentArrays<T> tangents(c);
      run(tangents,
          [&](const auto& q, const auto& r, const auto& qv, const auto& rv, const auto& corr) {
            jvp_into<Op>(ex, ops::pairs(q, r, args.domain, list, args.options),
                         args.template out<Out>(0),
                         entry_detail::view<Out>(c, slot::out_tangent, args.rows[0]), qv, rv, corr);
          });
      return;
    }
    case Verb::vjp: {
      // The tracked inputs variables (all, or the positions alone when only their gradients
      // are asked for); the gradients asked for are copied out.
      const auto vjp = [&](auto variables) {
        const auto seed = entry_detail::view<const Out>(c, slot::seed, args.rows[0]);
        Tape<Space> tape(ex);
        run(variables,
            [&](const auto& q, const auto& r, const auto& qv, const auto& rv, const auto& corr) {
              const auto out =
                  record<Op>(tape, ops::pairs(q, r, args.domain, list, args.options), qv, rv, corr);
              tape.backward(out, seed);
            });
        variables.copy_gradients(tape);
      };
      if (wants_positions_only(c)) {
        vjp(VariableArrays<Tracking::positions>{c, {}, {}});
      } else {
        vjp(VariableArrays<Tracking::all>{c, {}, {}});
      }
      return;
    }
    default:
      break;
    }
    sphad::detail::throw_invalid_argument(c.function, "verb", "unknown");
  });
}

/// The entry of operator Op (see the file comment).
template <class Op, int D, class T, class Field, bool Volumes, int Corrections>
void entry(int verb, OperatorCall* call) noexcept {
  if constexpr (Op::template accepts_field<D, Field>) {
    operator_entry<Op, D, T, Field, Volumes, Corrections>(verb, *call);
  } else {
    unsupported_field(*call);
  }
}

} // namespace sphad::python

/// Defines `extern "C" void NAME(int, OperatorCall*)` as the entry of the given operator type,
/// dimension, scalar, field type, volume flag and corrections (bits of `correction`).
#define SPHAD_PYTHON_ENTRY(NAME, OP, D, T, FIELD, VOLUMES, CORRECTIONS)                            \
  extern "C" void NAME(int verb, ::sphad::python::OperatorCall* call) {                            \
    ::sphad::python::entry<OP, D, T, FIELD, VOLUMES, CORRECTIONS>(verb, call);                     \
  }
