// SPDX-License-Identifier: MIT
// The derivative matrix (issues #7, #8): every operator and scheme under every support scheme,
// without corrections and with all of them (CRK, renormalization, grad-h, given volumes), on
// small jittered sets with supports perturbed ±15 %, random kinds, periodic and not. Every
// floating input carries a tangent at once (positions, supports, masses, densities, volumes,
// values, Ω, A, B, ∇A, ∇B, L) through `DualView`s, and the JVP is compared with central
// differences of the primal along the same direction: max |JVP − FD| ≤ 1e-6 · max |FD|.
// Reverse mode: every input is a `Variable` (one set as queries and references, one Ω for both
// sides: every role aliased), one backward from a random ȳ, and ⟨Jᵀȳ, u⟩ must equal ⟨ȳ, J u⟩
// (dot-product test, 1e-12 of Σ|ȳ·Ju|) and ⟨ȳ, FD⟩ (1e-6 of Σ|ȳ| · max|FD|).
// Instantiated per dimension and support scheme by derivative_matrix.test.cpp.
#pragma once

#include <sphad/corrections.hpp>
#include <sphad/ops.hpp>
#include <sphad/search.hpp>

#include "support/flatten.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace sphad::test {

/// A primal array and one tangent direction beside it.
template <class E>
struct Differentiable {
  std::vector<E> value, tangent;

  /// The primal moved by `step` along the tangent.
  std::vector<E> moved(double step) const {
    std::vector<E> out(value.size());
    for (std::size_t i = 0; i < value.size(); ++i) {
      out[i] = value[i] + tangent[i] * step;
    }
    return out;
  }
};

template <class E>
Span<const E> view_of(const std::vector<E>& v) {
  return {v.data(), std::int64_t(v.size())};
}

/// Every input of an operator call, with a random direction for each.
template <int D>
struct JVPInputs {
  using V = Vec<double, D>;
  using M = Mat<double, D, D>;
  Differentiable<V> x;
  Differentiable<double> h, m, rho, volume, omega, f, a;
  Differentiable<V> v, b, grad_a;
  Differentiable<M> matrix_field, grad_b, l;
  std::vector<std::int32_t> kinds;
  Domain<D, double> domain;
  NeighborList<exec::host> list;

  explicit JVPInputs(bool periodic, unsigned seed = 7) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const int nx = D == 1 ? 12 : D == 2 ? 8 : 5;
    const double dx = 2.0 / nx;
    const double neighbours = D == 1 ? 6 : D == 2 ? 16 : 30;
    const double h0 = kernels::support_from_volume(std::pow(dx, D), neighbours, D);
    int total = 1;
    for (int k = 0; k < D; ++k) {
      total *= nx;
    }
    const auto scalar = [&](Differentiable<double>& d, double centre, double spread,
                            double tangent) {
      d.value.push_back(centre + spread * u(rng));
      d.tangent.push_back(tangent * u(rng));
    };
    const auto vector = [&](Differentiable<V>& d, double spread, double tangent) {
      V value{}, direction{};
      for (int k = 0; k < D; ++k) {
        value[k] = spread * u(rng);
        direction[k] = tangent * u(rng);
      }
      d.value.push_back(value);
      d.tangent.push_back(direction);
    };
    const auto matrix = [&](Differentiable<M>& d, double diagonal, double spread) {
      M value{}, direction{};
      for (int r = 0; r < D; ++r) {
        for (int c = 0; c < D; ++c) {
          value(r, c) = (r == c ? diagonal : 0.0) + spread * u(rng);
          direction(r, c) = spread * u(rng);
        }
      }
      d.value.push_back(value);
      d.tangent.push_back(direction);
    };
    for (int i = 0; i < total; ++i) {
      V position{}, direction{};
      int rest = i;
      for (int k = 0; k < D; ++k) {
        position[k] = -1 + dx / 2 + (rest % nx) * dx + 0.2 * dx * u(rng);
        direction[k] = dx * u(rng);
        rest /= nx;
      }
      x.value.push_back(position);
      x.tangent.push_back(direction);
      scalar(h, h0, 0.15 * h0, 0.1 * h0); // ±15 %: no max() ties
      scalar(m, std::pow(dx, D), 0.2 * std::pow(dx, D), 0.1 * std::pow(dx, D));
      scalar(rho, 1.0, 0.2, 0.1);
      scalar(volume, std::pow(dx, D), 0.2 * std::pow(dx, D), 0.1 * std::pow(dx, D));
      scalar(omega, 1.0, 0.1, 0.1);
      scalar(f, 0.0, 1.0, 1.0);
      scalar(a, 1.0, 0.1, 0.1);
      vector(v, 1.0, 1.0);
      vector(b, 0.3, 0.1);
      vector(grad_a, 0.3, 0.1);
      matrix(matrix_field, 0.0, 1.0);
      matrix(grad_b, 0.0, 0.3);
      matrix(l, 1.0, 0.1);
      // Fluid, boundary and ghost particles: the default direction drops ghost references.
      kinds.push_back(std::int32_t(rng() % 3));
    }
    domain = {V::filled(-1.0), V::filled(1.0), {}};
    for (int k = 0; k < D; ++k) {
      domain.periodic[k] = periodic;
    }
    // The frozen neighbour set: every pair any scheme can reach, with a margin
    // for the perturbed supports.
    std::vector<double> wide(h.value.size());
    for (std::size_t i = 0; i < wide.size(); ++i) {
      wide[i] = 1.05 * (h.value[i] + 1e-3 * std::abs(h.tangent[i]));
    }
    const SearchPoints<D, double> points{view_of(x.value), view_of(wide)};
    list = build_neighbor_list<SupportScheme::SuperSymmetric>(exec::host{}, points, points, domain);
  }
};

/// The particles of `in` at positions x, supports h and masses m, each carrying its tangent
/// from `in` (the start of the forward chains through the pipelines).
template <int D>
auto tangent_set(const JVPInputs<D>& in,
                 const std::vector<Vec<double, D>>& x,
                 const std::vector<double>& h,
                 const std::vector<double>& m) {
  const ParticleSet<D, double> plain{view_of(x), view_of(h), view_of(m), view_of(in.kinds)};
  return plain.with_positions(with_tangents(view_of(x), view_of(in.x.tangent)))
      .with_supports(with_tangents(view_of(h), view_of(in.h.tangent)))
      .with_masses(with_tangents(view_of(m), view_of(in.m.tangent)));
}

/// The field an operator reads (decided from its properties; a user-defined operator, which
/// has none, reads a vector field).
enum class FieldKind { none, scalar, vector, matrix };

template <class Op, class = void>
inline constexpr bool has_properties_v = false;
template <class Op>
inline constexpr bool has_properties_v<Op, std::void_t<decltype(Op::properties)>> = true;

template <class Op>
constexpr FieldKind library_field_kind() {
  constexpr OperationProperties p = Op::properties;
  switch (p.operation) {
  case Operation::Density:
  case Operation::Covariance:
    return FieldKind::none;
  case Operation::Divergence:
    return p.divergence_mode == DivergenceMode::Dot ? FieldKind::matrix : FieldKind::vector;
  case Operation::Curl:
    return FieldKind::vector;
  case Operation::Laplacian:
    return p.laplacian_scheme == LaplacianScheme::Dot || p.positive_divergence ? FieldKind::vector
                                                                               : FieldKind::scalar;
  default:
    return FieldKind::scalar;
  }
}

template <class Op>
constexpr FieldKind field_kind() {
  if constexpr (!has_properties_v<Op>) {
    return FieldKind::vector;
  } else {
    return library_field_kind<Op>();
  }
}

/// Runs `Op` with every input carrying its tangent, primal arrays moved by `step` along the
/// tangents; returns (primal, tangent) flattened.
template <class Op, bool Corrected, int D>
std::pair<std::vector<double>, std::vector<double>> run_jvp(const JVPInputs<D>& in, double step) {
  const auto x = in.x.moved(step);
  const auto v = in.v.moved(step);
  const auto h = in.h.moved(step);
  const auto m = in.m.moved(step);
  const auto rho = in.rho.moved(step);
  const auto volume = in.volume.moved(step);
  const auto omega = in.omega.moved(step);
  const auto f = in.f.moved(step);
  const auto a = in.a.moved(step);
  const auto b = in.b.moved(step);
  const auto grad_a = in.grad_a.moved(step);
  const auto grad_b = in.grad_b.moved(step);
  const auto l = in.l.moved(step);
  const auto matrix_field = in.matrix_field.moved(step);
  const auto n = std::int64_t(x.size());
  const ParticleSet<D, double> plain{
      view_of(x), view_of(h), view_of(m), {in.kinds.data(), n}, view_of(rho)};
  const auto set = plain.with_positions(with_tangents(view_of(x), view_of(in.x.tangent)))
                       .with_supports(with_tangents(view_of(h), view_of(in.h.tangent)))
                       .with_masses(with_tangents(view_of(m), view_of(in.m.tangent)))
                       .with_densities(with_tangents(view_of(rho), view_of(in.rho.tangent)));
  const auto values = [&]() {
    constexpr FieldKind kind = field_kind<Op>();
    if constexpr (kind == FieldKind::matrix) {
      return with_tangents(view_of(matrix_field), view_of(in.matrix_field.tangent));
    } else if constexpr (kind == FieldKind::vector) {
      return with_tangents(view_of(v), view_of(in.v.tangent));
    } else {
      return with_tangents(view_of(f), view_of(in.f.tangent));
    }
  }();
  const auto evaluate = [&](const auto& s, const auto& corrections) {
    const auto out = jvp<Op>(exec::host{}, s, s, in.domain, in.list, values, values,
                             ApplyOptions<double>{}, corrections);
    std::vector<double> primal, tangent;
    for (std::int64_t i = 0; i < n; ++i) {
      append_scalars(out.primal[i], primal);
      append_scalars(out.tangents[i], tangent);
    }
    return std::make_pair(primal, tangent);
  };
  if constexpr (Corrected) {
    const ops::CRK<D, double> crk{view_of(a), view_of(b), view_of(grad_a), view_of(grad_b)};
    const ops::Renormalization<D, double> renormalization{view_of(l)};
    const ops::GradH<double> grad_h{view_of(omega), view_of(omega)};
    const ops::Corrections corrections{
        crk.with_tangents(view_of(in.a.tangent), view_of(in.b.tangent), view_of(in.grad_a.tangent),
                          view_of(in.grad_b.tangent)),
        renormalization.with_tangents(view_of(in.l.tangent)),
        grad_h.with_tangents(view_of(in.omega.tangent), view_of(in.omega.tangent))};
    return evaluate(set.with_volumes(with_tangents(view_of(volume), view_of(in.volume.tangent))),
                    corrections);
  } else {
    return evaluate(set, ops::Uncorrected{});
  }
}

/// A mutable copy of an input array and the Variable tracking it.
template <class E>
struct Tracked {
  std::vector<E> values;
  Variable<E> variable;
  explicit Tracked(const std::vector<E>& v)
      : values(v), variable(Span<E>{values.data(), std::int64_t(values.size())}) {}
  Tracked(const Tracked&) = delete;
};

/// ⟨g, u⟩ over every scalar.
template <class E>
double dot_scalars(Span<const E> g, const std::vector<E>& u) {
  std::vector<double> a, b;
  for (std::int64_t i = 0; i < g.size(); ++i) {
    append_scalars(g[i], a);
    append_scalars(u[std::size_t(i)], b);
  }
  double sum = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    REQUIRE(std::isfinite(a[k]));
    sum += a[k] * b[k];
  }
  return sum;
}

/// Reverse mode over the same call as `run_jvp` (every input a Variable): records `Op`, sweeps
/// backward from ȳ (`ybar`, flattened like the output) and returns ⟨Jᵀȳ, u⟩, u the inputs'
/// tangents.
template <class Op, bool Corrected, int D>
double run_vjp(const JVPInputs<D>& in, const std::vector<double>& ybar) {
  using V = Vec<double, D>;
  using M = Mat<double, D, D>;
  const Tracked<V> x(in.x.value), b(in.b.value), grad_a(in.grad_a.value), v(in.v.value);
  const Tracked<double> h(in.h.value), m(in.m.value), rho(in.rho.value), f(in.f.value);
  const Tracked<double> volume(in.volume.value), omega(in.omega.value), a(in.a.value);
  const Tracked<M> grad_b(in.grad_b.value), l(in.l.value), matrix_field(in.matrix_field.value);
  const auto n = std::int64_t(in.x.value.size());
  const ParticleSet<D, double> plain{
      view_of(in.x.value), view_of(in.h.value), view_of(in.m.value), {in.kinds.data(), n}};
  const auto set = plain.with_positions(x.variable)
                       .with_supports(h.variable)
                       .with_masses(m.variable)
                       .with_densities(rho.variable);
  Tape<exec::host> tape;
  const auto sweep = [&](const auto& s, const auto& values, const auto& corrections) {
    const auto y = record<Op>(tape, s, s, in.domain, in.list, values.variable, values.variable,
                              ApplyOptions<double>{}, corrections);
    using Out = std::remove_const_t<std::remove_pointer_t<decltype(y.data())>>;
    std::vector<Out> seed(std::size_t(y.size()));
    const double* next = ybar.data();
    for (auto& e : seed) {
      assign_scalars(e, next);
    }
    REQUIRE(next == ybar.data() + ybar.size());
    tape.backward(y, Span<const Out>{seed.data(), y.size()});
    return dot_scalars(tape.gradient(x.variable), in.x.tangent) +
           dot_scalars(tape.gradient(h.variable), in.h.tangent) +
           dot_scalars(tape.gradient(m.variable), in.m.tangent) +
           dot_scalars(tape.gradient(rho.variable), in.rho.tangent);
  };
  const auto with_values = [&](const auto& go) {
    constexpr FieldKind kind = field_kind<Op>();
    if constexpr (kind == FieldKind::matrix) {
      return go(matrix_field) +
             dot_scalars(tape.gradient(matrix_field.variable), in.matrix_field.tangent);
    } else if constexpr (kind == FieldKind::vector) {
      return go(v) + dot_scalars(tape.gradient(v.variable), in.v.tangent);
    } else {
      return go(f) + dot_scalars(tape.gradient(f.variable), in.f.tangent);
    }
  };
  if constexpr (Corrected) {
    const ops::Corrections corrections{
        ops::CRK<D, double, Variable<double>, Variable<Vec<double, D>>, Variable<Vec<double, D>>,
                 Variable<Mat<double, D, D>>>{a.variable, b.variable, grad_a.variable,
                                              grad_b.variable},
        ops::Renormalization<D, double, Variable<Mat<double, D, D>>>{l.variable},
        ops::GradH<double, Variable<double>, Variable<double>>{omega.variable, omega.variable}};
    return with_values([&](const auto& values) {
      const double sum = sweep(set.with_volumes(volume.variable), values, corrections);
      return sum + dot_scalars(tape.gradient(volume.variable), in.volume.tangent) +
             dot_scalars(tape.gradient(omega.variable), in.omega.tangent) +
             dot_scalars(tape.gradient(a.variable), in.a.tangent) +
             dot_scalars(tape.gradient(b.variable), in.b.tangent) +
             dot_scalars(tape.gradient(grad_a.variable), in.grad_a.tangent) +
             dot_scalars(tape.gradient(grad_b.variable), in.grad_b.tangent) +
             dot_scalars(tape.gradient(l.variable), in.l.tangent);
    });
  } else {
    return with_values([&](const auto& values) { return sweep(set, values, ops::Uncorrected{}); });
  }
}

/// The three checks of one operator call.
struct DerivativeErrors {
  double jvp_vs_fd;  ///< max |JVP − FD| / max |FD|
  double vjp_vs_jvp; ///< |⟨Jᵀȳ, u⟩ − ⟨ȳ, J u⟩| / Σ |ȳ · J u|
  double vjp_vs_fd;  ///< |⟨Jᵀȳ, u⟩ − ⟨ȳ, FD⟩| / (Σ |ȳ| · max |FD|)
};

/// JVP and VJP of `Op` against central differences (steps ±1e-6 along the direction) and
/// against each other.
template <class Op, bool Corrected, int D>
DerivativeErrors derivative_errors(const JVPInputs<D>& in) {
  constexpr double step = 1e-6;
  const auto [primal, tangent] = run_jvp<Op, Corrected>(in, 0.0);
  const auto plus = run_jvp<Op, Corrected>(in, step).first;
  const auto minus = run_jvp<Op, Corrected>(in, -step).first;
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> ybar(primal.size());
  double worst = 0, fd_scale = 0, ybar_sum = 0, jvp_dot = 0, fd_dot = 0, dot_scale = 0;
  for (std::size_t k = 0; k < primal.size(); ++k) {
    const double fd = (plus[k] - minus[k]) / (2 * step);
    REQUIRE(std::isfinite(tangent[k]));
    worst = std::max(worst, std::abs(tangent[k] - fd));
    fd_scale = std::max(fd_scale, std::abs(fd));
    ybar[k] = u(rng);
    ybar_sum += std::abs(ybar[k]);
    jvp_dot += ybar[k] * tangent[k];
    fd_dot += ybar[k] * fd;
    dot_scale += std::abs(ybar[k] * tangent[k]);
  }
  const double vjp_dot = run_vjp<Op, Corrected>(in, ybar);
  const auto relative = [](double error, double scale) {
    return scale > 0 ? error / scale : error;
  };
  return {relative(worst, fd_scale), relative(std::abs(vjp_dot - jvp_dot), dot_scale),
          relative(std::abs(vjp_dot - fd_dot), ybar_sum * fd_scale)};
}

template <class... Ops>
struct OpList {};

template <class Kernel, SupportScheme S, int D>
auto operators_for() {
  using G = GradientScheme;
  using L = LaplacianScheme;
  using M = DivergenceMode;
  const auto family = [](auto scheme) {
    constexpr G g = decltype(scheme)::value;
    return OpList<ops::Gradient<Kernel, g, S>, ops::Divergence<Kernel, g, S, M::Standard, false>,
                  ops::Divergence<Kernel, g, S, M::Standard, true>,
                  ops::Divergence<Kernel, g, S, M::Dot, false>,
                  ops::Divergence<Kernel, g, S, M::Dot, true>>{};
  };
  const auto laplacians = [](auto scheme) {
    constexpr L l = decltype(scheme)::value;
    return OpList<ops::Laplacian<Kernel, l, G::Naive, S, false>,
                  ops::Laplacian<Kernel, l, G::Naive, S, true>,
                  ops::Laplacian<Kernel, l, G::Symmetric, S, false>,
                  ops::Laplacian<Kernel, l, G::Symmetric, S, true>>{};
  };
  return std::make_tuple(
      OpList<ops::Density<Kernel, S>, ops::Interpolate<Kernel, S>, ops::Covariance<Kernel, S>>{},
      family(std::integral_constant<G, G::Naive>{}),
      family(std::integral_constant<G, G::Symmetric>{}),
      family(std::integral_constant<G, G::Difference>{}),
      family(std::integral_constant<G, G::Summation>{}),
      laplacians(std::integral_constant<L, L::Naive>{}),
      laplacians(std::integral_constant<L, L::Brookshaw>{}),
      laplacians(std::integral_constant<L, L::Default>{}),
      laplacians(std::integral_constant<L, L::Dot>{}));
}

template <class Kernel, SupportScheme S, int D>
auto curls_for() {
  if constexpr (D >= 2) {
    using G = GradientScheme;
    return OpList<ops::Curl<Kernel, G::Naive, S>, ops::Curl<Kernel, G::Symmetric, S>,
                  ops::Curl<Kernel, G::Difference, S>, ops::Curl<Kernel, G::Summation, S>>{};
  } else {
    return OpList<>{};
  }
}

/// How closely reverse and forward mode agree (the dot-product test, relative): 1e-12, and 1e-10
/// for the truncated Gaussian, whose uncorrected Naive, Symmetric and Summation sums over a
/// near-lattice cancel to a small fraction of their terms (its gradients fall by e^−128 across
/// the support), so the two modes' different summation orders differ by up to 4·10⁻¹¹ there.
/// Reverse mode still matches central differences there to about 1e-12 (`vjp_vs_fd`).
template <class Kernel>
inline constexpr double dot_product_tolerance =
    std::is_same_v<Kernel, kernels::Gaussian> ? 1e-10 : 1e-12;

/// The operator's properties in words (a user-defined operator: "user-defined").
template <class Op>
std::string describe() {
  if constexpr (has_properties_v<Op>) {
    constexpr OperationProperties p = Op::properties;
    return std::to_string(int(p.operation)) + " gradient " +
           std::to_string(int(p.gradient_scheme)) + " laplacian " +
           std::to_string(int(p.laplacian_scheme)) + " mode " +
           std::to_string(int(p.divergence_mode)) + " consistent " +
           std::to_string(p.consistent_divergence) + " positive " +
           std::to_string(p.positive_divergence);
  } else {
    return "user-defined";
  }
}

template <bool Corrected, int D, class... Ops>
void check_list(const JVPInputs<D>& in, OpList<Ops...>, const std::string& where) {
  const auto check = [&](auto op) {
    using Op = decltype(op);
    const DerivativeErrors error = derivative_errors<Op, Corrected>(in);
    INFO(where << (Corrected ? " corrected" : " plain") << " operation " << describe<Op>()
               << ": JVP-FD " << error.jvp_vs_fd << ", VJP-JVP " << error.vjp_vs_jvp << ", VJP-FD "
               << error.vjp_vs_fd);
    CHECK(error.jvp_vs_fd <= 1e-6);
    CHECK(error.vjp_vs_jvp <= dot_product_tolerance<typename Op::kernel_type>);
    CHECK(error.vjp_vs_fd <= 1e-6);
  };
  (void)check; // an empty list (no curl in 1D)
  (check(Ops{}), ...);
}

template <class Kernel, SupportScheme S, int D, class... Extra>
void check_support(const JVPInputs<D>& in, const std::string& where, OpList<Extra...> extra) {
  const std::string at = where + " support " + std::to_string(int(S));
  std::apply(
      [&](const auto&... lists) {
        (check_list<false>(in, lists, at), ...);
        (check_list<true>(in, lists, at), ...);
      },
      operators_for<Kernel, S, D>());
  check_list<false>(in, curls_for<Kernel, S, D>(), at);
  check_list<true>(in, curls_for<Kernel, S, D>(), at);
  check_list<false>(in, extra, at);
  check_list<true>(in, extra, at);
}

/// The matrix of one dimension, support scheme and kernel, open and periodic
/// (tests/CMakeLists.txt instantiates it for Gather, Scatter, SuperSymmetric,
/// KernelMeanSymmetric, PartialSymmetric with Wendland4, and for the comparison kernels).
template <int D, SupportScheme S, class Kernel = kernels::Wendland4, class Extra = OpList<>>
void run_derivative_matrix() {
  for (const bool periodic : {false, true}) {
    const JVPInputs<D> in(periodic);
    const std::string where = std::to_string(D) + "D" + (periodic ? " periodic" : " open");
    check_support<Kernel, S>(in, where, Extra{});
  }
}

} // namespace sphad::test
