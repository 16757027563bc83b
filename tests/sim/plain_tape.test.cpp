// SPDX-License-Identifier: MIT
// `PlainTape`: the recording calls evaluated without recording. Pinned: every call gives the bits
// the recording tape gives (operators, maps, reductions, gathers, both example solvers' steps and
// rollouts); nothing is recorded and the output memory is reused after `reset()`; the calls'
// checks still throw, naming the argument; a step that takes only `Tape` still runs plain.
#include "taylor_green/taylor_green.hpp"
#include "wall_flows/wall_flows.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <tuple>
#include <vector>

using namespace sphad;

namespace {

using Host = exec::host;

/// Whether two views hold the same bits.
template <class A, class B>
bool same_bits(const A& a, const B& b) {
  using E = std::decay_t<decltype(*a.data())>;
  static_assert(std::is_same_v<E, std::decay_t<decltype(*b.data())>>);
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), std::size_t(a.size()) * sizeof(E)) == 0;
}

/// Whether two states (any kinds) hold the same bits, array by array.
template <template <class> class State, class KA, class KB>
bool same_state(const State<KA>& a, const State<KB>& b) {
  bool same = true;
  sim::for_each_field_pair(a, b,
                           [&](const auto& x, const auto& y) { same = same && same_bits(x, y); });
  return same;
}

/// A step that takes only the recording tape (written before plain tapes existed).
struct TapeOnlyStep {
  tgv::Step<Host> inner;
  template <class Kind, class ParamKind>
  tgv::Fluid<sim::Tracked> operator()(Tape<Host>& tape,
                                      const tgv::Fluid<Kind>& s,
                                      const tgv::Viscosity<ParamKind>& p,
                                      std::int64_t k) const {
    return inner(tape, s, p, k);
  }
};

struct Scale {
  double a;
  template <class X>
  SPHAD_HOST_DEVICE auto operator()(const X& x) const {
    return x * a;
  }
};

} // namespace

TEST_CASE("PlainTape: the Taylor-Green rates and step give the recording tape's bits",
          "[sim][plain_tape]") {
  tgv::Setup setup;
  setup.side = 8;
  tgv::Case<Host> c{setup, Host{}};
  const auto step = c.step(setup.dt());
  PlainTape<Host> plain;
  Tape<Host> tape;
  const auto views = sim::views(c.state);
  const auto params = sim::views(c.params);
  const auto from_plain = step(plain, views, params, 0);
  const auto recorded = step(tape, sim::track(c.state), sim::track(c.params), 0);
  CHECK(same_state(from_plain, recorded));
  CHECK(tape.size() > 0);
  // Nothing recorded: every output is a view of the plain tape's slots, one per call.
  const std::int64_t outputs = plain.outputs();
  CHECK(outputs > 10);
  const std::int64_t allocated = plain.allocations(), bytes = plain.bytes();
  CHECK(allocated == outputs);
  // After a reset the same calls take the same slots: no allocation, the same memory; an
  // output still held from before the reset is released (reading it throws).
  plain.reset();
  CHECK(from_plain.v.state->released);
  CHECK_THROWS_WITH(record_map(plain, from_plain.v.size(), sim::Identity{}, from_plain.v),
                    Catch::Contains("record_map") && Catch::Contains("reset"));
  plain.reset();
  const auto again = step(plain, views, params, 0);
  CHECK(plain.allocations() == allocated);
  CHECK(plain.bytes() == bytes);
  CHECK(again.v.data() == from_plain.v.data());
  CHECK_FALSE(again.v.same_as(from_plain.v)); // a held variable keeps its identity, released
  CHECK(same_state(again, recorded));
  // A plain tape's output is another tape's output to a recording tape.
  CHECK_THROWS_WITH(record_map(tape, again.v.size(), sim::Identity{}, again.v),
                    Catch::Contains("another tape"));
}

TEST_CASE("PlainTape: a generic lambda step and the correction pipelines run plain",
          "[sim][plain_tape]") {
  tgv::Setup setup;
  setup.side = 8;
  tgv::Case<Host> c{setup, Host{}};
  const auto inner = c.step(setup.dt());
  int plain_calls = 0;
  const auto step = [&](auto& tape, const auto& s, const auto& p, std::int64_t k) {
    plain_calls += is_plain_tape_v<std::decay_t<decltype(tape)>> ? 1 : 0;
    return inner(tape, s, p, k);
  };
  sim::rollout(c.exec, 2, c.state, c.params, step);
  CHECK(plain_calls == 2);
  // Ω of grad-h and the CRK factors: the same bits plain and recorded.
  const ParticleSet<2, double> set{
      Span<const tgv::V2>{c.state.x.data(), c.n}, Span<const double>{c.supports.data(), c.n},
      Span<const double>{c.masses.data(), c.n}, Span<const std::int32_t>{c.kinds.data(), c.n}};
  const Domain<2, double> domain = inner.k.domain;
  const auto list = build_neighbor_list<SupportScheme::SuperSymmetric>(c.exec, set.search_points(),
                                                                       set.search_points(), domain);
  PlainTape<Host> plain;
  Tape<Host> tape;
  const auto with_rho = set.with_densities(Span<const double>{c.state.rho.data(), c.n});
  CHECK(same_bits(corrections::record_omegas<tgv::Kernel>(plain, with_rho, domain, list),
                  corrections::record_omegas<tgv::Kernel>(tape, with_rho, domain, list)));
  const auto crk_plain = corrections::record_crk_factors<tgv::Kernel>(plain, set, domain, list);
  const auto crk_tape = corrections::record_crk_factors<tgv::Kernel>(tape, set, domain, list);
  CHECK(same_bits(crk_plain.volumes, crk_tape.volumes));
  CHECK(same_bits(crk_plain.density, crk_tape.density));
}

TEST_CASE("PlainTape: plain rollouts give the bits of recorded steps (Taylor-Green, dam break)",
          "[sim][plain_tape]") {
  SECTION("Taylor-Green, across list rebuilds") {
    tgv::Setup setup;
    setup.side = 8;
    tgv::Case<Host> a{setup, Host{}}, b{setup, Host{}};
    const auto step_a = a.step(setup.dt()), step_b = b.step(setup.dt());
    sim::rollout(a.exec, 60, a.state, a.params, step_a);
    for (std::int64_t k = 0; k < 60; ++k) {
      Tape<Host> tape;
      const auto next = step_b(tape, sim::track(b.state), sim::track(b.params), k);
      sim::assign(b.exec, next, b.state);
    }
    CHECK(step_a.cache->rebuilds() >= 2);
    CHECK(step_a.cache->rebuilds() == step_b.cache->rebuilds());
    CHECK(same_state(a.state, b.state));
  }
  SECTION("dam break") {
    const wall_flows::Setup s = wall_flows::dam_break(6);
    wall_flows::Case<Host> a{s, Host{}}, b{s, Host{}};
    const double dt = s.dt();
    const auto step_a = a.step(dt), step_b = b.step(dt);
    PlainTape<Host> plain;
    sim::rollout(plain, 6, a.state, a.params, step_a);
    for (std::int64_t k = 0; k < 6; ++k) {
      Tape<Host> tape;
      const auto next = step_b(tape, sim::track(b.state), sim::track(b.params), k);
      sim::assign(b.exec, next, b.state);
    }
    CHECK(same_state(a.state, b.state));
  }
  SECTION("a step that takes only Tape runs on a recording tape, with the same bits") {
    tgv::Setup setup;
    setup.side = 8;
    tgv::Case<Host> a{setup, Host{}}, b{setup, Host{}};
    sim::rollout(a.exec, 3, a.state, a.params, a.step(setup.dt()));
    sim::rollout(b.exec, 3, b.state, b.params, TapeOnlyStep{b.step(setup.dt())});
    CHECK(same_state(a.state, b.state));
  }
}

TEST_CASE("PlainTape: maps, reductions and gathers give the recording tape's bits",
          "[sim][plain_tape]") {
  const std::int64_t n = 37;
  std::vector<double> x(n);
  std::vector<Vec<double, 2>> y(n);
  for (std::int64_t i = 0; i < n; ++i) {
    x[i] = 0.1 * double(i) - 1.3;
    y[i] = {double(i) / 7, 1.0 / (1.0 + double(i))};
  }
  const std::vector<std::int32_t> index{3, 0, 36, 3, 5};
  const Span<const double> xs(x);
  const Span<const Vec<double, 2>> ys(y);
  PlainTape<Host> plain;
  Tape<Host> tape;
  const Variable<double> xv(xs);
  const Variable<Vec<double, 2>> yv(ys);
  // A caller's Variable is read as its array on a plain tape (nothing tracked).
  CHECK(same_bits(record_map(plain, n, Scale{3}, xv), record_map(tape, n, Scale{3}, xv)));
  CHECK(same_bits(record_map(plain, n, Scale{0.5}, ys), record_map(tape, n, Scale{0.5}, yv)));
  CHECK(same_bits(record_sum(plain, xs), record_sum(tape, xv)));
  CHECK(same_bits(record_dot(plain, ys, ys), record_dot(tape, yv, yv)));
  CHECK(same_bits(record_squared_norm(plain, xs), record_squared_norm(tape, xv)));
  CHECK(same_bits(record_weighted_sum(plain, xs, ys), record_weighted_sum(tape, xv, yv)));
  CHECK(same_bits(record_gather(plain, ys, Span<const std::int32_t>(index)),
                  record_gather(tape, yv, Span<const std::int32_t>(index))));
  CHECK(same_bits(record_scatter_add(plain, Span<const double>(x.data(), 5),
                                     Span<const std::int32_t>(index), n),
                  record_scatter_add(tape, Variable<double>(x.data(), std::int64_t(5)),
                                     Span<const std::int32_t>(index), n)));
  CHECK(plain.outputs() == 8);
  // The sum's partials leave the stack past 64 chunks: the same order, the same bits.
  const std::int64_t big = 65 * exec::reduce_chunk + 3;
  std::vector<double> ones(big, 1.0);
  CHECK(record_sum(plain, Span<const double>(ones)).data()[0] == double(big));
}

TEST_CASE("PlainTape: the calls' checks throw naming the argument", "[sim][plain_tape][errors]") {
  const std::vector<double> x(5, 1.0);
  PlainTape<Host> plain;
  const auto message = [](const auto& call) {
    try {
      call();
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  using Catch::Matchers::Contains;
  CHECK_THAT(message([&] { record_map(plain, 4, Scale{1}, Span<const double>(x)); }),
             Contains("record_map") && Contains("inputs") && Contains("5 entries for 4 rows"));
  CHECK_THAT(message([&] { record_sum(plain, Variable<double>()); }),
             Contains("record_sum") && Contains("empty Variable"));
  Variable<double> released;
  {
    Tape<Host> gone;
    released = record_map(gone, 5, Scale{2}, Span<const double>(x));
  }
  CHECK_THAT(message([&] { record_map(plain, 5, Scale{1}, released); }),
             Contains("record_map") && Contains("cleared, reset or destroyed"));
  CHECK(plain.outputs() == 0); // nothing handed out by a call that threw
  // A live output of a recording tape is an array like any other on a plain tape.
  Tape<Host> tape;
  const auto y = record_map(tape, 5, Scale{2}, Span<const double>(x));
  CHECK(record_map(plain, 5, Scale{1}, y).data()[4] == 2.0);
}
