// SPDX-License-Identifier: MIT
// Rollouts and the state helpers at their edges: a rollout of 10⁶ steps with every state kept
// (constant stack depth), steps that return their inputs as other fields in every arrangement,
// steps and losses that return what they must not, gradients that alias the inputs, outputs of
// cleared tapes handed to the state helpers, and sizes past what memory can address.
#include <sphad/sphad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

using namespace sphad;

namespace {

using Host = exec::host;
using Stored = sim::Stored<Host>;

/// One scalar: the cheapest state a rollout can have.
template <class Kind>
struct Scalar {
  sim::Array<Kind, double> y;
  template <class Self>
  static constexpr auto fields(Self& s) {
    return std::tie(s.y);
  }
};

struct Scale {
  double a;
  template <class Y>
  SPHAD_HOST_DEVICE auto operator()(const Y& y) const {
    return y * a;
  }
};

constexpr double decay = 1.0 - 1e-7;

/// y' = a y.
struct DecayStep {
  template <class Tape, class Kind, class ParamKind>
  Scalar<sim::Tracked> operator()(Tape& tape,
                                  const Scalar<Kind>& s,
                                  const sim::NoParams<ParamKind>&,
                                  std::int64_t) const {
    return {record_map(tape, 1, Scale{decay}, s.y)};
  }
};
/// L = y_T.
struct LastValue {
  template <class Tape>
  Variable<double>
  operator()(Tape&, const Scalar<sim::Tracked>& s, const sim::NoParams<sim::Tracked>&) const {
    return s.y;
  }
};

/// rollout_gradient of T decay steps from y_0 = 2 with every state kept: L = 2 aᵀ, ∂L/∂y_0 = aᵀ,
/// both the same bits as the products taken in the rollout's orders.
void check_decay_rollout(std::int64_t steps) {
  const Host exec;
  const Scalar<Stored> initial{exec::to_buffer(exec, std::vector<double>{2.0})};
  Scalar<Stored> gradient{Buffer<double, Host>(exec, 1)};
  sim::NoParams<Stored> none, dnone;
  const auto result =
      sim::rollout_gradient(exec, steps, initial, none, DecayStep{}, LastValue{}, gradient, dnone);
  double forward = 2.0;
  double backward = 1.0;
  for (std::int64_t k = 0; k < steps; ++k) {
    forward = forward * decay;
    backward = backward * decay;
  }
  CHECK(result.loss[0] == forward);
  CHECK(gradient.y[0] == backward);
  CHECK(result.recordings == steps);
  CHECK(result.advances == steps - 1);
  CHECK(result.peak_checkpoints == steps);
}

/// Three fields, each output either computed from all three inputs or one input passed through.
template <class Kind>
struct Three {
  sim::Array<Kind, double> a, b, c;
  template <class Self>
  static constexpr auto fields(Self& s) {
    return std::tie(s.a, s.b, s.c);
  }
};

/// The computed value of field k: nonlinear in all three inputs.
struct Mix {
  int k;
  template <class A, class B, class C>
  SPHAD_HOST_DEVICE auto operator()(const A& a, const B& b, const C& c) const {
    return k == 0 ? a + 0.1 * b * c : k == 1 ? b - 0.2 * a + 0.05 * c * c : c + 0.05 * a * b;
  }
};

/// Output field k is input field choice[k] − 1 passed through, or computed (choice 0).
struct RouteStep {
  std::array<int, 3> choice;
  template <class Tape, class Kind, class ParamKind>
  Three<sim::Tracked> operator()(Tape& tape,
                                 const Three<Kind>& s,
                                 const sim::NoParams<ParamKind>&,
                                 std::int64_t) const {
    const std::int64_t n = s.a.size();
    const auto out = [&](int k) -> Variable<double> {
      switch (choice[std::size_t(k)]) {
      case 1:
        return Variable<double>(s.a);
      case 2:
        return Variable<double>(s.b);
      case 3:
        return Variable<double>(s.c);
      default:
        return record_map(tape, n, Mix{k}, s.a, s.b, s.c);
      }
    };
    return {out(0), out(1), out(2)};
  }
};

/// L = Σ a² + 2 b + c³.
struct ThreeRow {
  template <class A, class B, class C>
  SPHAD_HOST_DEVICE auto operator()(const A& a, const B& b, const C& c) const {
    return a * a + 2.0 * b + c * c * c;
  }
};
struct ThreeLoss {
  template <class Tape>
  Variable<double>
  operator()(Tape& tape, const Three<sim::Tracked>& s, const sim::NoParams<sim::Tracked>&) const {
    return record_reduce(tape, s.a.size(), ThreeRow{}, s.a, s.b, s.c);
  }
};

using Values = std::array<std::vector<double>, 3>;

/// The plain rollout by hand: each step reads all three inputs before any output is formed.
Values reference_rollout(Values s, const std::array<int, 3>& choice, int steps) {
  for (int step = 0; step < steps; ++step) {
    Values next = s;
    for (int k = 0; k < 3; ++k) {
      for (std::size_t i = 0; i < s[0].size(); ++i) {
        const int from = choice[std::size_t(k)];
        next[std::size_t(k)][i] =
            from > 0 ? s[std::size_t(from - 1)][i] : Mix{k}(s[0][i], s[1][i], s[2][i]);
      }
    }
    s = next;
  }
  return s;
}

Three<Stored> upload(const Values& v) {
  const Host exec;
  return {exec::to_buffer(exec, v[0]), exec::to_buffer(exec, v[1]), exec::to_buffer(exec, v[2])};
}
Values download(const Three<Stored>& s) {
  const Host exec;
  return {exec::to_host(exec, s.a.data(), s.a.size()), exec::to_host(exec, s.b.data(), s.b.size()),
          exec::to_host(exec, s.c.data(), s.c.size())};
}

} // namespace

TEST_CASE("rollout_gradient: every state kept reverses 20 000 steps in constant stack depth",
          "[sim][rollout]") {
  check_decay_rollout(20'000); // past the recursion's depth under the sanitizers
}

TEST_CASE("rollout_gradient: every state kept reverses 10^6 scalar steps in constant stack depth",
          "[sim][rollout][long]") {
  check_decay_rollout(1'000'000);
}

TEST_CASE("rollout and rollout_gradient: a step may return its inputs as other fields, in any "
          "arrangement",
          "[sim][rollout]") {
  const Host exec;
  const Values initial{std::vector<double>{0.5, -1.0}, std::vector<double>{1.5, 0.25},
                       std::vector<double>{-0.75, 2.0}};
  const int steps = 3;
  for (int routes = 0; routes < 64; ++routes) {
    const std::array<int, 3> choice{routes % 4, routes / 4 % 4, routes / 16};
    CAPTURE(choice[0], choice[1], choice[2]);
    const RouteStep step{choice};

    auto state = upload(initial);
    sim::rollout(exec, steps, state, sim::NoParams<Stored>{}, step);
    CHECK(download(state) == reference_rollout(initial, choice, steps));

    // The gradient: one tape holding the whole rollout is the oracle (it never copies a state).
    Tape<Host> tape(exec);
    const auto s0 = upload(initial);
    const auto tracked = sim::track(s0);
    Three<sim::Tracked> s = tracked;
    for (int k = 0; k < steps; ++k) {
      s = step(tape, s, sim::NoParams<sim::Tracked>{}, k);
    }
    const auto loss = ThreeLoss{}(tape, s, sim::NoParams<sim::Tracked>{});
    tape.backward(loss);
    Values expected;
    const std::array<Variable<double>, 3> inputs{tracked.a, tracked.b, tracked.c};
    for (std::size_t f = 0; f < 3; ++f) {
      expected[f].assign(2, 0.0); // a field the loss does not depend on was never recorded
      try {
        const auto g = tape.gradient(inputs[f]);
        expected[f].assign(g.data(), g.data() + g.size());
      } catch (const InvalidArgument&) {
      }
    }

    std::vector<Values> gradients;
    for (const std::int64_t budget : {0, 1, 2}) {
      auto g0 = upload(initial);
      sim::NoParams<Stored> none, dnone;
      const auto result =
          sim::rollout_gradient(exec, steps, s0, none, step, ThreeLoss{}, g0, dnone, {budget});
      CHECK(result.loss[0] == loss.data()[0]);
      gradients.push_back(download(g0));
    }
    CHECK(gradients[1] == gradients[0]); // the same bits for every budget
    CHECK(gradients[2] == gradients[0]);
    for (std::size_t f = 0; f < 3; ++f) {
      for (std::size_t i = 0; i < 2; ++i) {
        CHECK(gradients[0][f][i] == Approx(expected[f][i]).epsilon(1e-14).margin(1e-300));
      }
    }
  }
}

namespace {
/// A step that leaves field `empty` as `Variable{}`.
struct HoleStep {
  int empty;
  template <class Tape, class Kind, class ParamKind>
  Three<sim::Tracked> operator()(Tape& tape,
                                 const Three<Kind>& s,
                                 const sim::NoParams<ParamKind>& p,
                                 std::int64_t k) const {
    auto out = RouteStep{{0, 0, 0}}(tape, s, p, k);
    (empty == 0 ? out.a : empty == 1 ? out.b : out.c) = Variable<double>{};
    return out;
  }
};
/// A loss that was never recorded: a Variable over caller memory, or none at all.
struct UnrecordedLoss {
  const std::vector<double>* memory;
  template <class Tape>
  Variable<double>
  operator()(Tape&, const Three<sim::Tracked>&, const sim::NoParams<sim::Tracked>&) const {
    return memory != nullptr ? Variable<double>(memory->data(), 1) : Variable<double>{};
  }
};
} // namespace

TEST_CASE("rollout and rollout_gradient: a step that returns an empty field is rejected at its "
          "return, naming the step and the field",
          "[sim][rollout][errors]") {
  const Host exec;
  const Values initial{std::vector<double>{0.5, -1.0}, std::vector<double>{1.5, 0.25},
                       std::vector<double>{-0.75, 2.0}};
  auto state = upload(initial);
  CHECK_THROWS_WITH(sim::rollout(exec, 2, state, sim::NoParams<Stored>{}, HoleStep{1}),
                    Catch::Contains("sim::rollout: argument `step`: step 0 returned array 1 of "
                                    "the state's fields() as an empty Variable"));
  CHECK(download(state) == initial); // nothing copied back
  auto g0 = upload(initial);
  sim::NoParams<Stored> none, dnone;
  CHECK_THROWS_WITH(
      sim::rollout_gradient(exec, 3, state, none, HoleStep{2}, ThreeLoss{}, g0, dnone),
      Catch::Contains("sim::rollout_gradient: argument `step`: step 0 returned array 2"));
  CHECK_THROWS_WITH(
      sim::rollout_gradient(exec, 1, state, none, HoleStep{0}, ThreeLoss{}, g0, dnone),
      Catch::Contains("step 0 returned array 0 of the state's fields() as an empty Variable"));
  CHECK(download(state) == initial);
}

TEST_CASE("rollout_gradient: a loss the last step's tape never recorded names `loss`",
          "[sim][rollout][errors]") {
  const Host exec;
  const Values initial{std::vector<double>{0.5}, std::vector<double>{1.5},
                       std::vector<double>{-0.75}};
  const auto state = upload(initial);
  auto g0 = upload(initial);
  sim::NoParams<Stored> none, dnone;
  const std::vector<double> memory{1.0};
  const RouteStep step{{0, 0, 0}};
  CHECK_THROWS_WITH(
      sim::rollout_gradient(exec, 2, state, none, step, UnrecordedLoss{&memory}, g0, dnone),
      Catch::Contains("sim::rollout_gradient: argument `loss`: returned a Variable the tape it "
                      "was given never recorded"));
  CHECK_THROWS_WITH(
      sim::rollout_gradient(exec, 2, state, none, step, UnrecordedLoss{nullptr}, g0, dnone),
      Catch::Contains("sim::rollout_gradient: argument `loss`: returned an empty Variable"));
}

TEST_CASE("rollout_gradient: a gradient that shares memory with the state or the parameters is "
          "rejected",
          "[sim][rollout][errors]") {
  const Host exec;
  const Values initial{std::vector<double>{0.5}, std::vector<double>{1.5},
                       std::vector<double>{-0.75}};
  auto state = upload(initial);
  Scalar<Stored> theta{exec::to_buffer(exec, std::vector<double>{1.0})};
  const auto step = [](auto& tape, const auto& s, const auto& p, std::int64_t) {
    return Three<sim::Tracked>{record_map(tape, 1, Mix{0}, s.a, s.b, p.y),
                               record_map(tape, 1, Mix{1}, s.a, s.b, s.c),
                               record_map(tape, 1, Mix{2}, s.a, s.b, s.c)};
  };
  const auto loss = [](auto& tape, const auto& s, const auto&) {
    return record_reduce(tape, s.a.size(), ThreeRow{}, s.a, s.b, s.c);
  };
  auto g0 = upload(initial);
  CHECK_THROWS_WITH(sim::rollout_gradient(exec, 2, state, theta, step, loss, state, theta),
                    Catch::Contains("argument `initial_gradient`: shares memory with `initial`"));
  CHECK_THROWS_WITH(sim::rollout_gradient(exec, 2, state, theta, step, loss, g0, theta),
                    Catch::Contains("argument `params_gradient`: shares memory with `params`"));
  CHECK(download(state) == initial);
  CHECK(theta.y[0] == 1.0);
  Scalar<Stored> dtheta{Buffer<double, Host>(exec, 1)};
  const auto result = sim::rollout_gradient(exec, 2, state, theta, step, loss, g0, dtheta);
  CHECK(result.recordings == 2);
}

TEST_CASE("sim state helpers refuse a cleared or destroyed tape's outputs", "[sim][errors]") {
  const Host exec;
  const Values initial{std::vector<double>{0.5, -1.0}, std::vector<double>{1.5, 0.25},
                       std::vector<double>{-0.75, 2.0}};
  auto state = upload(initial);
  const auto tracked = sim::track(state);
  Three<sim::Tracked> out;
  {
    Tape<Host> tape(exec);
    out = RouteStep{{0, 0, 0}}(tape, tracked, sim::NoParams<sim::Tracked>{}, 0);
    (void)sim::clone(exec, out); // alive: fine
  }                              // destroyed
  const auto released = Catch::Contains("array 0 of its fields() is an output of a tape that was "
                                        "cleared or destroyed");
  CHECK_THROWS_WITH(sim::clone(exec, out),
                    Catch::Contains("sim::clone: argument `state`") && released);
  CHECK_THROWS_WITH(sim::views(out), Catch::Contains("sim::views: argument `state`") && released);
  CHECK_THROWS_WITH(sim::assign(exec, out, state),
                    Catch::Contains("sim::assign: argument `from`") && released);
  CHECK_THROWS_WITH(sim::copy_into(exec, out, state),
                    Catch::Contains("sim::copy_into: argument `from`") && released);
  CHECK(download(state) == initial);

  Tape<Host> tape(exec);
  out = RouteStep{{0, 0, 0}}(tape, tracked, sim::NoParams<sim::Tracked>{}, 0);
  tape.clear();
  CHECK_THROWS_WITH(sim::clone(exec, out), released);
  out.a = Variable<double>{};
  CHECK_THROWS_WITH(sim::clone(exec, out),
                    Catch::Contains("array 0 of its fields() is an empty Variable"));
}

TEST_CASE("sim::assign and copy_into read every source before they overwrite it, whatever the "
          "arrangement of the destination's own arrays",
          "[sim]") {
  const Host exec;
  const Values initial{std::vector<double>{1, 2}, std::vector<double>{3, 4, 5},
                       std::vector<double>{6}};
  for (int routes = 0; routes < 27; ++routes) {
    const std::array<int, 3> from{routes % 3, routes / 3 % 3, routes / 9};
    CAPTURE(from[0], from[1], from[2]);
    auto state = upload(initial);
    const auto v = sim::views(state);
    const std::array<Span<const double>, 3> arrays{v.a, v.b, v.c};
    const Three<sim::Views> source{arrays[std::size_t(from[0])], arrays[std::size_t(from[1])],
                                   arrays[std::size_t(from[2])]};
    sim::assign(exec, source, state); // sizes change where the routes move arrays
    const Values expected{initial[std::size_t(from[0])], initial[std::size_t(from[1])],
                          initial[std::size_t(from[2])]};
    CHECK(download(state) == expected);
  }
  // copy_into (equal sizes): a rotation and a swap.
  const Values same{std::vector<double>{1, 2}, std::vector<double>{3, 4},
                    std::vector<double>{5, 6}};
  auto state = upload(same);
  const auto v = sim::views(state);
  sim::copy_into(exec, Three<sim::Views>{v.c, v.a, v.b}, state);
  CHECK(download(state) == Values{same[2], same[0], same[1]});
  const auto w = sim::views(state);
  sim::copy_into(exec, Three<sim::Views>{w.b, w.a, w.c}, state);
  CHECK(download(state) == Values{same[0], same[2], same[1]});
}

TEST_CASE("Buffer and record_map refuse sizes whose bytes overflow", "[sim][errors]") {
  const Host exec;
  const std::int64_t huge = std::int64_t(1) << 61;
  CHECK_THROWS_WITH((Buffer<double, Host>(exec, huge)),
                    Catch::Contains("sphad::Buffer: argument `n`: is 2305843009213693952 "
                                    "elements of 8 bytes: more than one allocation can address"));
  CHECK_THROWS_AS((Buffer<Vec<double, 3>, Host>(exec, huge / 2)), InvalidArgument);
  Tape<Host> tape(exec);
  CHECK_THROWS_AS(record_map(tape, huge, [] { return 1.0; }), InvalidArgument);
  CHECK(tape.size() == 0);
}

namespace {
/// y' = θ y.
struct ScaleBy {
  template <class Tape, class Kind, class ParamKind>
  Scalar<sim::Tracked> operator()(Tape& tape,
                                  const Scalar<Kind>& s,
                                  const Scalar<ParamKind>& theta,
                                  std::int64_t) const {
    const auto times = [](const auto& y, const auto& t) { return y * t; };
    return {record_map(tape, 1, times, s.y, theta.y)};
  }
};
/// L = y_T.
struct LastValueWith {
  template <class Tape>
  Variable<double>
  operator()(Tape&, const Scalar<sim::Tracked>& s, const Scalar<sim::Tracked>&) const {
    return s.y;
  }
};
} // namespace

TEST_CASE("sim::problem and sim::gradients: the bound call gives the spelled-out call's bits, "
          "with parameters and without",
          "[sim][rollout]") {
  const Host exec;
  const Scalar<Stored> initial{exec::to_buffer(exec, std::vector<double>{2.0})};
  SECTION("without parameters") {
    Scalar<Stored> bound{Buffer<double, Host>(exec, 1)}, spelled{Buffer<double, Host>(exec, 1)};
    const auto a = sim::rollout_gradient(exec, 50, sim::problem(initial, DecayStep{}, LastValue{}),
                                         sim::gradients(bound), {4});
    sim::NoParams<Stored> none, dnone;
    const auto b = sim::rollout_gradient(exec, 50, initial, none, DecayStep{}, LastValue{}, spelled,
                                         dnone, {4});
    CHECK(a.loss[0] == b.loss[0]);
    CHECK(bound.y[0] == spelled.y[0]);
    CHECK(a.advances == b.advances);
  }
  SECTION("with parameters") {
    const Scalar<Stored> theta{exec::to_buffer(exec, std::vector<double>{0.99})};
    Scalar<Stored> g0{Buffer<double, Host>(exec, 1)}, gt{Buffer<double, Host>(exec, 1)};
    Scalar<Stored> h0{Buffer<double, Host>(exec, 1)}, ht{Buffer<double, Host>(exec, 1)};
    const auto a = sim::rollout_gradient(
        exec, 20, sim::problem(initial, theta, ScaleBy{}, LastValueWith{}), sim::gradients(g0, gt));
    const auto b =
        sim::rollout_gradient(exec, 20, initial, theta, ScaleBy{}, LastValueWith{}, h0, ht);
    CHECK(a.loss[0] == b.loss[0]);
    CHECK(g0.y[0] == h0.y[0]);
    CHECK(gt.y[0] == ht.y[0]);
    CHECK(gt.y[0] == Approx(20 * 2.0 * std::pow(0.99, 19)).epsilon(1e-12)); // ∂(θ²⁰ y₀)/∂θ
    // The checks name the spelled-out arguments.
    Scalar<Stored> wrong{Buffer<double, Host>(exec, 2)};
    CHECK_THROWS_WITH(
        sim::rollout_gradient(exec, 20, sim::problem(initial, theta, ScaleBy{}, LastValueWith{}),
                              sim::gradients(g0, wrong)),
        Catch::Matchers::Contains("argument `params_gradient`"));
  }
}
