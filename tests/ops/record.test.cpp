// SPDX-License-Identifier: MIT
// Reverse mode through `Tape` and `record` (issue #8): what the API promises beyond the
// derivative matrix of derivative_matrix.hpp — the primal equals apply bitwise, a variable in
// two roles gets the sum of its role gradients once, sweeps are reentrant, accumulate on
// request and are bitwise reproducible, writes after recording are detected, seeds are copied,
// chains differentiate end to end, kinds and directions filter adjoints, empty sets, coincident
// and isolated particles, and the error paths.
#include "ops/derivative_matrix.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

using namespace sphad;
using test::view_of;

namespace {

using Kernel = kernels::Wendland4;
using V2 = Vec<double, 2>;
using Host = Tape<exec::host>;

template <class E>
std::vector<E> to_vector(Span<const E> s) {
  return std::vector<E>(s.data(), s.data() + s.size());
}

template <class E>
std::vector<double> flat(Span<const E> s) {
  std::vector<double> out;
  for (std::int64_t i = 0; i < s.size(); ++i) {
    test::append_scalars(s[i], out);
  }
  return out;
}

/// max |a − b| / max |b|.
double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0, scale = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    worst = std::max(worst, std::abs(a[k] - b[k]));
    scale = std::max(scale, std::abs(b[k]));
  }
  return scale > 0 ? worst / scale : worst;
}

/// Mutable copies of a 2D input set's arrays, tracked.
struct Inputs2 {
  const test::JVPInputs<2>& in;
  test::Tracked<V2> x{in.x.value};
  test::Tracked<double> h{in.h.value}, m{in.m.value}, rho{in.rho.value}, f{in.f.value};
  std::int64_t n = std::int64_t(in.x.value.size());

  explicit Inputs2(const test::JVPInputs<2>& inputs) : in(inputs) {}
  ParticleSet<2, double> plain() const {
    return {view_of(x.values),
            view_of(h.values),
            view_of(m.values),
            {in.kinds.data(), n},
            view_of(rho.values)};
  }
  auto tracked() const {
    return plain()
        .with_positions(x.variable)
        .with_supports(h.variable)
        .with_masses(m.variable)
        .with_densities(rho.variable);
  }
};

/// Σ_i w_i · y_i over every scalar, and its adjoint w.
struct LinearLoss {
  std::vector<double> weights;
  template <class E>
  std::vector<E> seed(std::int64_t n) const {
    std::vector<E> out(static_cast<std::size_t>(n));
    const double* next = weights.data();
    for (auto& e : out) {
      test::assign_scalars(e, next);
    }
    return out;
  }
  template <class E>
  double operator()(Span<const E> y) const {
    const auto values = flat(y);
    double sum = 0;
    for (std::size_t k = 0; k < values.size(); ++k) {
      sum += weights[k] * values[k];
    }
    return sum;
  }
};

LinearLoss random_loss(std::size_t scalars, unsigned seed = 5) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  LinearLoss loss{std::vector<double>(scalars)};
  for (auto& w : loss.weights) {
    w = u(rng);
  }
  return loss;
}

using Gradient = ops::Gradient<Kernel, GradientScheme::Symmetric>;

} // namespace

TEST_CASE("record: the output equals apply bitwise and plain inputs record nothing",
          "[record][vjp]") {
  const test::JVPInputs<2> in(false);
  const Inputs2 inputs(in);
  Host tape;
  const auto y = record<Gradient>(tape, inputs.tracked(), inputs.tracked(), in.domain, in.list,
                                  inputs.f.variable, inputs.f.variable);
  const auto expected = apply<Gradient>(exec::host{}, inputs.plain(), inputs.plain(), in.domain,
                                        in.list, view_of(in.f.value), view_of(in.f.value));
  CHECK(flat(y.span()) == flat(Span<const Vec<double, 2>>{expected.data(), expected.size()}));
  CHECK(tape.size() == 1);
  const auto untracked = record<Gradient>(tape, inputs.plain(), inputs.plain(), in.domain, in.list,
                                          view_of(in.f.value), view_of(in.f.value));
  CHECK(flat(untracked.span()) == flat(y.span()));
  CHECK(tape.size() == 1);
}

TEST_CASE("record: a variable in both roles gets the sum of its role gradients, once",
          "[record][vjp][aliasing]") {
  const test::JVPInputs<2> in(false);
  const Inputs2 shared(in), queries(in), references(in);
  const test::Tracked<double> omega(in.omega.value), omega_q(in.omega.value),
      omega_r(in.omega.value);
  const auto loss = random_loss(2 * in.x.value.size());
  const auto seed = loss.seed<V2>(shared.n);
  const Span<const V2> seed_view{seed.data(), shared.n};

  Host one;
  const auto y =
      record<Gradient>(one, shared.tracked(), shared.tracked(), in.domain, in.list,
                       shared.f.variable, shared.f.variable, ApplyOptions<double>{},
                       ops::Corrections{ops::NoCRK{}, ops::NoRenormalization{},
                                        ops::GradH<double, Variable<double>, Variable<double>>{
                                            omega.variable, omega.variable}});
  one.backward(y, seed_view);

  Host two;
  const auto y2 =
      record<Gradient>(two, queries.tracked(), references.tracked(), in.domain, in.list,
                       queries.f.variable, references.f.variable, ApplyOptions<double>{},
                       ops::Corrections{ops::NoCRK{}, ops::NoRenormalization{},
                                        ops::GradH<double, Variable<double>, Variable<double>>{
                                            omega_q.variable, omega_r.variable}});
  two.backward(y2, seed_view);
  CHECK(flat(y.span()) == flat(y2.span()));

  const auto sum_of_roles = [](const auto& a, const auto& b) {
    auto fa = flat(a);
    const auto fb = flat(b);
    for (std::size_t k = 0; k < fa.size(); ++k) {
      fa[k] += fb[k];
    }
    return fa;
  };
  const auto check = [&](const auto& both, const auto& q, const auto& r) {
    const auto expected = sum_of_roles(two.gradient(q), two.gradient(r));
    CHECK(relative_difference(flat(one.gradient(both)), expected) <= 1e-14);
  };
  check(shared.x.variable, queries.x.variable, references.x.variable);
  check(shared.h.variable, queries.h.variable, references.h.variable);
  check(shared.rho.variable, queries.rho.variable, references.rho.variable);
  check(shared.f.variable, queries.f.variable, references.f.variable);
  check(omega.variable, omega_q.variable, omega_r.variable);
  // Masses enter on the reference side only; the query copy gets exactly zero.
  CHECK(flat(one.gradient(shared.m.variable)) == flat(two.gradient(references.m.variable)));
  for (const double g : flat(two.gradient(queries.m.variable))) {
    CHECK(g == 0.0);
  }
}

TEST_CASE("record: sweeps are reentrant, accumulate on request and are bitwise reproducible",
          "[record][vjp]") {
  const test::JVPInputs<2> in(false, 3);
  const Inputs2 inputs(in);
  const auto loss = random_loss(2 * in.x.value.size());
  const auto seed = loss.seed<V2>(inputs.n);
  const Span<const V2> seed_view{seed.data(), inputs.n};
  const auto run = [&](Host& tape) {
    const auto y = record<Gradient>(tape, inputs.tracked(), inputs.tracked(), in.domain, in.list,
                                    inputs.f.variable, inputs.f.variable);
    tape.backward(y, seed_view);
    return y;
  };
  Host tape;
  const auto y = run(tape);
  const auto first = flat(tape.gradient(inputs.x.variable));
  const auto first_f = flat(tape.gradient(inputs.f.variable));
  tape.backward(y, seed_view);
  CHECK(flat(tape.gradient(inputs.x.variable)) == first);
  CHECK(flat(tape.gradient(inputs.f.variable)) == first_f);

  SECTION("accumulate adds to what the variables hold; intermediate adjoints restart") {
    tape.backward(y, seed_view, BackwardOptions{true});
    const auto twice = flat(tape.gradient(inputs.x.variable));
    for (std::size_t k = 0; k < first.size(); ++k) { // g + (p + q) against 2 (p + q)
      CHECK(twice[k] == Approx(2 * first[k]).epsilon(1e-14));
    }
    CHECK(flat(tape.gradient(y)) == flat(seed_view));
  }
  SECTION("a second tape over the same inputs gives the same bits") {
    Host other;
    run(other);
    CHECK(flat(other.gradient(inputs.x.variable)) == first);
    CHECK(flat(other.gradient(inputs.h.variable)) == flat(tape.gradient(inputs.h.variable)));
  }
  SECTION("a cleared tape records the next iteration like a fresh one") {
    tape.clear();
    CHECK(tape.size() == 0);
    CHECK_THROWS_AS(tape.gradient(inputs.x.variable), InvalidArgument);
    run(tape);
    CHECK(flat(tape.gradient(inputs.x.variable)) == first);
  }
  SECTION("the seed is copied: changing it afterwards changes nothing") {
    auto own = seed;
    tape.backward(y, Span<const V2>{own.data(), inputs.n});
    own[0] = V2{1e9, 1e9};
    CHECK(flat(tape.gradient(inputs.x.variable)) == first);
    CHECK(flat(tape.gradient(y)) == flat(seed_view));
  }
}

/// 4 900 particles in the periodic unit square with ~64 neighbours each (310 000 pairs: the
/// host sweep runs 4 chunks of rows), every seventh a boundary particle.
struct ChunkedCase {
  static constexpr int side = 70;
  static constexpr std::int64_t n = side * side;
  std::vector<V2> x, ux;
  std::vector<double> h, m, uh, um;
  std::vector<std::int32_t> kinds;
  Domain<2, double> domain{V2{0, 0}, V2{1, 1}, {true, true}};
  NeighborList<exec::host> list;
  Variable<V2> xv;
  Variable<double> hv, mv;
  ChunkedCase() {
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> jitter(-0.3, 0.3);
    for (int a = 0; a < side; ++a) {
      for (int b = 0; b < side; ++b) {
        x.push_back(V2{(a + jitter(rng)) / side, (b + jitter(rng)) / side});
        h.push_back((4.5 + jitter(rng)) / side);
        m.push_back(1.0 + jitter(rng));
        kinds.push_back(std::int32_t(x.size() % 7 == 0));
        ux.push_back(V2{jitter(rng), jitter(rng)});
        uh.push_back(jitter(rng) / side);
        um.push_back(jitter(rng));
      }
    }
    list = build_neighbor_list<SupportScheme::SuperSymmetric>(exec::host{}, set().search_points(),
                                                              set().search_points(), domain);
    xv = Variable<V2>(x.data(), n);
    hv = Variable<double>(h.data(), n);
    mv = Variable<double>(m.data(), n);
  }
  ParticleSet<2, double> set() const {
    return {view_of(x), view_of(h), view_of(m), view_of(kinds)};
  }
  /// The set with positions, supports and masses tracked.
  auto tracked() const { return set().with_positions(xv).with_supports(hv).with_masses(mv); }
};

/// Both ways of summing the references' adjoints (`ReferenceSums`): the host's default chunks
/// of rows, and the per-pair slots gathered over the entries grouped by reference (what CUDA
/// runs; on the host only on request).
constexpr ReferenceSums both_sums[] = {ReferenceSums::automatic, ReferenceSums::pair_slots};

/// The gradients of `variables` on `tape`, flattened one after another.
template <class... V>
std::vector<double> flat_gradients(const Host& tape, const V&... variables) {
  std::vector<double> out;
  const auto append = [&](const auto& g) { out.insert(out.end(), g.begin(), g.end()); };
  (append(flat(tape.gradient(variables))), ...);
  return out;
}

/// Every entry of b within 1e-12 × (a's largest magnitude) of a's: the same sums in two
/// orders.
void check_agree(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double scale = 0;
  for (const double v : a) {
    scale = std::max(scale, std::abs(v));
  }
  REQUIRE(scale > 0);
  for (std::size_t k = 0; k < a.size(); ++k) {
    CHECK(std::abs(a[k] - b[k]) <= 1e-12 * scale);
  }
}

#if SPHAD_HAS_OPENMP
TEST_CASE("record: one thread or three give the same gradient bits (no atomics), with either "
          "reference sum",
          "[record][vjp]") {
  const ChunkedCase c;
  const auto n = c.n;
  REQUIRE(c.list.num_pairs > 4 * 65536);
  const auto tracked = c.tracked();
  const auto seed = random_loss(std::size_t(n)).seed<double>(n);
  const auto gradients = [&](ReferenceSums sums) {
    Host tape(exec::host{}, TapeOptions{sums});
    const auto rho = record<ops::Density<Kernel, SupportScheme::MeanSymmetric>>(
        tape, tracked, tracked, c.domain, c.list);
    tape.backward(rho, Span<const double>{seed.data(), n});
    return flat_gradients(tape, c.xv, c.hv);
  };
  std::vector<std::vector<double>> results;
  for (const auto sums : both_sums) {
    INFO("reference sums " << int(sums));
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const auto one = gradients(sums);
    omp_set_num_threads(3);
    const auto three = gradients(sums);
    omp_set_num_threads(threads);
    CHECK(one == three);
    CHECK(std::any_of(one.begin(), one.end(), [](double g) { return g != 0; }));
    results.push_back(one);
  }
  check_agree(results[0], results[1]);
}
#endif

TEST_CASE("record: both reference sums (chunks of rows, per-pair slots) match the forward mode "
          "over many chunks, with kinds filtering",
          "[record][vjp][kinds]") {
  const ChunkedCase c;
  const auto n = c.n;
  REQUIRE(c.list.num_pairs > 4 * 65536);
  const auto tracked = c.tracked();
  const auto loss = random_loss(std::size_t(n));
  const auto seed = loss.seed<double>(n);
  using D = ops::Density<Kernel, SupportScheme::Scatter>; // reads h_j: a reference-side support
  for (const auto sums : both_sums) {
    for (const auto direction : {OperationDirection::AllToAll, OperationDirection::AllToFluid,
                                 OperationDirection::BoundaryToFluid}) {
      const ApplyOptions<double> options{direction};
      Host tape(exec::host{}, TapeOptions{sums});
      const auto rho = record<D>(tape, tracked, tracked, c.domain, c.list, options);
      tape.backward(rho, Span<const double>{seed.data(), n});
      const auto plain = c.set();
      const auto set = plain.with_positions(with_tangents(view_of(c.x), view_of(c.ux)))
                           .with_supports(with_tangents(view_of(c.h), view_of(c.uh)))
                           .with_masses(with_tangents(view_of(c.m), view_of(c.um)));
      const ops::NoField none[1] = {};
      const Span<const ops::NoField> no_values{none, 0};
      const auto out =
          jvp<D>(exec::host{}, set, set, c.domain, c.list, no_values, no_values, options);
      const double forward = loss(Span<const double>{out.tangents.data(), n});
      const double reverse = test::dot_scalars(tape.gradient(c.xv), c.ux) +
                             test::dot_scalars(tape.gradient(c.hv), c.uh) +
                             test::dot_scalars(tape.gradient(c.mv), c.um);
      INFO("reference sums " << int(sums) << ", direction " << int(direction));
      CHECK(reverse == Approx(forward).epsilon(1e-12));
    }
  }
}

TEST_CASE("record: per-pair slots give a field operator's gradients (every input tracked, "
          "corrections on) as the chunked sums do",
          "[record][vjp]") {
  const ChunkedCase c;
  const auto n = c.n;
  const auto count = std::size_t(n);
  std::vector<double> rho(count), f(count);
  for (std::int64_t i = 0; i < n; ++i) {
    rho[std::size_t(i)] = 1.0 + 0.1 * std::sin(double(i));
    f[std::size_t(i)] = c.x[std::size_t(i)][0] * c.x[std::size_t(i)][1] + std::cos(double(i));
  }
  const Variable<double> rhov(rho.data(), n), fv(f.data(), n);
  const auto tracked = c.tracked().with_densities(rhov);
  const auto seed = random_loss(std::size_t(2 * n)).seed<V2>(n);
  using G = ops::Gradient<Kernel, GradientScheme::Difference>;
  const auto crk =
      corrections::compute_crk_factors<Kernel>(exec::host{}, c.set(), c.domain, c.list);
  const ops::Corrections corrections{crk.state()};
  std::vector<std::vector<double>> results;
  std::vector<std::int64_t> bytes;
  for (const auto sums : both_sums) {
    Host tape(exec::host{}, TapeOptions{sums});
    const auto g = record<G>(tape, tracked, tracked, c.domain, c.list, fv, fv,
                             ApplyOptions<double>{}, corrections);
    bytes.push_back(tape.bytes());
    tape.backward(g, Span<const V2>{seed.data(), n});
    results.push_back(flat_gradients(tape, c.xv, c.hv, c.mv, rhov, fv));
  }
  check_agree(results[0], results[1]);
  // Only the per-pair slots need the entries grouped by reference (8 bytes per pair).
  CHECK(bytes[1] - bytes[0] >= 8 * c.list.num_pairs);
}

TEST_CASE("record: writing a recorded variable makes backward throw before any work",
          "[record][vjp][errors]") {
  const test::JVPInputs<2> in(false);
  const Inputs2 inputs(in);
  const auto seed = random_loss(2 * in.x.value.size()).seed<V2>(inputs.n);
  const Span<const V2> seed_view{seed.data(), inputs.n};
  Host tape;
  const auto y = record<Gradient>(tape, inputs.tracked(), inputs.tracked(), in.domain, in.list,
                                  inputs.f.variable, inputs.f.variable);
  tape.backward(y, seed_view);
  const auto before = flat(tape.gradient(inputs.x.variable));
  SECTION("an input") {
    inputs.f.variable.write()[0] += 1;
    CHECK_THROWS_WITH(tape.backward(y, seed_view),
                      Catch::Matchers::Contains("`query_values`") &&
                          Catch::Matchers::Contains("was written after it was recorded"));
  }
  SECTION("the output") {
    y.write();
    CHECK_THROWS_WITH(tape.backward(y, seed_view), Catch::Matchers::Contains("`output`"));
  }
  CHECK(flat(tape.gradient(inputs.x.variable)) == before);
}

TEST_CASE("record: bad calls throw before anything is recorded", "[record][vjp][errors]") {
  const test::JVPInputs<2> in(false);
  const Inputs2 inputs(in);
  Host tape;
  const auto y = record<Gradient>(tape, inputs.tracked(), inputs.tracked(), in.domain, in.list,
                                  inputs.f.variable, inputs.f.variable);
  const auto bytes = tape.bytes();
  std::vector<double> short_values(in.f.value.begin(), in.f.value.end() - 1);
  const test::Tracked<double> bad(short_values);
  CHECK_THROWS_WITH(record<Gradient>(tape, inputs.tracked(), inputs.tracked(), in.domain, in.list,
                                     bad.variable, bad.variable),
                    Catch::Matchers::Contains("`query_values`"));
  CHECK(tape.size() == 1);
  CHECK(tape.bytes() == bytes);

  const std::vector<V2> seed(std::size_t(inputs.n - 1));
  CHECK_THROWS_WITH(tape.backward(y, Span<const V2>{seed.data(), inputs.n - 1}),
                    Catch::Matchers::Contains("`seed`"));
  const test::Tracked<double> never(in.f.value);
  CHECK_THROWS_WITH(tape.gradient(never.variable), Catch::Matchers::Contains("`v`"));
}

TEST_CASE("record: Density -> Gradient -> loss backpropagates end to end", "[record][vjp][chain]") {
  for (const bool periodic : {false, true}) {
    const test::JVPInputs<2> in(periodic);
    const auto n = std::int64_t(in.x.value.size());
    const auto loss = random_loss(std::size_t(4 * n), 9);
    using Density = ops::Density<Kernel, SupportScheme::SuperSymmetric>;
    using Laplacian = ops::Laplacian<Kernel, LaplacianScheme::Brookshaw, GradientScheme::Symmetric>;
    // L = w_ρ·ρ + w_∇·∇f + w_Δ·Δf with ρ = Density(x, h, m) feeding both operators' densities.
    const auto chain = [&](const auto& x, const auto& h, const auto& m, const auto& f) {
      const ParticleSet<2, double> set{view_of(x), view_of(h), view_of(m), {in.kinds.data(), n}};
      const auto rho = apply<Density>(exec::host{}, set, set, in.domain, in.list);
      const auto with_rho = set.with_densities(Span<const double>{rho.data(), n});
      const auto g = apply<Gradient>(exec::host{}, with_rho, with_rho, in.domain, in.list,
                                     view_of(f), view_of(f));
      const auto l = apply<Laplacian>(exec::host{}, with_rho, with_rho, in.domain, in.list,
                                      view_of(f), view_of(f));
      std::vector<double> all;
      for (std::int64_t i = 0; i < n; ++i) {
        all.push_back(rho[i]);
        test::append_scalars(g[i], all);
        all.push_back(l[i]);
      }
      double sum = 0, magnitude = 0;
      for (std::size_t k = 0; k < all.size(); ++k) {
        sum += loss.weights[k] * all[k];
        magnitude += std::abs(loss.weights[k] * all[k]);
      }
      return std::make_pair(sum, magnitude);
    };
    const Inputs2 inputs(in);
    Host tape;
    const auto set = inputs.tracked();
    const auto rho = record<Density>(tape, set, set, in.domain, in.list);
    const auto with_rho = set.with_densities(rho);
    const auto g = record<Gradient>(tape, with_rho, with_rho, in.domain, in.list, inputs.f.variable,
                                    inputs.f.variable);
    const auto l = record<Laplacian>(tape, with_rho, with_rho, in.domain, in.list,
                                     inputs.f.variable, inputs.f.variable);
    std::vector<double> seed_rho(static_cast<std::size_t>(n)), seed_l(seed_rho);
    std::vector<V2> seed_g(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      seed_rho[std::size_t(i)] = loss.weights[std::size_t(4 * i)];
      seed_g[std::size_t(i)] =
          V2{loss.weights[std::size_t(4 * i + 1)], loss.weights[std::size_t(4 * i + 2)]};
      seed_l[std::size_t(i)] = loss.weights[std::size_t(4 * i + 3)];
    }
    tape.backward(BackwardOptions{}, Seed<double>{rho, {seed_rho.data(), n}},
                  Seed<V2>{g, {seed_g.data(), n}}, Seed<double>{l, {seed_l.data(), n}});
    CHECK(tape.size() == 3);
    // Directional central differences of the whole chain along each input's tangent.
    constexpr double step = 1e-6;
    const auto along = [&](auto which) {
      const auto at = [&](double s) {
        auto x = in.x.value;
        auto h = in.h.value;
        auto m = in.m.value;
        auto f = in.f.value;
        which(x, h, m, f, s);
        return chain(x, h, m, f).first;
      };
      return (at(step) - at(-step)) / (2 * step);
    };
    const auto move = [](auto& values, const auto& tangent, double s) {
      for (std::size_t i = 0; i < values.size(); ++i) {
        values[i] = values[i] + tangent[i] * s;
      }
    };
    const auto dot = [](const auto& g_, const auto& u) { return test::dot_scalars(g_, u); };
    // Central differences of a sum of terms of total size Σ|w y| lose ~1e-16 Σ|w y| / step to
    // rounding.
    const double rounding =
        1e-15 * chain(in.x.value, in.h.value, in.m.value, in.f.value).second / step;
    INFO("FD rounding margin " << rounding);
    const double fd_x =
        along([&](auto& x, auto&, auto&, auto&, double s) { move(x, in.x.tangent, s); });
    const double fd_h =
        along([&](auto&, auto& h, auto&, auto&, double s) { move(h, in.h.tangent, s); });
    const double fd_m =
        along([&](auto&, auto&, auto& m, auto&, double s) { move(m, in.m.tangent, s); });
    const double fd_f =
        along([&](auto&, auto&, auto&, auto& f, double s) { move(f, in.f.tangent, s); });
    CHECK(dot(tape.gradient(inputs.x.variable), in.x.tangent) ==
          Approx(fd_x).epsilon(1e-6).margin(rounding));
    CHECK(dot(tape.gradient(inputs.h.variable), in.h.tangent) ==
          Approx(fd_h).epsilon(1e-6).margin(rounding));
    CHECK(dot(tape.gradient(inputs.m.variable), in.m.tangent) ==
          Approx(fd_m).epsilon(1e-6).margin(rounding));
    CHECK(dot(tape.gradient(inputs.f.variable), in.f.tangent) ==
          Approx(fd_f).epsilon(1e-6).margin(rounding));
    // The dot-product test through the whole chain: the same direction by forward mode, ρ's
    // tangent carried into both operators.
    const auto tangent_set =
        inputs.plain()
            .with_positions(with_tangents(view_of(in.x.value), view_of(in.x.tangent)))
            .with_supports(with_tangents(view_of(in.h.value), view_of(in.h.tangent)))
            .with_masses(with_tangents(view_of(in.m.value), view_of(in.m.tangent)));
    const auto rho_jvp = jvp<Density>(exec::host{}, tangent_set, tangent_set, in.domain, in.list);
    const auto rho_view = with_tangents(Span<const double>{rho_jvp.primal.data(), n},
                                        Span<const double>{rho_jvp.tangents.data(), n});
    const auto f_view = with_tangents(view_of(in.f.value), view_of(in.f.tangent));
    const auto with_rho_jvp = tangent_set.with_densities(rho_view);
    const auto g_jvp =
        jvp<Gradient>(exec::host{}, with_rho_jvp, with_rho_jvp, in.domain, in.list, f_view, f_view);
    const auto l_jvp = jvp<Laplacian>(exec::host{}, with_rho_jvp, with_rho_jvp, in.domain, in.list,
                                      f_view, f_view);
    double forward = 0, scale = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const double terms[] = {seed_rho[std::size_t(i)] * rho_jvp.tangents[i],
                              seed_g[std::size_t(i)][0] * g_jvp.tangents[i][0],
                              seed_g[std::size_t(i)][1] * g_jvp.tangents[i][1],
                              seed_l[std::size_t(i)] * l_jvp.tangents[i]};
      for (const double t : terms) {
        forward += t;
        scale += std::abs(t);
      }
    }
    const double reverse = dot(tape.gradient(inputs.x.variable), in.x.tangent) +
                           dot(tape.gradient(inputs.h.variable), in.h.tangent) +
                           dot(tape.gradient(inputs.m.variable), in.m.tangent) +
                           dot(tape.gradient(inputs.f.variable), in.f.tangent);
    CHECK(std::abs(reverse - forward) <= 1e-12 * scale);
    // The densities the set was built with are replaced by ρ: their gradient is exactly 0.
    for (const double v : flat(tape.gradient(inputs.rho.variable))) {
      CHECK(v == 0.0);
    }
  }
}

TEST_CASE("record: kinds and directions filter adjoints as they filter the primal",
          "[record][vjp][kinds]") {
  const test::JVPInputs<2> in(false, 13);
  const Inputs2 inputs(in);
  const auto n = inputs.n;
  const auto loss = random_loss(std::size_t(2 * n));
  const auto seed = loss.seed<V2>(n);
  for (const auto direction : {OperationDirection::FluidToFluid, OperationDirection::AllToFluid,
                               OperationDirection::BoundaryToAll}) {
    const ApplyOptions<double> options{direction};
    Host tape;
    const auto y = record<Gradient>(tape, inputs.tracked(), inputs.tracked(), in.domain, in.list,
                                    inputs.f.variable, inputs.f.variable, options);
    tape.backward(y, Span<const V2>{seed.data(), n});
    // ⟨Jᵀȳ, u⟩ against the forward mode with the same filter.
    const auto set =
        inputs.plain()
            .with_positions(with_tangents(view_of(in.x.value), view_of(in.x.tangent)))
            .with_supports(with_tangents(view_of(in.h.value), view_of(in.h.tangent)))
            .with_masses(with_tangents(view_of(in.m.value), view_of(in.m.tangent)))
            .with_densities(with_tangents(view_of(in.rho.value), view_of(in.rho.tangent)));
    const auto values = with_tangents(view_of(in.f.value), view_of(in.f.tangent));
    const auto jvp_out =
        jvp<Gradient>(exec::host{}, set, set, in.domain, in.list, values, values, options);
    const double forward = loss(Span<const V2>{jvp_out.tangents.data(), jvp_out.tangents.size()});
    const double reverse = test::dot_scalars(tape.gradient(inputs.x.variable), in.x.tangent) +
                           test::dot_scalars(tape.gradient(inputs.h.variable), in.h.tangent) +
                           test::dot_scalars(tape.gradient(inputs.m.variable), in.m.tangent) +
                           test::dot_scalars(tape.gradient(inputs.rho.variable), in.rho.tangent) +
                           test::dot_scalars(tape.gradient(inputs.f.variable), in.f.tangent);
    CHECK(reverse == Approx(forward).epsilon(1e-12));
    // A particle the filter drops on both sides gets exactly zero.
    const KindFilter filter = kind_filter(direction);
    const auto gx = tape.gradient(inputs.x.variable);
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int32_t kind = in.kinds[std::size_t(i)];
      if (!filter.accepts_query(kind) && !filter.accepts_reference(kind)) {
        CHECK(gx[i][0] == 0.0);
        CHECK(gx[i][1] == 0.0);
      }
    }
  }
}

TEST_CASE("record: empty sets give empty outputs and zero gradients", "[record][vjp][empty]") {
  const test::JVPInputs<2> in(false);
  const Inputs2 inputs(in);
  const auto n = inputs.n;
  using Density = ops::Density<Kernel>;
  const std::vector<V2> no_x;
  const std::vector<double> no_scalars;
  const std::vector<std::int32_t> no_kinds;
  const ParticleSet<2, double> empty{view_of(no_x), view_of(no_scalars), view_of(no_scalars),
                                     view_of(no_kinds)};
  SECTION("no queries") {
    const auto list = build_neighbor_list<SupportScheme::Gather>(
        exec::host{}, empty.search_points(), inputs.plain().search_points(), in.domain);
    Host tape;
    const auto y = record<Density>(tape, empty, inputs.tracked(), in.domain, list);
    CHECK(y.size() == 0);
    tape.backward(y, Span<const double>{});
    CHECK(tape.gradient(inputs.x.variable).size() == n);
    for (const double g : flat(tape.gradient(inputs.x.variable))) {
      CHECK(g == 0.0);
    }
  }
  SECTION("no references") {
    const auto list = build_neighbor_list<SupportScheme::Gather>(
        exec::host{}, inputs.plain().search_points(), empty.search_points(), in.domain);
    Host tape;
    const auto y = record<Density>(tape, inputs.tracked(), empty, in.domain, list);
    for (const double v : flat(y.span())) {
      CHECK(v == 0.0);
    }
    const std::vector<double> seed(std::size_t(n), 1.0);
    tape.backward(y, Span<const double>{seed.data(), n});
    for (const double g : flat(tape.gradient(inputs.x.variable))) {
      CHECK(g == 0.0);
    }
  }
}

TEST_CASE("record: a support the scheme never reads gets a zero gradient", "[record][vjp]") {
  const test::JVPInputs<2> in(false);
  const Inputs2 inputs(in);
  const auto n = inputs.n;
  const auto plain = inputs.plain();
  const auto supports = plain.with_supports(inputs.h.variable);
  const std::vector<double> seed(std::size_t(n), 1.0);
  const auto check = [&](auto density, const auto& queries, const auto& references) {
    Host tape;
    const auto y = record<decltype(density)>(tape, queries, references, in.domain, in.list);
    CHECK(tape.size() == 1); // recorded although the support is no direction
    tape.backward(y, Span<const double>{seed.data(), n});
    REQUIRE(tape.gradient(inputs.h.variable).size() == n);
    for (const double g : flat(tape.gradient(inputs.h.variable))) {
      CHECK(g == 0.0);
    }
  };
  check(ops::Density<Kernel, SupportScheme::Gather>{}, plain, supports);  // h_j
  check(ops::Density<Kernel, SupportScheme::Scatter>{}, supports, plain); // h_i
}

TEST_CASE("record: coincident distinct particles and an isolated one have finite, correct "
          "gradients",
          "[record][vjp][nan]") {
  // Particles 0 and 1 coincide (distinct particles, r = 0); particle 4 is far from all.
  std::vector<V2> x{{0.0, 0.0}, {0.0, 0.0}, {0.1, 0.05}, {-0.05, 0.1}, {5.0, 5.0}};
  std::vector<double> h(5, 0.3), m(5, 0.01), f{1.0, 0.5, -0.3, 0.2, 0.7};
  const std::vector<std::int32_t> kinds(5, 0);
  const Domain<2, double> domain{V2::filled(-10.0), V2::filled(10.0), {}};
  const SearchPoints<2, double> points{view_of(x), view_of(h)};
  const auto list =
      build_neighbor_list<SupportScheme::SuperSymmetric>(exec::host{}, points, points, domain);
  using Laplacian = ops::Laplacian<Kernel, LaplacianScheme::Brookshaw>;
  const auto value = [&](const std::vector<V2>& xs) {
    const ParticleSet<2, double> set{view_of(xs), view_of(h), view_of(m), view_of(kinds)};
    const auto rho = apply<ops::Density<Kernel>>(exec::host{}, set, set, domain, list);
    const auto with_rho = set.with_densities(Span<const double>{rho.data(), 5});
    const auto lap =
        apply<Laplacian>(exec::host{}, with_rho, with_rho, domain, list, view_of(f), view_of(f));
    double sum = 0;
    for (int i = 0; i < 5; ++i) {
      sum += lap[i] * (i + 1) + rho[i];
    }
    return sum;
  };
  Variable<V2> xv(Span<V2>{x.data(), 5});
  const ParticleSet<2, double> plain{view_of(x), view_of(h), view_of(m), view_of(kinds)};
  const auto set = plain.with_positions(xv);
  Host tape;
  const auto rho = record<ops::Density<Kernel>>(tape, set, set, domain, list);
  const auto with_rho = set.with_densities(rho);
  const auto lap =
      record<Laplacian>(tape, with_rho, with_rho, domain, list, view_of(f), view_of(f));
  std::vector<double> seed_lap{1, 2, 3, 4, 5}, seed_rho(5, 1.0);
  tape.backward(BackwardOptions{}, Seed<double>{rho, {seed_rho.data(), 5}},
                Seed<double>{lap, {seed_lap.data(), 5}});
  const auto g = tape.gradient(xv);
  for (int i = 0; i < 5; ++i) {
    for (int k = 0; k < 2; ++k) {
      REQUIRE(std::isfinite(g[i][k]));
      if (i >= 2) { // FD is well defined away from the coincident pair's kink
        auto plus = x, minus = x;
        plus[std::size_t(i)][k] += 1e-6;
        minus[std::size_t(i)][k] -= 1e-6;
        CHECK(g[i][k] == Approx((value(plus) - value(minus)) / 2e-6).epsilon(1e-6).margin(1e-8));
      }
    }
  }
  CHECK(g[4][0] == 0.0); // isolated: only its self pair, which has no position derivative
  CHECK(g[4][1] == 0.0);
}

TEST_CASE("references_are_near: references within a few indices of their queries are near, "
          "scattered ones are not (the host sweep prefetches only those)",
          "[record]") {
  constexpr std::int64_t n = 100000, per_row = 4;
  std::vector<std::int64_t> offsets(n + 1);
  std::vector<std::int32_t> near, far;
  for (std::int64_t i = 0; i < n; ++i) {
    offsets[std::size_t(i) + 1] = (i + 1) * per_row;
    for (std::int64_t k = 0; k < per_row; ++k) {
      near.push_back(std::int32_t(std::min(n - 1, std::max<std::int64_t>(0, i - 1 + k * 300))));
      far.push_back(std::int32_t((i * 7919 + k * 31337) % n));
    }
  }
  CHECK(pairloop::references_are_near(offsets.data(), near.data(), n));
  CHECK_FALSE(pairloop::references_are_near(offsets.data(), far.data(), n));
  // One far reference in four is too many; no queries or no pairs are near (nothing to fetch).
  for (std::size_t e = 0; e < near.size(); e += 4) {
    near[e] = far[e];
  }
  CHECK_FALSE(pairloop::references_are_near(offsets.data(), near.data(), n));
  CHECK(pairloop::references_are_near(offsets.data(), near.data(), 0));
  const std::vector<std::int64_t> no_pairs(n + 1, 0);
  CHECK(pairloop::references_are_near(no_pairs.data(), near.data(), n));
}

TEST_CASE("transpose_neighbor_list: each reference lists its queries in increasing order",
          "[search][transpose]") {
  const test::JVPInputs<2> in(true);
  const auto t = transpose_neighbor_list(exec::host{}, in.list, in.list.num_queries);
  const auto tt = transpose_neighbor_list(exec::host{}, t, in.list.num_queries);
  REQUIRE(t.num_pairs == in.list.num_pairs);
  REQUIRE(tt.num_pairs == in.list.num_pairs);
  for (std::int64_t i = 0; i < in.list.num_queries; ++i) {
    std::vector<std::int32_t> row(in.list.neighbors.data() + in.list.offsets[i],
                                  in.list.neighbors.data() + in.list.offsets[i + 1]);
    std::sort(row.begin(), row.end());
    const std::vector<std::int32_t> back(tt.neighbors.data() + tt.offsets[i],
                                         tt.neighbors.data() + tt.offsets[i + 1]);
    CHECK(back == row);
    const std::vector<std::int32_t> column(t.neighbors.data() + t.offsets[i],
                                           t.neighbors.data() + t.offsets[i + 1]);
    CHECK(std::is_sorted(column.begin(), column.end()));
  }
  CHECK_THROWS_WITH(transpose_neighbor_list(exec::host{}, in.list, -1),
                    Catch::Matchers::Contains("`num_references`"));
}

TEST_CASE("transpose_entries: the entries grouped by reference, in increasing order, on any "
          "number of threads",
          "[search][transpose]") {
  // Large enough for the host's chunked counting sort (≥ 2 × 65536 entries).
  const std::int64_t queries = 6000, references = 1700;
  NeighborList<exec::host> list{Buffer<std::int64_t, exec::host>(exec::host{}, queries + 1),
                                Buffer<std::int32_t, exec::host>(exec::host{}, 0), queries, 0};
  std::vector<std::int32_t> neighbors;
  list.offsets[0] = 0;
  std::uint64_t state = 12345;
  for (std::int64_t i = 0; i < queries; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const int count = int(state >> 58); // 0..63 entries, repeats allowed
    for (int c = 0; c < count; ++c) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      neighbors.push_back(std::int32_t((state >> 33) % std::uint64_t(references)));
    }
    list.offsets[i + 1] = std::int64_t(neighbors.size());
  }
  list.num_pairs = std::int64_t(neighbors.size());
  REQUIRE(list.num_pairs > 2 * 65536);
  list.neighbors = Buffer<std::int32_t, exec::host>(exec::host{}, list.num_pairs);
  std::copy(neighbors.begin(), neighbors.end(), list.neighbors.data());

  // The reference: a stable sort of the entries by neighbour.
  std::vector<std::int64_t> expected(std::size_t(list.num_pairs));
  for (std::int64_t k = 0; k < list.num_pairs; ++k) {
    expected[std::size_t(k)] = k;
  }
  std::stable_sort(expected.begin(), expected.end(), [&](std::int64_t a, std::int64_t b) {
    return neighbors[std::size_t(a)] < neighbors[std::size_t(b)];
  });
  const auto check = [&](const EntryTranspose<exec::host>& t) {
    REQUIRE(t.num_references == references);
    REQUIRE(t.num_pairs == list.num_pairs);
    CHECK(std::equal(expected.begin(), expected.end(), t.entries.data()));
    for (std::int64_t j = 0; j < references; ++j) {
      for (std::int64_t e = t.offsets[j]; e < t.offsets[j + 1]; ++e) {
        REQUIRE(neighbors[std::size_t(t.entries[e])] == j);
      }
    }
    CHECK(t.offsets[references] == list.num_pairs);
  };
  check(transpose_entries(exec::host{}, list, references));
#if SPHAD_HAS_OPENMP
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  check(transpose_entries(exec::host{}, list, references));
  omp_set_num_threads(3);
  check(transpose_entries(exec::host{}, list, references));
  omp_set_num_threads(threads);
#endif
  CHECK_THROWS_WITH(transpose_entries(exec::host{}, list, -1),
                    Catch::Matchers::Contains("`num_references`"));
}
