// SPDX-License-Identifier: MIT
// The correction pipelines' entries: grad-h Omega, the renormalization matrices and the CRK
// factors (sphad/corrections), each with its value, JVP (the pipeline on dual sets, the dual
// outputs split into values and tangents) and VJP (the pipeline recorded, every seed swept at
// once), in the slots of operator_call.hpp, on the host or (compiled by nvcc) on CUDA. A
// pipeline entry is compiled like an operator's (built in or on first use).
#pragma once

#include <sphad/corrections.hpp>

#include "call_args.hpp"

namespace sphad::python {

namespace entry_detail {

/// dual[i] split into its value and tangent by the JVP's own store (one thread per i on CUDA).
template <class Dual>
struct SplitDual {
  const Dual* dual;
  pairloop::StoreSplit<Dual, 1> store;
  SPHAD_HOST_DEVICE void operator()(std::int64_t i) const { store(i, dual[i]); }
};

/// Covariance's results (and tangents, when given) into its output arrays.
template <class Result, class M>
struct WriteCovariance {
  const Result* results;
  const Result* tangents; ///< null: no tangents
  M* matrices;
  std::int32_t* counts;
  M* dots;
  SPHAD_HOST_DEVICE void operator()(std::int64_t i) const {
    matrices[i] = results[i].matrix;
    counts[i] = results[i].neighbors;
    if (tangents != nullptr) {
      dots[i] = tangents[i].matrix;
    }
  }
};

/// Covariance's seeds as results (the counts' seeds zero: not differentiable).
template <class Result, class M>
struct SeedCovariance {
  const M* seed;
  Result* out;
  SPHAD_HOST_DEVICE void operator()(std::int64_t i) const {
    Result r{};
    r.matrix = seed[i];
    out[i] = r;
  }
};

} // namespace entry_detail

/// Writes a JVP's dual outputs `dual` [n] into an output and its tangent, on the call's space.
template <class Dual, class E>
void split_into(const OperatorCall& c, Span<const Dual> dual, Span<E> value, Span<E> tangent) {
  exec::for_each_index(
      space_of(c), dual.size(),
      entry_detail::SplitDual<Dual>{dual.data(), {value.data(), tangent.data(), dual.size()}});
}

/// Omega_i = 1 + h_i/(D rho_i) sum_j m_j dW(x_ij, h_i)/dh_i: the queries' densities, the
/// references' positions and masses. Output [Nq].
template <class Kernel>
struct OmegasPipeline {
  static constexpr int outputs = 1;
  static constexpr bool single_set = false;
  static constexpr bool queries_densities = true;
  static constexpr bool references_densities = true; // the stage's validation asks for them
  template <int D, class T>
  static void describe(OperatorCall& c) {
    describe_output<T>(c, 0);
  }
  template <class Args, class Q, class R, class Corr>
  static void value(const Args& a, const Q& q, const R& r, const Corr&) {
    using T = typename Q::primal_scalar;
    corrections::grad_h_omegas_into<Kernel>(space_of(a.c), q, r, a.domain, list_of(a.c),
                                            a.template out<T>(0), a.options);
  }
  template <class Args, class Q, class R, class Corr>
  static void jvp(const Args& a, const Q& q, const R& r, const Corr&) {
    using T = typename Q::primal_scalar;
    using Dual = ops::call_scalar_t<Q, R>;
    Buffer<Dual, Space> dual(space_of(a.c), q.size());
    corrections::grad_h_omegas_into<Kernel>(space_of(a.c), q, r, a.domain, list_of(a.c),
                                            Span<Dual>(dual.data(), q.size()), a.options);
    split_into(a.c, Span<const Dual>(dual.data(), q.size()), a.template out<T>(0),
               entry_detail::view<T>(a.c, slot::out_tangent_k(0), q.size()));
  }
  template <class Args, class Q, class R, class Corr>
  static void vjp(const Args& a, Tape<Space>& tape, const Q& q, const R& r, const Corr&) {
    using T = typename Q::primal_scalar;
    const auto omegas =
        corrections::record_omegas<Kernel>(tape, q, r, a.domain, list_of(a.c), a.options);
    tape.backward(omegas, entry_detail::view<const T>(a.c, slot::seed_k(0), q.size()));
  }
};

/// The renormalization matrices L_i (Covariance with the call's volumes and corrections, the
/// fallback, pinv). Output [Nq, D, D].
template <class Kernel, SupportScheme Support>
struct RenormalizationPipeline {
  static constexpr int outputs = 1;
  static constexpr bool single_set = false;
  static constexpr bool queries_densities = ops::Covariance<Kernel, Support>::needs_densities;
  static constexpr bool references_densities = queries_densities;
  template <int D, class T>
  static void describe(OperatorCall& c) {
    describe_output<Mat<T, D, D>>(c, 0);
  }
  template <class Args, class Q, class R, class Corr>
  static void value(const Args& a, const Q& q, const R& r, const Corr& corr) {
    using M = Mat<typename Q::primal_scalar, Q::dim, Q::dim>;
    corrections::renormalization_matrices_into<Kernel, Support>(space_of(a.c), q, r, a.domain,
                                                                list_of(a.c), a.template out<M>(0),
                                                                Span<M>{}, a.options, corr);
  }
  template <class Args, class Q, class R, class Corr>
  static void jvp(const Args& a, const Q& q, const R& r, const Corr& corr) {
    using M = Mat<typename Q::primal_scalar, Q::dim, Q::dim>;
    using Dual = Mat<ops::call_scalar_t<Q, R, Corr>, Q::dim, Q::dim>;
    Buffer<Dual, Space> dual(space_of(a.c), q.size());
    corrections::renormalization_matrices_into<Kernel, Support>(
        space_of(a.c), q, r, a.domain, list_of(a.c), Span<Dual>(dual.data(), q.size()),
        Span<Dual>{}, a.options, corr);
    split_into(a.c, Span<const Dual>(dual.data(), q.size()), a.template out<M>(0),
               entry_detail::view<M>(a.c, slot::out_tangent_k(0), q.size()));
  }
  template <class Args, class Q, class R, class Corr>
  static void vjp(const Args& a, Tape<Space>& tape, const Q& q, const R& r, const Corr& corr) {
    using M = Mat<typename Q::primal_scalar, Q::dim, Q::dim>;
    const auto l = corrections::record_renormalization<Kernel, Support>(
        tape, q, r, a.domain, list_of(a.c), a.options, corr);
    tape.backward(l, entry_detail::view<const M>(a.c, slot::seed_k(0), q.size()));
  }
};

/// The CRK factors of one set (queries = references): apparent volumes, the diagnostic CRK
/// density, A, B, grad A, grad B (derivative axis first). Outputs [N], [N], [N], [N, D],
/// [N, D], [N, D, D].
template <class Kernel>
struct CRKPipeline {
  static constexpr int outputs = 6;
  static constexpr bool single_set = true; ///< no reference set (its slots are empty)
  static constexpr bool queries_densities = false;
  static constexpr bool references_densities = false;
  template <int D, class T>
  static void describe(OperatorCall& c) {
    describe_output<T>(c, 0);
    describe_output<T>(c, 1);
    describe_output<T>(c, 2);
    describe_output<Vec<T, D>>(c, 3);
    describe_output<Vec<T, D>>(c, 4);
    describe_output<Mat<T, D, D>>(c, 5);
  }
  template <class Q>
  static corrections::CRKOptions<typename Q::primal_scalar> crk_options(const OperatorCall& c) {
    corrections::CRKOptions<typename Q::primal_scalar> o;
    o.direction = c.direction;
    if (c.tau >= 0) {
      o.tau = typename Q::primal_scalar(c.tau);
    }
    return o;
  }
  template <class Args, class Q, class R, class Corr>
  static void value(const Args& a, const Q& q, const R&, const Corr&) {
    using T = typename Q::primal_scalar;
    constexpr int D = Q::dim;
    const Space ex = space_of(a.c);
    const auto volumes = a.template out<T>(0);
    corrections::apparent_volumes_into<Kernel>(ex, q, a.domain, list_of(a.c), volumes,
                                               a.c.direction);
    const auto weighted = q.with_volumes(Span<const T>(volumes));
    const corrections::CRKStateSpans<D, T> state{a.template out<T>(2), a.template out<Vec<T, D>>(3),
                                                 a.template out<Vec<T, D>>(4),
                                                 a.template out<Mat<T, D, D>>(5)};
    corrections::crk_factors_into<Kernel>(ex, weighted, weighted, a.domain, list_of(a.c), state,
                                          crk_options<Q>(a.c));
    const ops::CRK<D, T> crk{state.a, state.b, state.grad_a, state.grad_b};
    corrections::crk_density_into<Kernel>(ex, weighted, a.domain, list_of(a.c), crk,
                                          a.template out<T>(1), a.c.direction);
  }
  template <class Args, class Q, class R, class Corr>
  static void jvp(const Args& a, const Q& q, const R&, const Corr&) {
    const auto f = corrections::compute_crk_factors<Kernel>(space_of(a.c), q, a.domain,
                                                            list_of(a.c), crk_options<Q>(a.c));
    const auto split = [&](int k, const auto& buffer) {
      using Dual = std::remove_const_t<std::remove_pointer_t<decltype(buffer.data())>>;
      using E = decltype(pairloop::value_part(std::declval<Dual>()));
      split_into(a.c, Span<const Dual>(buffer.data(), buffer.size()), a.template out<E>(k),
                 entry_detail::view<E>(a.c, slot::out_tangent_k(k), q.size()));
    };
    split(0, f.volumes);
    split(1, f.density);
    split(2, f.a);
    split(3, f.b);
    split(4, f.grad_a);
    split(5, f.grad_b);
  }
  template <class Args, class Q, class R, class Corr>
  static void vjp(const Args& a, Tape<Space>& tape, const Q& q, const R&, const Corr&) {
    const auto f = corrections::record_crk_factors<Kernel>(tape, q, a.domain, list_of(a.c),
                                                           crk_options<Q>(a.c));
    const auto seed = [&](int k, const auto& variable) {
      using E = std::remove_const_t<std::remove_pointer_t<decltype(variable.data())>>;
      return Seed<E>{variable, entry_detail::view<const E>(a.c, slot::seed_k(k), q.size())};
    };
    tape.backward(BackwardOptions{}, seed(0, f.volumes), seed(1, f.density), seed(2, f.a),
                  seed(3, f.b), seed(4, f.grad_a), seed(5, f.grad_b));
  }
};

/// Covariance: C_i = sum_j V_j (x_j - x_i) (x) G_ij and the count of pairs with W_ij > 0
/// (ops/covariance.hpp), with the call's volumes and corrections. Outputs [Nq, D, D] and [Nq]
/// int32 (not differentiable: its tangent and seed are neither written nor read).
template <class Kernel, SupportScheme Support>
struct CovariancePipeline {
  using Op = ops::Covariance<Kernel, Support>;
  static constexpr int outputs = 2;
  static constexpr bool single_set = false;
  static constexpr bool queries_densities = Op::needs_densities;
  static constexpr bool references_densities = Op::needs_densities;
  template <int D, class T>
  static void describe(OperatorCall& c) {
    describe_output<Mat<T, D, D>>(c, 0);
    describe_output<std::int32_t>(c, 1);
    c.out_int32[1] = true;
  }
  /// Writes the matrices and counts of `results` (n) and the tangents' matrices, if given.
  template <class Args, class Result>
  static void write(const Args& a, const Result* results, const Result* tangents, std::int64_t n) {
    using M = decltype(Result::matrix);
    const auto dots = tangents ? entry_detail::view<M>(a.c, slot::out_tangent_k(0), n) : Span<M>{};
    exec::for_each_index(space_of(a.c), n,
                         entry_detail::WriteCovariance<Result, M>{
                             results, tangents, a.template out<M>(0).data(),
                             a.template out<std::int32_t>(1).data(), dots.data()});
  }
  template <class Args, class Q, class R, class Corr>
  static void value(const Args& a, const Q& q, const R& r, const Corr& corr) {
    using Result = ops::CovarianceResult<typename Q::primal_scalar, Q::dim>;
    Buffer<Result, Space> out(space_of(a.c), q.size());
    apply_into<Op>(space_of(a.c), ops::pairs(q, r, a.domain, list_of(a.c), a.options),
                   Span<Result>(out.data(), q.size()), corr);
    write(a, out.data(), static_cast<const Result*>(nullptr), q.size());
  }
  template <class Args, class Q, class R, class Corr>
  static void jvp(const Args& a, const Q& q, const R& r, const Corr& corr) {
    using Result = ops::CovarianceResult<typename Q::primal_scalar, Q::dim>;
    Buffer<Result, Space> out(space_of(a.c), q.size()), tangent(space_of(a.c), q.size());
    jvp_into<Op>(space_of(a.c), ops::pairs(q, r, a.domain, list_of(a.c), a.options),
                 Span<Result>(out.data(), q.size()), Span<Result>(tangent.data(), q.size()), corr);
    write(a, out.data(), tangent.data(), q.size());
  }
  template <class Args, class Q, class R, class Corr>
  static void vjp(const Args& a, Tape<Space>& tape, const Q& q, const R& r, const Corr& corr) {
    using T = typename Q::primal_scalar;
    constexpr int D = Q::dim;
    using Result = ops::CovarianceResult<T, D>;
    using M = Mat<T, D, D>;
    const auto seed = entry_detail::view<const M>(a.c, slot::seed_k(0), q.size());
    Buffer<Result, Space> seeds(space_of(a.c), q.size());
    exec::for_each_index(space_of(a.c), q.size(),
                         entry_detail::SeedCovariance<Result, M>{seed.data(), seeds.data()});
    const auto out = record<Op>(tape, ops::pairs(q, r, a.domain, list_of(a.c), a.options), corr);
    tape.backward(out, Span<const Result>(seeds.data(), q.size()));
  }
};

/// The entry of pipeline P in dimension D, scalar T (volumes and corrections: the
/// renormalization's, as for an operator).
template <class P, int D, class T, bool Volumes, int Corrections>
void pipeline_entry(int verb, OperatorCall* call) noexcept {
  OperatorCall& c = *call;
  reporting_errors(c, [&] {
    const CallArgs<D, T, Volumes, Corrections> args(c, verb != int(Verb::describe));
    const auto run = [&](auto&& wrap, auto&& f) {
      const auto q = args.template set<P::queries_densities, 0>(wrap);
      if constexpr (P::single_set) {
        f(q, q, args.corrections(wrap));
      } else {
        const auto r = args.template set<P::references_densities, 1>(wrap);
        f(q, r, args.corrections(wrap));
      }
    };
    if (verb == int(Verb::describe)) {
      c.outputs = P::outputs;
      P::template describe<D, T>(c);
      c.needs_densities = P::queries_densities;
      return;
    }
    const OnCallDevice on_device(c);
    switch (static_cast<Verb>(verb)) {
    case Verb::value:
      run(PlainArrays{},
          [&](const auto& q, const auto& r, const auto& corr) { P::value(args, q, r, corr); });
      return;
    case Verb::jvp: {
      TangentArrays<T> tangents(c);
      run(tangents,
          [&](const auto& q, const auto& r, const auto& corr) { P::jvp(args, q, r, corr); });
      return;
    }
    case Verb::vjp: {
      VariableArrays<> variables{c, {}, {}};
      Tape<Space> tape(space_of(c));
      run(variables,
          [&](const auto& q, const auto& r, const auto& corr) { P::vjp(args, tape, q, r, corr); });
      variables.copy_gradients(tape);
      return;
    }
    default:
      break;
    }
    sphad::detail::throw_invalid_argument(c.function, "verb", "unknown");
  });
}

} // namespace sphad::python

/// Defines `extern "C" void NAME(int, OperatorCall*)` as the entry of pipeline P.
#define SPHAD_PYTHON_PIPELINE(NAME, P, D, T, VOLUMES, CORRECTIONS)                                 \
  extern "C" void NAME(int verb, ::sphad::python::OperatorCall* call) {                            \
    ::sphad::python::pipeline_entry<P, D, T, VOLUMES, CORRECTIONS>(verb, call);                    \
  }
