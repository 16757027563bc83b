// SPDX-License-Identifier: MIT
// The solver's blocks at their edges: NaN in the maxima a run reads (speeds, drifts), the
// neighbour cache over a domain that changed and over non-finite positions, time-step rules out
// of range, Tait's sound speed at ρ = 0 with γ = 1, the anti-clumping term with a spacing past
// the support, and an integrator given rates of the wrong size.
#include <sphad/sphad.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

using namespace sphad;

namespace {
using V2 = Vec<double, 2>;
using D1 = Dual<double, 1>;
using K = kernels::Wendland4;
constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();

template <class E>
Span<const E> view(const std::vector<E>& v) {
  return {v.data(), std::int64_t(v.size())};
}

/// Three particles in the open unit box, all neighbours of each other.
struct Trio {
  std::vector<V2> x;
  std::vector<double> h, m, rho;
  std::vector<std::int32_t> kinds = std::vector<std::int32_t>(3, 0);
  Domain<2, double> domain{{0, 0}, {1, 1}, {false, false}};

  auto set() const {
    return ParticleSet<2, double>{view(x), view(h), view(m), view(kinds)}.with_densities(view(rho));
  }
  NeighborList<exec::host> list() const {
    return build_neighbor_list<SupportScheme::Gather>(exec::host{}, set().search_points(),
                                                      set().search_points(), domain);
  }
};
} // namespace

TEST_CASE("reduce_max and max_norm: a NaN anywhere gives NaN", "[solver][nan]") {
  const exec::host ex;
  for (std::size_t at = 0; at < 4; ++at) {
    std::vector<double> values{1.0, 3.0, 2.0, 0.5};
    values[at] = not_a_number;
    CAPTURE(at);
    CHECK(std::isnan(exec::reduce_max(ex, values.data(), 4, 0.0)));
    std::vector<V2> v{{3, 4}, {0, 1}, {-6, 8}, {1, 1}};
    v[at][1] = not_a_number;
    CHECK(std::isnan(solver::max_norm(ex, view(v))));
  }
  const std::vector<double> plain{1.0, 3.0, 2.0};
  CHECK(exec::reduce_max(ex, plain.data(), 3, 0.0) == 3.0);
  CHECK(exec::reduce_max(ex, plain.data(), 0, -1.0) == -1.0);
}

TEST_CASE("time_step_limits: a NaN speed and rules out of range are errors naming them",
          "[solver][dt][errors]") {
  const std::vector<V2> v{{1, 0}, {not_a_number, 0}, {2, 0}};
  const double speed = solver::max_norm(exec::host{}, view(v));
  CHECK_THROWS_WITH(solver::time_step_limits({0.01, 10.0, speed, 0.0, 0.0}),
                    Catch::Contains("solver::time_step_limits: argument `inputs`: max_speed is "
                                    "negative or not finite (got nan)"));
  for (const double bad : {-0.25, 0.0, not_a_number, std::numeric_limits<double>::infinity()}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH(solver::time_step_limits({0.01, 10.0, 1.0, 0.0, 0.0}, {bad, 0.125, 0.25}),
                      Catch::Contains("argument `rules`: acoustic must be finite and positive"));
    CHECK_THROWS_WITH(solver::time_step_limits({0.01, 10.0, 1.0, 0.0, 0.0}, {0.25, 0.125, bad}),
                      Catch::Contains("argument `rules`: force must be finite and positive"));
  }
}

TEST_CASE("NeighborCache and the Verlet list: a NaN position is never skipped", "[solver][nan]") {
  const exec::host ex;
  auto lattice = sampling::cubic_lattice<2>(8, V2{1, 1});
  const Domain<2, double> domain{{0, 0}, {1, 1}, {true, true}};
  std::vector<V2> x = lattice.positions;
  const std::vector<double> h(x.size(), 2.5 * lattice.spacing);
  const SearchPoints<2, double> points{view(x), view(h)};
  const auto verlet =
      build_verlet_list<SupportScheme::Gather>(ex, points, points, domain, 0.1 * lattice.spacing);
  NeighborCache<SupportScheme::Gather, 2, double, exec::host> cache(0.1 * lattice.spacing);
  cache.update(ex, points, domain);
  const auto pairs_before = cache.list().num_pairs;
  x[5][1] = not_a_number; // not index 0: the maximum used to skip it
  CHECK(verlet_needs_rebuild(ex, verlet, points, points, domain));
  CHECK_THROWS_WITH(cache.update(ex, points, domain),
                    Catch::Contains("NeighborCache::update: argument `points`: has a non-finite "
                                    "position or support at index 5"));
  CHECK(cache.list().num_pairs == pairs_before); // the cache is as it was
  std::vector<V2> reference = lattice.positions;
  reference[3][0] = std::numeric_limits<double>::infinity();
  x[5][1] = lattice.positions[5][1];
  CHECK_THROWS_WITH(cache.update_from(ex, points, view(reference), domain),
                    Catch::Contains("NeighborCache::update_from: argument `reference`: has a "
                                    "non-finite position or support at index 3"));
  std::vector<double> grown = h;
  grown[6] = not_a_number; // a NaN support counts as grown: rebuild
  CHECK(verlet_needs_rebuild(ex, verlet, {view(x), view(grown)}, {view(x), view(grown)}, domain));
}

TEST_CASE("NeighborCache(skin): NaN and infinite skins are rejected as such", "[solver][errors]") {
  using Cache = NeighborCache<SupportScheme::Gather, 2, double, exec::host>;
  for (const double bad : {not_a_number, std::numeric_limits<double>::infinity(), -1.0}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH(Cache(bad),
                      Catch::Contains("NeighborCache: argument `skin`: must be finite and >= 0"));
  }
}

TEST_CASE("NeighborCache and filter_verlet_list: a domain made periodic is not refiltered from "
          "the open box's list",
          "[solver][neighbors]") {
  const exec::host ex;
  auto lattice = sampling::cubic_lattice<2>(20, V2{1, 1});
  const Domain<2, double> open{{0, 0}, {1, 1}, {false, false}};
  const Domain<2, double> periodic{{0, 0}, {1, 1}, {true, true}};
  const std::vector<double> h(lattice.positions.size(), 1.6 * lattice.spacing);
  const SearchPoints<2, double> points{view(lattice.positions), view(h)};
  const auto fresh = [&](const Domain<2, double>& domain) {
    return build_neighbor_list<SupportScheme::Gather>(ex, points, points, domain).num_pairs;
  };
  REQUIRE(fresh(periodic) > fresh(open)); // pairs across the boundary
  NeighborCache<SupportScheme::Gather, 2, double, exec::host> cache(0.1 * lattice.spacing);
  CHECK(cache.update(ex, points, open).num_pairs == fresh(open));
  CHECK(cache.update(ex, points, periodic).num_pairs == fresh(periodic));
  CHECK(cache.last() == NeighborUpdate::rebuilt);
  CHECK(cache.update(ex, points, periodic).num_pairs == fresh(periodic));
  CHECK(cache.last() == NeighborUpdate::refiltered);
  // A periodic domain of another period rebuilds too; an open box's bounds play no part.
  const Domain<2, double> wider{{0, 0}, {1.25, 1}, {true, true}};
  cache.update(ex, points, wider);
  CHECK(cache.last() == NeighborUpdate::rebuilt);
  cache.update(ex, points, open);
  const Domain<2, double> open_elsewhere{{-3, -3}, {4, 4}, {false, false}};
  cache.update(ex, points, open_elsewhere);
  CHECK(cache.last() == NeighborUpdate::refiltered);
  // update_from over the changed domain rebuilds from the current positions.
  cache.update_from(ex, points, view(lattice.positions), periodic);
  CHECK(cache.last() == NeighborUpdate::rebuilt);
  CHECK(cache.list().num_pairs == fresh(periodic));

  const auto verlet = build_verlet_list<SupportScheme::Gather>(ex, points, points, open, 0.01);
  CHECK(verlet_needs_rebuild(ex, verlet, points, points, periodic));
  CHECK_THROWS_WITH(
      filter_verlet_list<SupportScheme::Gather>(ex, verlet, points, points, periodic),
      Catch::Contains("filter_verlet_list: argument `domain`: has other periodic axes or "
                      "periods than the domain the Verlet list was built over"));
}

TEST_CASE("Tait with γ = 1: the sound speed's derivative at ρ = 0 is 0, not NaN", "[solver][eos]") {
  const solver::Tait<> eos{1.0, 10.0, 1.0, 0.0};
  const auto c = eos.sound_speed(D1(0.0, {1.0}));
  CHECK(c.value == 10.0);
  CHECK(c.tangent[0] == 0.0);
  CHECK(pow(D1(0.0, {1.0}), 0.0).tangent[0] == 0.0); // the primitive itself
  CHECK(pow(D1(2.0, {1.0}), 0.0).value == 1.0);
  Tape<exec::host> tape;
  const std::vector<double> rho{0.0, 1.0};
  const Variable<double> r(rho.data(), 2);
  const auto speeds =
      record_map(tape, 2, solver::Of<solver::StateMap::sound_speed, solver::Tait<>>{eos}, r);
  tape.backward(record_sum(tape, speeds));
  CHECK(tape.gradient(r)[0] == 0.0);
  CHECK(tape.gradient(r)[1] == 0.0);
}

TEST_CASE("AntiClumpingGradient: a spacing at or past the support turns the term off, finite",
          "[solver][terms]") {
  const exec::host ex;
  const double h = 0.3;
  const Trio trio{
      {{0.5, 0.5}, {0.53, 0.5}, {0.45, 0.56}}, {h, h, h}, {0.01, 0.01, 0.01}, {1.0, 1.0, 1.0}};
  const auto& x = trio.x;
  const auto& domain = trio.domain;
  const auto set = trio.set();
  const auto list = trio.list();
  const auto plain = apply<solver::ConcentrationGradient<K>>(ex, set, set, domain, list);
  for (const double spacing : {h, 2 * h}) {
    const std::vector<V2> field(3, V2{spacing, 0.2});
    const auto pushed = apply<solver::AntiClumpingGradient<K>>(ex, set, set, domain, list,
                                                               view(field), view(field));
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(pushed[i][0] == plain[i][0]);
      CHECK(pushed[i][1] == plain[i][1]);
    }
  }
  // The derivative there is finite too (the JVP in the spacing and R).
  const std::vector<V2> field(3, V2{2 * h, 0.2});
  std::vector<V2> direction(3, V2{1.0, 1.0});
  const std::vector<V2> still(3, V2{0.0, 0.0});
  const auto moving = set.with_positions(with_tangents(view(x), view(still)));
  const auto paired = with_tangents(view(field), view(direction));
  const auto forward =
      jvp<solver::AntiClumpingGradient<K>>(ex, moving, moving, domain, list, paired, paired);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(std::isfinite(forward.primal[std::int64_t(i)][0]));
    CHECK(forward.tangents[std::int64_t(i)][0] == 0.0);
    CHECK(forward.tangents[std::int64_t(i)][1] == 0.0);
  }
}

namespace {
template <class Kind>
struct Body {
  sim::Array<Kind, V2> x, v;
  template <class Self>
  static constexpr auto fields(Self& s) {
    return std::tie(s.x, s.v);
  }
};
struct ShortRates {
  template <class Kind>
  Body<sim::Tracked> operator()(Tape<exec::host>& tape, const Body<Kind>& s) const {
    return {Variable<V2>(), record_map(tape, s.v.size() - 1, solver::detail::Copy{},
                                       Span<const V2>{primal_view(s.v).data(), s.v.size() - 1})};
  }
};
} // namespace

TEST_CASE("integrators: rates of the wrong size name the integrator and the field",
          "[solver][integrators][errors]") {
  const std::vector<V2> x{{0, 0}, {1, 0}}, v{{1, 0}, {0, 1}};
  const Body<sim::Views> s{view(x), view(v)};
  Tape<exec::host> tape;
  CHECK_THROWS_WITH(solver::symplectic_euler(tape, s, 0.1, ShortRates{}),
                    Catch::Contains("solver::symplectic_euler: argument `rates`: returned array 1 "
                                    "of the state's fields() with 1 elements for a field of 2"));
  CHECK_THROWS_WITH(solver::kick_drift_kick(tape, s, 0.1, ShortRates{}),
                    Catch::Contains("solver::kick_drift_kick: argument `rates`"));
  CHECK_THROWS_WITH(solver::predictor_corrector(tape, s, 0.1, ShortRates{}),
                    Catch::Contains("solver::predictor_corrector: argument `rates`"));
}

TEST_CASE("pressure force and viscosities: a particle of density 0 contributes 0, no NaN",
          "[solver][terms][nan]") {
  const exec::host ex;
  const Trio trio{
      {{0.5, 0.5}, {0.55, 0.5}, {0.5, 0.56}}, {0.3, 0.3, 0.3}, {0.01, 0.01, 0.01}, {1.0, 0.0, 1.1}};
  const auto& domain = trio.domain;
  const auto set = trio.set();
  const auto list = trio.list();
  const std::vector<double> p{1.0, 2.0, 3.0};
  const std::vector<V2> u{{1, 0}, {0, 1}, {-1, 0}};
  const std::vector<Vec<double, 3>> uc{{1, 0, 10}, {0, 1, 10}, {-1, 0, 10}};
  const auto a = apply<solver::PressureForce<K>>(ex, set, set, domain, list, view(p), view(p));
  const auto b = apply<solver::PressureForce<K, solver::PressureForm::Averaged>>(
      ex, set, set, domain, list, view(p), view(p));
  const auto c = apply<solver::LaminarViscosity<K>>(ex, set, set, domain, list, view(u), view(u));
  const auto d =
      apply<solver::ArtificialViscosity<K>>(ex, set, set, domain, list, view(uc), view(uc));
  for (std::int64_t i = 0; i < 3; ++i) {
    for (int e = 0; e < 2; ++e) {
      CHECK(std::isfinite(a[i][e]));
      CHECK(std::isfinite(b[i][e]));
      CHECK(std::isfinite(c[i][e]));
      CHECK(std::isfinite(d[i][e]));
    }
  }
}

TEST_CASE("time_step_limits: a sound speed that overflows or a step that underflows is an error",
          "[solver][dt][errors]") {
  CHECK_THROWS_WITH(solver::time_step_limits({0.01, 1e308, 1e308, 0.0, 0.0}),
                    Catch::Contains("sound_speed + max_speed overflows"));
  CHECK_THROWS_WITH(solver::time_step_limits({1e-300, 1e300, 0.0, 0.0, 0.0}),
                    Catch::Contains("give a step that underflows to 0"));
}

TEST_CASE("searches and operators reject positions whose pair vectors would overflow",
          "[solver][errors]") {
  const exec::host ex;
  const std::vector<V2> x{{0.5, 1e308}, {0.5, 0.5}};
  const std::vector<double> hs(2, 0.3), m(2, 0.01), rho(2, 1.0);
  const std::vector<std::int32_t> kinds(2, 0);
  const Domain<2, double> domain{{0, 0}, {1, 1}, {true, true}};
  const auto set =
      ParticleSet<2, double>{view(x), view(hs), view(m), view(kinds)}.with_densities(view(rho));
  CHECK_THROWS_WITH(build_neighbor_list<SupportScheme::Gather>(ex, set.search_points(),
                                                               set.search_points(), domain),
                    Catch::Contains("argument `queries`: has a position beyond half the largest "
                                    "float at index 0"));
  // An operator over a list of in-range positions, given the far one.
  const std::vector<V2> near{{0.5, 0.9}, {0.5, 0.5}};
  const auto ok = ParticleSet<2, double>{view(near), view(hs), view(m), view(kinds)};
  const auto list = build_neighbor_list<SupportScheme::Gather>(ex, ok.search_points(),
                                                               ok.search_points(), domain);
  CHECK_THROWS_WITH(apply<ops::Density<K>>(ex, set, set, domain, list),
                    Catch::Contains("has a position beyond half the largest float at index 0"));
}
