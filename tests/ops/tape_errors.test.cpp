// SPDX-License-Identifier: MIT
// Reverse mode under misuse (issue #22): an empty Variable given as a field, a seed that is a
// view of the tape's own gradient memory, and messages that name the written field.
#include "ops/derivative_matrix.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

using namespace sphad;
using test::view_of;

namespace {

using V2 = Vec<double, 2>;
using Density = ops::Density<kernels::Wendland4>;
using Gradient = ops::Gradient<kernels::Wendland4, GradientScheme::Difference>;

/// A small 2D set whose positions and values are tracked.
struct Tracked2 {
  test::JVPInputs<2> in{false};
  test::Tracked<V2> x{in.x.value};
  test::Tracked<double> f{in.f.value};
  std::int64_t n = std::int64_t(in.x.value.size());
  ParticleSet<2, double> plain() const {
    return {view_of(x.values), view_of(in.h.value), view_of(in.m.value), {in.kinds.data(), n}};
  }
  auto tracked() const { return plain().with_positions(x.variable); }
};

} // namespace

TEST_CASE("record: an empty Variable given as a field is rejected, naming it, before anything "
          "is recorded",
          "[record][vjp][errors]") {
  const Tracked2 t;
  Tape<exec::host> tape;
  const Variable<double> empty;
  const auto message = [](const char* field) {
    return Catch::Matchers::Contains(std::string("sphad::record: argument `") + field +
                                     "`: is an empty Variable");
  };
  CHECK_THROWS_WITH(
      record<Density>(tape, t.tracked().with_densities(empty), t.tracked(), t.in.domain, t.in.list),
      message("queries.densities"));
  CHECK_THROWS_WITH(
      record<Density>(tape, t.tracked(), t.tracked().with_volumes(empty), t.in.domain, t.in.list),
      message("references.volumes"));
  CHECK_THROWS_WITH(record<Gradient>(tape, t.tracked().with_densities(view_of(t.in.rho.value)),
                                     t.tracked().with_densities(view_of(t.in.rho.value)),
                                     t.in.domain, t.in.list, t.f.variable, empty),
                    message("reference_values"));
  CHECK(tape.size() == 0);
  CHECK(tape.bytes() == 0);
  const auto one = [](auto value) { return value; };
  CHECK_THROWS_WITH(record_map(tape, 0, one, empty),
                    Catch::Matchers::Contains("argument `inputs`: is an empty Variable"));
  CHECK(tape.size() == 0);
}

TEST_CASE("Tape::backward: a seed that is a view of the tape's gradient memory is read before "
          "the gradients are zeroed",
          "[record][vjp][errors]") {
  const Tracked2 t;
  Tape<exec::host> tape;
  const auto rho = record<Density>(tape, t.tracked(), t.tracked(), t.in.domain, t.in.list);
  std::vector<double> seed(std::size_t(t.n));
  for (std::size_t i = 0; i < seed.size(); ++i) {
    seed[i] = 0.5 + 0.25 * double(i % 5);
  }
  tape.backward(rho, Span<const double>{seed.data(), t.n});
  const auto own = tape.gradient(rho); // the output's adjoint: the seed, in the tape's memory
  REQUIRE(std::vector<double>(own.data(), own.data() + own.size()) == seed);
  const auto expected = tape.gradient(t.x.variable);
  const std::vector<V2> first(expected.data(), expected.data() + expected.size());
  double largest = 0;
  for (const auto& g : first) {
    largest = std::max(largest, std::abs(g[0]) + std::abs(g[1]));
  }
  REQUIRE(largest > 0);
  tape.backward(rho, own); // seeded from its own gradient memory
  const auto again = tape.gradient(t.x.variable);
  CHECK(std::vector<V2>(again.data(), again.data() + again.size()) == first);
  // A seed inside a gradient array (a sub-range) too.
  const auto part = tape.gradient(rho);
  tape.backward(rho, Span<const double>{part.data(), part.size()});
  const auto third = tape.gradient(t.x.variable);
  CHECK(std::vector<V2>(third.data(), third.data() + third.size()) == first);
}

TEST_CASE("Tape::backward: a variable written after recording is named by its field",
          "[record][vjp][errors]") {
  const Tracked2 t;
  Tape<exec::host> tape;
  const auto rho = record<Density>(tape, t.tracked(), t.tracked(), t.in.domain, t.in.list);
  const std::vector<double> seed(std::size_t(t.n), 1.0);
  t.x.variable.write();
  CHECK_THROWS_WITH(tape.backward(rho, Span<const double>{seed.data(), t.n}),
                    Catch::Matchers::Contains("sphad::Tape::backward: argument "
                                              "`queries.positions`: was written after it was "
                                              "recorded"));
}

TEST_CASE("Tape: outputs live and die with the tape that made them", "[record][vjp][errors]") {
  const Tracked2 t;
  const std::vector<double> seed(std::size_t(t.n), 1.0);
  const Span<const double> ones{seed.data(), t.n};
  Tape<exec::host> a, b;
  const auto rho = record<Density>(a, t.tracked(), t.tracked(), t.in.domain, t.in.list);
  const auto values = [&](const Variable<double>&) {
    return t.tracked().with_densities(view_of(t.in.rho.value));
  };
  // An output of tape A recorded on tape B was treated as a constant (0.98 relative error in
  // B's gradients); it is rejected, before B changes.
  CHECK_THROWS_WITH(record<Gradient>(b, values(rho), values(rho), t.in.domain, t.in.list, rho, rho),
                    Catch::Matchers::Contains("sphad::record: argument `query_values`: is an "
                                              "output of another tape"));
  CHECK_THROWS_WITH(record_map(
                        b, t.n, [](auto r) { return r * r; }, rho),
                    Catch::Matchers::Contains("argument `inputs`: is an output of another tape"));
  CHECK(b.size() == 0);
  // Seeding an output of another tape gave all-zero gradients.
  const auto on_b = record<Density>(b, t.tracked(), t.tracked(), t.in.domain, t.in.list);
  CHECK_THROWS_WITH(b.backward(rho, ones),
                    Catch::Matchers::Contains("sphad::Tape::backward: argument `seed`: is an "
                                              "output of another tape"));
  const Variable<double> never_recorded(Span<double>{const_cast<double*>(seed.data()), t.n});
  CHECK_THROWS_WITH(b.backward(never_recorded, ones),
                    Catch::Matchers::Contains("argument `seed`: the output was not recorded on "
                                              "this tape"));
  CHECK_NOTHROW(b.backward(on_b, ones));
  // After A.clear() its outputs are freed: reusing one (on A or anywhere) or seeding it throws
  // instead of reading freed memory.
  a.clear();
  CHECK_THROWS_WITH(record<Gradient>(a, values(rho), values(rho), t.in.domain, t.in.list, rho, rho),
                    Catch::Matchers::Contains("argument `query_values`: is an output of a tape "
                                              "that was cleared or destroyed"));
  CHECK_THROWS_WITH(a.backward(rho, ones),
                    Catch::Matchers::Contains("argument `seed`: is an output of a tape that was "
                                              "cleared or destroyed"));
  CHECK(a.size() == 0);
  // A destroyed tape releases its outputs too.
  Variable<double> orphan;
  {
    Tape<exec::host> c;
    orphan = record<Density>(c, t.tracked(), t.tracked(), t.in.domain, t.in.list);
  }
  CHECK_THROWS_WITH(record_map(
                        b, t.n, [](auto r) { return r + 1; }, orphan),
                    Catch::Matchers::Contains("is an output of a tape that was cleared or "
                                              "destroyed"));
  // The tape's own outputs chain as before.
  Tape<exec::host> d;
  const auto rho_d = record<Density>(d, t.tracked(), t.tracked(), t.in.domain, t.in.list);
  const auto squared = record_map(
      d, t.n, [](auto r) { return r * r; }, rho_d);
  CHECK_NOTHROW(d.backward(squared, ones));
}

TEST_CASE("Variable: one over read-only memory records like one over writable memory, and only "
          "write() is refused",
          "[record][vjp][errors]") {
  const Tracked2 t;
  const auto set = t.plain().with_densities(view_of(t.in.rho.value));
  const auto gradient_of = [&](const Variable<double>& f) {
    Tape<exec::host> tape;
    const auto out = record<Gradient>(tape, set, set, t.in.domain, t.in.list, f, f);
    const std::vector<V2> seed(std::size_t(t.n), V2{1.0, -0.5});
    tape.backward(out, Span<const V2>(seed));
    const auto g = tape.gradient(f);
    return std::vector<double>(g.data(), g.data() + g.size());
  };
  std::vector<double> writable = t.in.f.value;
  const std::vector<double> read_only = t.in.f.value;
  const Variable<double> from_writable(writable.data(), t.n);
  const Variable<double> from_read_only(read_only.data(), t.n);
  CHECK(gradient_of(from_read_only) == gradient_of(from_writable));
  CHECK(from_writable.write().size() == t.n);
  CHECK_THROWS_WITH(from_read_only.write(),
                    Catch::Matchers::Contains("argument `variable`: wraps read-only memory"));
}

TEST_CASE("apply, jvp: host vectors work where views are expected, with the views' results",
          "[ops][errors]") {
  const Tracked2 t;
  const auto& x = t.in.x.value;
  const auto& h = t.in.h.value;
  const auto& m = t.in.m.value;
  const auto& rho = t.in.rho.value;
  const auto& f = t.in.f.value;
  const ParticleSet<2, double> from_vectors =
      ParticleSet<2, double>{x, h, m, t.in.kinds}.with_densities(Span<const double>(rho));
  const auto set = t.plain().with_densities(view_of(rho));
  const auto by_vectors =
      apply<Gradient>(exec::host{}, from_vectors, from_vectors, t.in.domain, t.in.list, f, f);
  const auto by_views =
      apply<Gradient>(exec::host{}, set, set, t.in.domain, t.in.list, view_of(f), view_of(f));
  REQUIRE(by_vectors.size() == t.n);
  for (std::int64_t i = 0; i < t.n; ++i) {
    CHECK(by_vectors[i] == by_views[i]);
  }
}
