// SPDX-License-Identifier: MIT
// The host's pair blocks (ops.md, "Host pair loops"): a plain call over a list evaluates L pairs
// at once on SIMD packs, while grid traversal takes the pairs one at a time in the same lanes.
// Both must give the same bits, for every operator form the blocks serve (packed combination,
// lane-by-lane combination), kernel, support scheme, kind filter, dimension and precision,
// with rows of every length mod L, pairs across periodic boundaries and a zero density (V_j = 0).
// The reverse sweep linearizes L kernels at once too (and, with the positions alone tracked,
// forms L pairs' whole directions on packs): its gradients must be the bits of the same sweep
// with a kernel the blocks do not take (the same Wendland, as a user type).
#include <sphad/corrections.hpp>
#include <sphad/ops.hpp>
#include <sphad/search.hpp>
#include <sphad/solver.hpp>

#include "ops/ops_cases.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <limits>
#include <random>
#include <utility>
#include <vector>

using namespace sphad;
using test::span;
using G = GradientScheme;

namespace {

/// Random particles in [0, 1)^D (a few outside by whole periods), supports spread 2×, kinds
/// 0–2, one density 0; scalar and vector fields.
template <int D, class T>
struct Cloud {
  test::Particles<D, T> p;
  std::vector<T> f;
  std::vector<Vec<T, D>> v;
  Domain<D, T> domain{Vec<T, D>::filled(T(0)), Vec<T, D>::filled(T(1)), {}};
  explicit Cloud(bool periodic) {
    std::mt19937 rng(17);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (int a = 0; a < D; ++a) {
      domain.periodic[a] = periodic;
    }
    const int n = D == 2 ? 700 : 900;
    const double h0 = D == 2 ? 0.09 : 0.17;
    for (int i = 0; i < n; ++i) {
      Vec<T, D> x{};
      for (int a = 0; a < D; ++a) {
        x[a] = T(unit(rng)) + (periodic && i % 13 == 0 ? T(1) : T(0));
      }
      p.add(x, T(h0 * (0.7 + 0.7 * unit(rng))), T(1.0 / n),
            i == 5 ? T(0) : T(0.8 + 0.4 * unit(rng)), i % 3);
      f.push_back(T(std::sin(7.0 * double(x[0])) + double(x[D - 1])));
      Vec<T, D> w{};
      for (int a = 0; a < D; ++a) {
        w[a] = T(double(x[(a + 1) % D]) * (a + 1));
      }
      v.push_back(w);
    }
  }
};

template <class A>
bool same_bits(const A& a, const A& b) {
  // (memcmp takes no null pointer, even for no bytes: empty arrays compare by their sizes)
  return a.size() == b.size() &&
         (a.size() == 0 ||
          std::memcmp(a.data(), b.data(), sizeof(*a.data()) * std::size_t(a.size())) == 0);
}

/// The cloud's neighbour list and search grid under scheme S (the blocks' and the pair-at-a-time
/// traversal's).
template <SupportScheme S, int D, class T>
auto list_and_grid(const Cloud<D, T>& c) {
  const auto points = c.p.view().search_points();
  return std::make_pair(build_neighbor_list<S>(exec::host{}, points, points, c.domain),
                        search::build_search_grid<S>(exec::host{}, points, points, c.domain));
}

/// Operator Op over the list (blocks) and over the grid (one pair at a time): the same bits,
/// in every direction given.
template <class Op, int D, class T, class Values>
void check_blocks(const Cloud<D, T>& c, const Values& values) {
  const exec::host ex;
  const auto s = c.p.view();
  const auto [list, grid] = list_and_grid<Op::support>(c);
  for (const auto direction : {OperationDirection::TrueAllToAll, OperationDirection::AllToAll,
                               OperationDirection::FluidToFluid}) {
    INFO("direction " << int(direction));
    const ApplyOptions<T> options{direction};
    if constexpr (std::is_same_v<Values, ops::NoField>) {
      const auto by_list = apply<Op>(ex, s, s, c.domain, list, options);
      const auto by_grid = apply<Op>(ex, s, s, c.domain, grid, options);
      CHECK(same_bits(by_list, by_grid));
    } else {
      const auto by_list = apply<Op>(ex, s, s, c.domain, list, values, values, options);
      const auto by_grid = apply<Op>(ex, s, s, c.domain, grid, values, values, options);
      CHECK(same_bits(by_list, by_grid));
    }
  }
}

/// The JVP of Op with N position directions (both roles, or the queries' alone) over the list
/// (the kernel part on packs with tangents) and over the grid (dual numbers pair by pair): the
/// same bits.
template <class Op, int N, int D, class T, class Values>
void check_jvp_blocks(const Cloud<D, T>& c, const Values& values) {
  const exec::host ex;
  const auto s = c.p.view();
  const auto [list, grid] = list_and_grid<Op::support>(c);
  std::vector<Vec<T, D>> dx(c.f.size() * N);
  for (std::size_t k = 0; k < dx.size(); ++k) {
    for (int a = 0; a < D; ++a) {
      dx[k][a] = T(std::cos(0.37 * double(k) + a)); // zero in no lane
    }
  }
  const auto moving = s.with_positions(with_tangents<N>(s.positions, span(dx)));
  const ApplyOptions<T> options{OperationDirection::FluidToFluid};
  for (const bool both : {true, false}) {
    INFO("tangents on both roles " << both);
    const auto run = [&](const auto& adjacency) {
      if constexpr (std::is_same_v<Values, ops::NoField>) {
        return both ? apply<Op>(ex, moving, moving, c.domain, adjacency, options)
                    : apply<Op>(ex, moving, s, c.domain, adjacency, options);
      } else {
        return both ? apply<Op>(ex, moving, moving, c.domain, adjacency, values, values, options)
                    : apply<Op>(ex, moving, s, c.domain, adjacency, values, values, options);
      }
    };
    CHECK(same_bits(run(list), run(grid)));
  }
}

/// Wendland4 as a user's kernel type that does not declare its shape lanewise: the same
/// members, pair by pair everywhere.
struct PairByPairWendland4 : kernels::Wendland4 {
  static constexpr bool lanewise = false;
};

/// A user's polynomial kernel (Lucy's quartic, (1 + 3q)(1 − q)³) declared lanewise, as
/// docs/extending.md writes it: the host's blocks take it like the library's Wendlands.
struct LucyKernel {
  static constexpr kernels::Center center = kernels::Center::smooth;
  static constexpr bool lanewise = true;
  template <int D, class R>
  SPHAD_HOST_DEVICE static constexpr R normalization() {
    return D == 1 ? R(5) / R(4) : D == 2 ? R(5) / pi_v<R> : R(105) / (R(16) * pi_v<R>);
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T k(const T& q) {
    const T u = 1 - q;
    return (1 + 3 * q) * u * u * u;
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T dk(const T& q) {
    const T u = 1 - q;
    return -12 * q * u * u;
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T d2k(const T& q) {
    return -12 * (1 - q) * (1 - 3 * q);
  }
};

/// Whether the host's plan takes the blocks for a plain Density list call with kernel K.
template <class K>
constexpr bool density_takes_blocks() {
  using PlainScalars = ops::PairScalars<double, double, double, double, double, double>;
  return pairloop::PairPlan<ops::Density<K>,
                            ops::Uncorrected>::template forward_blocks<PlainScalars, true>();
}
static_assert(density_takes_blocks<LucyKernel>() == bool(SPHAD_HAS_PACKS),
              "a user's kernel declared lanewise takes the host's blocks");
static_assert(density_takes_blocks<kernels::Spiky>() == bool(SPHAD_HAS_PACKS));
static_assert(!density_takes_blocks<PairByPairWendland4>(),
              "a kernel not declared lanewise is evaluated pair by pair");
static_assert(!density_takes_blocks<kernels::CubicSpline>());

/// Whether the host's plan takes the blocks for a whole term Op over a list, the field F.
template <class Op, class F>
constexpr bool term_takes_blocks() {
  using PlainScalars = ops::PairScalars<double, double, double, double, double, double>;
  return pairloop::PairPlan<Op, ops::Uncorrected>::template forward_blocks<PlainScalars, true, F>();
}
using Clumping = solver::AntiClumpingGradient<kernels::Wendland4>;
static_assert(term_takes_blocks<Clumping, Vec<double, 2>>() == bool(SPHAD_HAS_PACKS),
              "a whole term declared lanewise takes the host's blocks");
static_assert(
    term_takes_blocks<solver::ArtificialViscosity<kernels::Wendland4>, Vec<double, 3>>() ==
        bool(SPHAD_HAS_PACKS),
    "a split term whose kernel part is its own, declared lanewise, takes the blocks");
static_assert(term_takes_blocks<solver::DensityDiffusion<kernels::Wendland4>, ops::NoField>() ==
              bool(SPHAD_HAS_PACKS));
static_assert(!term_takes_blocks<Clumping, Vec<Dual<double, 1>, 2>>(),
              "a whole term whose field carries tangents is evaluated pair by pair");
static_assert(
    !term_takes_blocks<solver::AntiClumpingGradient<PairByPairWendland4>, Vec<double, 2>>(),
    "a whole term with a kernel not declared lanewise is evaluated pair by pair");

/// What a reverse pass tracks in `check_reverse_blocks`.
enum class Tracked {
  kernel_inputs, ///< positions, supports and masses: the kernels on packs, each pair's directions
  positions,     ///< the positions alone
  particles      ///< positions, densities and the field: the solver steps' rollout gradients
};

/// The reverse pass of Op<Wendland4> (on the host's blocks) and of Op<PairByPairWendland4>
/// (pair by pair), over a list in one direction, both roles one set: the same output and
/// gradients, bit for bit. Tracked: positions, supports and masses (the kernels linearized on
/// packs, each pair's directions lane by lane), the positions alone, or the positions, densities
/// and values (each block's directions on packs where the combination is lanewise); the
/// references' sums by chunks or by pair slots.
template <template <class> class Op, int D, class T, class Values, class Seed, class Corr>
void check_reverse_blocks(const Cloud<D, T>& c,
                          const Values& values,
                          const std::vector<Seed>& seed,
                          const Corr& corrections) {
  const exec::host ex;
  constexpr SupportScheme S = Op<kernels::Wendland4>::support;
  const auto base = c.p.view();
  const auto list =
      build_neighbor_list<S>(ex, base.search_points(), base.search_points(), c.domain);
  const auto run = [&](auto kernel, Tracked tracked, ReferenceSums sums) {
    using K = decltype(kernel);
    const auto n = std::ptrdiff_t(seed.size());
    const auto copy_of = [&](const auto* data) {
      return std::vector<std::decay_t<decltype(*data)>>(data, data + n);
    };
    auto x = copy_of(base.positions.data());
    auto h = copy_of(base.supports.data()), m = copy_of(base.masses.data()),
         rho = copy_of(base.densities.data());
    const Variable<Vec<T, D>> xv(x);
    const Variable<T> hv(h), mv(m), rhov(rho);
    Tape<exec::host> tape(ex, TapeOptions{sums});
    const ApplyOptions<T> options{OperationDirection::FluidToFluid};
    const auto record_with = [&](const auto& s, const auto& f) {
      if constexpr (std::is_same_v<Values, ops::NoField>) {
        return record<Op<K>>(tape, s, s, c.domain, list, options, corrections);
      } else {
        return record<Op<K>>(tape, s, s, c.domain, list, f, f, options, corrections);
      }
    };
    const auto moving = base.with_positions(xv);
    auto f = [&] {
      if constexpr (std::is_same_v<Values, ops::NoField>) {
        return values;
      } else {
        return copy_of(values.data());
      }
    }();
    const auto fv = [&] {
      if constexpr (std::is_same_v<Values, ops::NoField>) {
        return values;
      } else {
        return Variable<std::decay_t<decltype(values[0])>>(f);
      }
    }();
    const auto y = tracked == Tracked::positions
                       ? record_with(moving, values)
                       : (tracked == Tracked::kernel_inputs
                              ? record_with(moving.with_supports(hv).with_masses(mv), values)
                              : record_with(moving.with_densities(rhov), fv));
    tape.backward(y, span(seed));
    const auto copy = [](auto g) {
      return std::vector<std::decay_t<decltype(g[0])>>(g.data(), g.data() + g.size());
    };
    using Scalars = std::vector<T>;
    std::vector<T> field_gradient; // the field's scalars, when tracked
    if constexpr (!std::is_same_v<Values, ops::NoField>) {
      if (tracked == Tracked::particles) {
        const auto g = tape.gradient(fv);
        const auto* first = reinterpret_cast<const T*>(g.data());
        field_gradient.assign(first, first + g.size() * sizeof(g[0]) / sizeof(T));
      }
    }
    return std::make_tuple(copy(Span<const Seed>(y.data(), y.size())), copy(tape.gradient(xv)),
                           tracked == Tracked::kernel_inputs ? copy(tape.gradient(hv)) : Scalars{},
                           tracked == Tracked::kernel_inputs ? copy(tape.gradient(mv)) : Scalars{},
                           tracked == Tracked::particles ? copy(tape.gradient(rhov)) : Scalars{},
                           field_gradient);
  };
  for (const auto tracked : {Tracked::kernel_inputs, Tracked::positions, Tracked::particles}) {
    for (const auto sums : {ReferenceSums::automatic, ReferenceSums::pair_slots}) {
      INFO("tracked " << int(tracked) << ", pair slots " << (sums == ReferenceSums::pair_slots));
      const auto blocks = run(kernels::Wendland4{}, tracked, sums);
      const auto pairs = run(PairByPairWendland4{}, tracked, sums);
      CHECK(same_bits(std::get<0>(blocks), std::get<0>(pairs)));
      CHECK(same_bits(std::get<1>(blocks), std::get<1>(pairs)));
      CHECK(same_bits(std::get<2>(blocks), std::get<2>(pairs)));
      CHECK(same_bits(std::get<3>(blocks), std::get<3>(pairs)));
      CHECK(same_bits(std::get<4>(blocks), std::get<4>(pairs)));
      CHECK(same_bits(std::get<5>(blocks), std::get<5>(pairs)));
    }
  }
}

template <class K>
using DensityOf = ops::Density<K>;
template <class K>
using ScatterDensityOf = ops::Density<K, SupportScheme::Scatter>;
template <class K>
using InterpolateOf = ops::Interpolate<K>;
template <class K>
using DifferenceOf = ops::Gradient<K, G::Difference>;
template <class K>
using NaiveOf = ops::Gradient<K, G::Naive>;
template <class K>
using MeanGradientOf = ops::Gradient<K, G::Difference, SupportScheme::KernelMeanSymmetric>;
template <class K>
using SymmetricOf = ops::Gradient<K, G::Symmetric, SupportScheme::PartialSymmetric>;
template <class K>
using PressureOf = solver::PressureForce<K>;
template <class K>
using ViscosityOf = solver::LaminarViscosity<K, 2, SupportScheme::MeanSymmetric>;
template <class K>
using LaplacianOf = ops::Laplacian<K>;
template <class K>
using DefaultLaplacianOf =
    ops::Laplacian<K, LaplacianScheme::Default, G::Symmetric, SupportScheme::KernelMeanSymmetric>;
template <class K>
using DivergenceOf = ops::Divergence<K, G::Difference, SupportScheme::MeanSymmetric>;
template <class K>
using PartialLaplacianOf =
    ops::Laplacian<K, LaplacianScheme::Brookshaw, G::Naive, SupportScheme::PartialSymmetric>;
template <class K>
using ScatterViscosityOf = solver::LaminarViscosity<K, 2, SupportScheme::Scatter>;

template <class K>
using ClumpingOf = solver::AntiClumpingGradient<K>;

template <int D, class T, SupportScheme S, class K = kernels::Wendland4>
void check_schemes(bool periodic) {
  const Cloud<D, T> c(periodic);
  check_blocks<ops::Density<K, S>>(c, ops::NoField{});
  check_blocks<ops::Gradient<K, G::Difference, S>>(c, span(c.f));
  check_jvp_blocks<ops::Density<K, S>, 1>(c, ops::NoField{});
  check_jvp_blocks<ops::Gradient<K, G::Difference, S>, 2>(c, span(c.f));
}

} // namespace

TEST_CASE("pair blocks: every operator form gives the bits of the pair-at-a-time loop",
          "[ops][blocks]") {
  for (const bool periodic : {true, false}) {
    INFO("periodic " << periodic);
    const Cloud<2, double> c(periodic);
    using K = kernels::Wendland4;
    const auto f = span(c.f);
    const auto v = span(c.v);
    check_blocks<ops::Density<K>>(c, ops::NoField{});
    check_blocks<ops::Interpolate<K>>(c, f);
    check_blocks<ops::Gradient<K, G::Difference>>(c, f);
    check_blocks<ops::Gradient<K, G::Naive>>(c, f);
    check_blocks<ops::Gradient<K, G::Symmetric>>(c, f);  // safe_divide on packs (ρ_5 = 0)
    check_blocks<ops::Gradient<K, G::Difference>>(c, v); // a vector field: lane by lane
    check_blocks<ops::Divergence<K, G::Difference>>(c, v);
    check_blocks<ops::Density<kernels::Wendland2>>(c, ops::NoField{});
    check_blocks<ops::Gradient<kernels::Wendland6, G::Summation>>(c, f);
    // The solver's lanewise terms (the pressure force's quotients as the Symmetric gradient's).
    check_blocks<solver::PressureForce<K>>(c, f);
    check_blocks<solver::PressureForce<K, solver::PressureForm::Averaged>>(c, f);
    check_blocks<solver::ConcentrationGradient<K>>(c, ops::NoField{});
    check_blocks<solver::ContinuityRate<K>>(c, v);   // a vector field: lane by lane
    check_blocks<solver::LaminarViscosity<K>>(c, v); // a gradient form, as the Laplacian's
    check_blocks<solver::LaminarViscosity<K, 2, SupportScheme::Gather, std::ratio<0>>>(c, v);
    // A whole term written for packs: the anti-clumping gradient, its field (Δx, R) with some
    // Δx past the support (W(Δx) = 0: the quotient's lane select) and some NaN (|Δx| is 0 then,
    // on packs as in the scalar test: the fuzzer's finding).
    std::vector<Vec<double, 2>> spacing(c.v.size());
    for (std::size_t i = 0; i < spacing.size(); ++i) {
      spacing[i] = {i % 17 == 0   ? 0.5
                    : i % 23 == 0 ? std::numeric_limits<double>::quiet_NaN()
                                  : 0.03 + 0.02 * std::sin(double(i)),
                    0.2};
    }
    check_blocks<solver::AntiClumpingGradient<K>>(c, span(spacing));
    // Split terms whose kernel parts are their own, written for packs: the dam break's
    // artificial viscosity (field (u, c)) and density diffusion (both forms).
    std::vector<Vec<double, 3>> velocity_sound(c.f.size());
    for (std::size_t i = 0; i < velocity_sound.size(); ++i) {
      velocity_sound[i] = {c.v[i][0], c.v[i][1], 10.0 + c.f[i]};
    }
    check_blocks<solver::ArtificialViscosity<K>>(c, span(velocity_sound));
    check_blocks<solver::DensityDiffusion<K>>(c, ops::NoField{});
    check_blocks<solver::DensityDiffusion<K, solver::DiffusionForm::Antuono>>(c, v);
    // Fused terms (combined lane by lane): a scalar, a vector and a matrix slot over one field.
    std::vector<Vec<double, 3>> packed(c.f.size());
    for (std::size_t i = 0; i < packed.size(); ++i) {
      packed[i] = {c.f[i], c.v[i][0], c.v[i][1]};
    }
    check_blocks<ops::Fused<ops::Slot<solver::PressureForce<K>, 0, 1>,
                            ops::Slot<solver::ContinuityRate<K>, 1, 2>,
                            ops::Slot<ops::Gradient<K, G::Difference>, 1, 2>,
                            ops::Slot<solver::ConcentrationGradient<K>, 0, 0>>>(c, span(packed));
    // Fused terms with other kernel parts, one whole pair term on packs: Ĝ, a gradient form,
    // the artificial viscosity's own kernel part, the diffusion's, and a whole term, over the
    // field (p, u, c, Δx, R) (a spacing past the support, a NaN spacing: the lane selects).
    std::vector<Vec<double, 6>> mixed(c.f.size());
    for (std::size_t i = 0; i < mixed.size(); ++i) {
      mixed[i] = {c.f[i], c.v[i][0], c.v[i][1], 10.0 + c.f[i], spacing[i][0], spacing[i][1]};
    }
    using Mixed = ops::Fused<ops::Slot<solver::PressureForce<K>, 0, 1>,
                             ops::Slot<solver::LaminarViscosity<K>, 1, 2>,
                             ops::Slot<solver::ArtificialViscosity<K>, 1, 3>,
                             ops::Slot<solver::DensityDiffusion<K>, 0, 0>,
                             ops::Slot<solver::AntiClumpingGradient<K>, 4, 2>>;
    static_assert(pairloop::PairPlan<Mixed, ops::Uncorrected>::term_on_packs);
    check_blocks<Mixed>(c, span(mixed));
    check_blocks<solver::AntiClumpingGradient<K, 3, SupportScheme::MeanSymmetric>>(c,
                                                                                   span(spacing));
    check_blocks<solver::AntiClumpingGradient<K, 4, SupportScheme::KernelMeanSymmetric>>(
        c, span(spacing));
    // The other polynomial kernels: Müller's (a cusp centre: k'(q)/q by its quotient), a user's.
    check_blocks<ops::Density<kernels::Poly6>>(c, ops::NoField{});
    check_blocks<ops::Gradient<kernels::Spiky, G::Difference>>(c, f);
    check_blocks<ops::Gradient<LucyKernel, G::Symmetric>>(c, f);
    check_blocks<ops::Laplacian<kernels::Spiky>>(c, f);
    // The Laplacian's gradient forms: the kernel part on packs, combined lane by lane.
    check_blocks<ops::Laplacian<K>>(c, f);
    check_blocks<ops::Laplacian<K, LaplacianScheme::Default, G::Symmetric>>(c, f);
    check_blocks<
        ops::Laplacian<K, LaplacianScheme::Brookshaw, G::Naive, SupportScheme::MeanSymmetric>>(c,
                                                                                               v);
  }
}

TEST_CASE("pair blocks: every support scheme, 2D and 3D, double and float", "[ops][blocks]") {
  for (const bool periodic : {true, false}) {
    INFO("periodic " << periodic);
    check_schemes<2, double, SupportScheme::Gather>(periodic);
    check_schemes<2, double, SupportScheme::Scatter>(periodic);
    check_schemes<2, double, SupportScheme::PartialSymmetric>(periodic);
    check_schemes<2, double, SupportScheme::SuperSymmetric>(periodic);
    check_schemes<3, double, SupportScheme::Gather>(periodic);
    check_schemes<3, double, SupportScheme::MeanSymmetric>(periodic);
    check_schemes<2, float, SupportScheme::Gather>(periodic);
    check_schemes<3, float, SupportScheme::Scatter>(periodic);
  }
}

TEST_CASE("pair blocks: position JVPs give the bits of dual numbers pair by pair",
          "[ops][blocks][jvp]") {
  for (const bool periodic : {true, false}) {
    INFO("periodic " << periodic);
    const Cloud<2, double> c(periodic);
    const auto f = span(c.f);
    const auto v = span(c.v);
    using K = kernels::Wendland4;
    check_jvp_blocks<ops::Density<K>, 1>(c, ops::NoField{});
    check_jvp_blocks<ops::Density<kernels::Wendland2>, 3>(c, ops::NoField{});
    check_jvp_blocks<ops::Interpolate<K>, 1>(c, f);
    check_jvp_blocks<ops::Gradient<kernels::Wendland2, G::Difference>, 1>(c, f);
    check_jvp_blocks<ops::Gradient<kernels::Wendland6, G::Symmetric>, 2>(c, f);
    check_jvp_blocks<ops::Gradient<kernels::Spiky, G::Difference>, 1>(c, f);
    check_jvp_blocks<ops::Density<LucyKernel>, 2>(c, ops::NoField{});
    check_jvp_blocks<ops::Laplacian<kernels::Poly6>, 1>(c, f);
    check_jvp_blocks<solver::PressureForce<K>, 2>(c, f);
    check_jvp_blocks<solver::LaminarViscosity<K>, 1>(c, v);
    check_jvp_blocks<ops::Divergence<K, G::Difference>, 1>(c, v);
    check_jvp_blocks<ops::Laplacian<K>, 1>(c, f);
    check_jvp_blocks<
        ops::Laplacian<K, LaplacianScheme::Default, G::Naive, SupportScheme::KernelMeanSymmetric>,
        2>(c, f);
  }
}

TEST_CASE("pair blocks: the reverse sweep's linearized kernels give the bits of pair by pair",
          "[ops][blocks][reverse]") {
  for (const bool periodic : {true, false}) {
    INFO("periodic " << periodic);
    const Cloud<2, double> c(periodic);
    const auto f = span(c.f);
    const auto v = span(c.v);
    const std::vector<double> scalar_seed(c.f.size(), 0.75);
    std::vector<Vec<double, 2>> vector_seed(c.f.size());
    for (std::size_t k = 0; k < vector_seed.size(); ++k) {
      vector_seed[k] = {std::sin(double(k)), 0.5 - 0.001 * double(k)};
    }
    const ops::Uncorrected none{};
    check_reverse_blocks<DensityOf>(c, ops::NoField{}, scalar_seed, none);
    check_reverse_blocks<ScatterDensityOf>(c, ops::NoField{}, scalar_seed, none);
    check_reverse_blocks<InterpolateOf>(c, f, scalar_seed, none);
    check_reverse_blocks<DifferenceOf>(c, f, vector_seed, none);
    check_reverse_blocks<MeanGradientOf>(c, f, vector_seed, none);
    check_reverse_blocks<SymmetricOf>(c, f, vector_seed, none);
    check_reverse_blocks<PressureOf>(c, f, vector_seed, none);
    check_reverse_blocks<ViscosityOf>(c, v, vector_seed, none);
    check_reverse_blocks<DivergenceOf>(c, v, scalar_seed, none);
    check_reverse_blocks<LaplacianOf>(c, f, scalar_seed, none);
    check_reverse_blocks<DefaultLaplacianOf>(c, v, vector_seed, none);
    // The gradient forms' supports on packs: the larger of h_i and h_j, and h_j.
    check_reverse_blocks<PartialLaplacianOf>(c, f, scalar_seed, none);
    check_reverse_blocks<ScatterViscosityOf>(c, v, vector_seed, none);
    // Gradients of a matrix field (their transposes map a matrix's adjoint onto its
    // directions, row-major).
    std::vector<Mat<double, 2, 2>> matrices(c.f.size());
    std::vector<Mat<Vec<double, 2>, 2, 2>> matrix_seed(c.f.size());
    for (std::size_t k = 0; k < matrices.size(); ++k) {
      matrices[k] = Mat<double, 2, 2>{{{c.f[k], c.v[k][0]}, {c.v[k][1], 0.5 * c.f[k]}}};
      for (int r = 0; r < 2; ++r) {
        for (int q = 0; q < 2; ++q) {
          matrix_seed[k](r, q) = {std::cos(double(k + r)), 0.25 * double(q) - 0.1};
        }
      }
    }
    check_reverse_blocks<NaiveOf>(c, span(matrices), matrix_seed, none);
    check_reverse_blocks<DifferenceOf>(c, span(matrices), matrix_seed, none);
    // A whole term written for packs (its reverse on packs with the particle inputs tracked); a
    // spacing past the support on some particles (W(Δx) = 0).
    std::vector<Vec<double, 2>> clumping(c.f.size());
    for (std::size_t k = 0; k < clumping.size(); ++k) {
      clumping[k] = {k % 7 == 3 ? 0.5 : 0.02 + 0.0001 * double(k % 11), 0.2 + 0.01 * double(k % 5)};
    }
    check_reverse_blocks<ClumpingOf>(c, span(clumping), vector_seed, none);
    // A corrected gradient: CRK's states (computed once) applied after the blocks' kernels.
    const exec::host ex;
    const auto s = c.p.view();
    const auto list = build_neighbor_list<SupportScheme::SuperSymmetric>(
        ex, s.search_points(), s.search_points(), c.domain);
    const auto crk = corrections::compute_crk_factors<kernels::Wendland4>(ex, s, c.domain, list);
    check_reverse_blocks<DifferenceOf>(c, f, vector_seed, ops::Corrections{crk.state()});
  }
}

#if SPHAD_HAS_PACKS
TEST_CASE("pair blocks: Dual over packs gives each lane the bits of Dual over scalars",
          "[ops][blocks][jvp]") {
  constexpr int L = simd::native_lanes<double>();
  using P = simd::Pack<double, L>;
  using PD = Dual<P, 2>;
  using D2 = Dual<double, 2>;
  using pairloop::lane_of;
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  const auto random_pack = [&] {
    double lanes[L];
    for (auto& v : lanes) {
      v = u(rng);
    }
    return simd::pack_of(lanes);
  };
  const auto random_dual = [&] {
    PD d;
    d.value = random_pack();
    d.tangent[0] = random_pack();
    d.tangent[1] = random_pack();
    return d;
  };
  const auto same = [](const D2& a, const D2& b) { return std::memcmp(&a, &b, sizeof(D2)) == 0; };
  for (int trial = 0; trial < 50; ++trial) {
    const PD a = random_dual(), b = random_dual();
    const P s = random_pack();
    for (int l = 0; l < L; ++l) {
      INFO("trial " << trial << " lane " << l);
      const D2 x = lane_of(a, l), y = lane_of(b, l);
      const double t = s[l];
      CHECK(same(lane_of(a + b, l), x + y));
      CHECK(same(lane_of(a - b, l), x - y));
      CHECK(same(lane_of(a * b, l), x * y));
      CHECK(same(lane_of(a / b, l), x / y));
      CHECK(same(lane_of(-a, l), -x));
      CHECK(same(lane_of(a + s, l), x + t));
      CHECK(same(lane_of(s + a, l), t + x));
      CHECK(same(lane_of(a - s, l), x - t));
      CHECK(same(lane_of(s - a, l), t - x));
      CHECK(same(lane_of(a * s, l), x * t));
      CHECK(same(lane_of(s * a, l), t * x));
      CHECK(same(lane_of(a / s, l), x / t));
      CHECK(same(lane_of(s / a, l), t / x));
      CHECK(same(lane_of(sqrt(a * a + s * s), l), sqrt(x * x + t * t)));
      PD c = a;
      c += b;
      D2 z = x;
      z += y;
      CHECK(same(lane_of(c, l), z));
    }
  }
}
#endif

namespace {
/// Op's reverse pass for a tracked matrix field (its values' gradient) against its JVP in the
/// values, by the dot-product identity ⟨ȳ, J u⟩ = ⟨Jᵀ ȳ, u⟩.
template <class Op>
void check_matrix_field_transpose(const Cloud<2, double>& c) {
  using M = Mat<double, 2, 2>;
  const exec::host ex;
  const auto s = c.p.view();
  const auto list =
      build_neighbor_list<Op::support>(ex, s.search_points(), s.search_points(), c.domain);
  const std::size_t n = c.f.size();
  std::vector<M> values(n), directions(n);
  std::vector<Mat<Vec<double, 2>, 2, 2>> ybar(n);
  for (std::size_t k = 0; k < n; ++k) {
    for (int r = 0; r < 2; ++r) {
      for (int q = 0; q < 2; ++q) {
        values[k](r, q) = std::sin(1.3 * double(k) + r - q);
        directions[k](r, q) = std::cos(0.7 * double(k) + 2 * r + q);
        ybar[k](r, q) = {std::sin(0.3 * double(k + r)), 0.2 * double(q) - 0.4};
      }
    }
  }
  const ApplyOptions<double> options{OperationDirection::FluidToFluid};
  Tape<exec::host> tape(ex);
  const Variable<M> tracked(values);
  const auto y = record<Op>(tape, s, s, c.domain, list, tracked, tracked, options);
  tape.backward(y, span(ybar));
  const auto gradient = tape.gradient(tracked);
  double reverse = 0;
  for (std::size_t k = 0; k < n; ++k) {
    reverse += pairloop::leaf_dot(gradient[std::int64_t(k)], directions[k]);
  }
  const auto moving = with_tangents<1>(span(values), span(directions));
  const auto jvp = apply<Op>(ex, s, s, c.domain, list, moving, moving, options);
  double forward = 0;
  for (std::size_t k = 0; k < n; ++k) {
    forward += pairloop::leaf_dot(ybar[k], pairloop::tangent_part(jvp[k], 0));
  }
  CHECK(reverse == Approx(forward).epsilon(1e-12));
}
} // namespace

TEST_CASE("pair blocks: a matrix field's gradient in reverse is the transpose of its JVP",
          "[ops][blocks][reverse]") {
  const Cloud<2, double> c(true);
  check_matrix_field_transpose<ops::Gradient<kernels::Wendland4, G::Naive>>(c);
  check_matrix_field_transpose<ops::Gradient<kernels::Wendland4, G::Difference>>(c);
  check_matrix_field_transpose<ops::Gradient<kernels::Wendland4, G::Summation>>(c);
  check_matrix_field_transpose<ops::Gradient<kernels::Wendland4, G::Symmetric>>(c);
}
