// SPDX-License-Identifier: MIT
// Fuzz target: rollouts of random programs — a state of three arrays (two scalar, one vector)
// and a one-element parameter; T steps (mostly up to 64, sometimes up to 2,000, rarely 10⁴ for
// one particle: 10⁵ took 22 s under the sanitizers; the unit tests run 10⁶ optimised), each output
// array either computed from every input or an input passed through (any arrangement, varying with
// the step); steps that resize the state through a gather, throw, or leave a field empty; hostile
// values (NaN, ±∞, huge, denormals) in the initial state. Checks, beyond no crash, leak, use after
// free or undefined behaviour:
// - the plain rollout ends in the same bits as the same steps recorded on one tape (which never
//   copies a state), and `rollout_gradient`'s loss is the same bits as the loss of that state;
// - the gradients are the same bits for every checkpoint budget, and equal the one tape's to
//   rounding (1e-9 relative, where every gradient is finite, for T ≤ 200: longer adjoint
//   recursions can amplify the rounding of the two summation orders without bound);
// - a step that returns an empty field is an InvalidArgument in every call; a step that throws
//   leaves the caller's initial state and parameters as they were.
#include <sphad/ad/tape.hpp>
#include <sphad/sim.hpp>
#include <sphad/sim/record_map.hpp>

#include "fuzz_input.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

using namespace sphad;

namespace {

using Host = exec::host;
using Stored = sim::Stored<Host>;
using V = Vec<double, 2>;

template <class Kind>
struct State {
  sim::Array<Kind, double> a;
  sim::Array<Kind, V> b;
  sim::Array<Kind, double> c;
  template <class Self>
  static constexpr auto fields(Self& s) {
    return std::tie(s.a, s.b, s.c);
  }
};
template <class Kind>
struct Params {
  sim::Array<Kind, double> p;
  template <class Self>
  static constexpr auto fields(Self& s) {
    return std::tie(s.p);
  }
};

/// The computed value of each field from all inputs and the parameter.
struct MixA {
  template <class A, class B, class C, class P>
  SPHAD_HOST_DEVICE auto operator()(const A& a, const B& b, const C& c, const P& p) const {
    return a * 0.95 + 0.1 * b[0] * c + 0.05 * p;
  }
};
struct MixB {
  template <class A, class B, class C, class P>
  SPHAD_HOST_DEVICE auto operator()(const A& a, const B& b, const C& c, const P& p) const {
    using R = decltype(b[0] * a + c * p);
    return Vec<R, 2>{b[0] * (1.0 - 0.1 * a) + 0.01 * c, b[1] * 0.9 + 0.02 * p * a};
  }
};
struct MixC {
  template <class A, class B, class C, class P>
  SPHAD_HOST_DEVICE auto operator()(const A& a, const B& b, const C& c, const P& p) const {
    return c * 0.9 + 0.2 * a * b[1] - 0.01 * p;
  }
};
struct LossRow {
  template <class A, class B, class C>
  SPHAD_HOST_DEVICE auto operator()(const A& a, const B& b, const C& c) const {
    return a * a + 0.5 * (b[0] * b[0] + b[1] * b[1]) + c * c * c;
  }
};
struct Scale {
  template <class S, class P>
  SPHAD_HOST_DEVICE auto operator()(const S& s, const P& p) const {
    return s * (1.0 + 0.1 * p);
  }
};

struct StepFailure {};

/// What step k does: where each output comes from (0 computed, 1..3 an input of the same type:
/// a and c are scalars, b a vector), and whether it resizes, throws or leaves a field empty.
struct Plan {
  std::vector<std::array<int, 3>> routes; ///< routes[k % size]
  std::int64_t resize_at = -1, resize_to = 0;
  std::int64_t throw_at = -1;
  std::int64_t empty_at = -1;
  int empty_field = 0;
  std::vector<std::int32_t> zeros;  ///< the parameter's broadcast index (long enough)
  std::vector<std::int32_t> resize; ///< the resize's gather index
};

struct Step {
  const Plan* plan;
  template <class Tape, class Kind, class ParamKind>
  State<sim::Tracked> operator()(Tape& tape,
                                 const State<Kind>& s,
                                 const Params<ParamKind>& theta,
                                 std::int64_t k) const {
    if (k == plan->throw_at) {
      throw StepFailure{};
    }
    std::int64_t m = s.a.size();
    State<sim::Tracked> in{Variable<double>(s.a), Variable<V>(s.b), Variable<double>(s.c)};
    auto route = plan->routes[std::size_t(k) % plan->routes.size()];
    if (k == plan->resize_at) {
      // Every field computed from a gather of the inputs to the new size.
      const Span<const std::int32_t> index{plan->resize.data(), plan->resize_to};
      in = {record_gather(tape, in.a, index), record_gather(tape, in.b, index),
            record_gather(tape, in.c, index)};
      m = plan->resize_to;
      route = {0, 0, 0};
    }
    const auto p = record_gather(tape, Variable<double>(theta.p),
                                 Span<const std::int32_t>{plan->zeros.data(), m});
    State<sim::Tracked> out;
    out.a = route[0] == 1   ? in.a
            : route[0] == 3 ? in.c
                            : record_map(tape, m, MixA{}, in.a, in.b, in.c, p);
    out.b = route[1] != 0 ? in.b : record_map(tape, m, MixB{}, in.a, in.b, in.c, p);
    out.c = route[2] == 1   ? in.a
            : route[2] == 3 ? in.c
                            : record_map(tape, m, MixC{}, in.a, in.b, in.c, p);
    if (k == plan->empty_at) {
      if (plan->empty_field == 0) {
        out.a = Variable<double>{};
      } else if (plan->empty_field == 1) {
        out.b = Variable<V>{};
      } else {
        out.c = Variable<double>{};
      }
    }
    return out;
  }
};

/// L = (1 + 0.1 p) Σ_i (a_i² + ½|b_i|² + c_i³).
struct Loss {
  template <class Tape>
  Variable<double>
  operator()(Tape& tape, const State<sim::Tracked>& s, const Params<sim::Tracked>& theta) const {
    const auto sum = record_reduce(tape, s.a.size(), LossRow{}, s.a, s.b, s.c);
    return record_map(tape, 1, Scale{}, sum, theta.p);
  }
};

std::vector<double> flatten(const State<Stored>& s, const Params<Stored>& theta) {
  std::vector<double> out;
  for (std::int64_t i = 0; i < s.a.size(); ++i) {
    out.push_back(s.a[i]);
  }
  for (std::int64_t i = 0; i < s.b.size(); ++i) {
    out.push_back(s.b[i][0]);
    out.push_back(s.b[i][1]);
  }
  for (std::int64_t i = 0; i < s.c.size(); ++i) {
    out.push_back(s.c[i]);
  }
  out.push_back(theta.p[0]);
  return out;
}

bool same_bits(const std::vector<double>& x, const std::vector<double>& y) {
  return x.size() == y.size() && fuzz::same_bits(x.data(), y.data(), std::int64_t(x.size()));
}

template <class E>
std::vector<E> host_copy(const Variable<E>& v) {
  return std::vector<E>(v.data(), v.data() + v.size());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Bytes in(data, size);
  const Host exec;
  // Sizes and the step count: mostly small; sometimes long; rarely 10⁴ steps of one particle.
  const std::uint8_t length = in.byte();
  std::int64_t n = in.small(0, 4);
  std::int64_t steps = in.small(1, 64);
  if (length >= 252) {
    n = 1;
    steps = in.integer(1, 10'000); // past the recursion's depth under the sanitizers
  } else if (length >= 232) {
    steps = in.integer(1, 2'000);
  }
  Plan plan;
  const std::int64_t routes = in.small(1, 4);
  for (std::int64_t r = 0; r < routes; ++r) {
    // A scalar field is computed (0) or one of the scalar inputs a (1), c (3); the vector b is
    // computed or passed through (1).
    constexpr int scalar_routes[] = {0, 1, 3};
    plan.routes.push_back(
        {scalar_routes[in.small(0, 2)], int(in.small(0, 1)), scalar_routes[in.small(0, 2)]});
  }
  if (in.byte() >= 192) {
    plan.resize_at = in.integer(0, steps - 1);
    plan.resize_to = in.small(0, 5);
  }
  if (in.byte() >= 224) {
    plan.throw_at = in.integer(0, steps - 1);
  }
  if (in.byte() >= 224) {
    plan.empty_at = in.integer(0, steps - 1);
    plan.empty_field = int(in.small(0, 2));
  }
  plan.zeros.assign(8, 0);
  State<Stored> initial{Buffer<double, Host>(exec, n), Buffer<V, Host>(exec, n),
                        Buffer<double, Host>(exec, n)};
  for (std::int64_t i = 0; i < n; ++i) {
    initial.a[i] = in.real(-1, 1);
    initial.b[i] = in.point<2>(-1, 1);
    initial.c[i] = in.real(-1, 1);
  }
  // A resize gathers from the size the state has then: n until the first resize.
  if (plan.resize_at >= 0) {
    if (n == 0) {
      plan.resize_to = 0;
    }
    for (std::int64_t i = 0; i < plan.resize_to; ++i) {
      plan.resize.push_back(std::int32_t((i * 7 + 3) % std::max<std::int64_t>(n, 1)));
    }
  }
  const Params<Stored> theta{exec::to_buffer(exec, std::vector<double>{in.real(-1, 1)})};
  const Step step{&plan};
  const auto before = flatten(initial, theta);
  const bool empty_reached = plan.empty_at >= 0 && plan.empty_at < steps &&
                             !(plan.throw_at >= 0 && plan.throw_at <= plan.empty_at);

  // The oracle: every step recorded on one tape (no state is ever copied).
  Tape<Host> whole(exec);
  const auto tracked = sim::track(initial);
  const auto tracked_theta = sim::track(theta);
  std::vector<double> final_values, loss_one;
  std::vector<double> gradient_one;
  bool oracle = false;
  try {
    State<sim::Tracked> s = tracked;
    for (std::int64_t k = 0; k < steps; ++k) {
      s = step(whole, s, tracked_theta, k);
      sim::views(s); // an empty field stops here, as in the rollouts
    }
    const auto l = Loss{}(whole, s, tracked_theta);
    loss_one = host_copy(l);
    for (const double x : host_copy(s.a)) {
      final_values.push_back(x);
    }
    for (const V& x : host_copy(s.b)) {
      final_values.push_back(x[0]);
      final_values.push_back(x[1]);
    }
    for (const double x : host_copy(s.c)) {
      final_values.push_back(x);
    }
    final_values.push_back(theta.p[0]);
    whole.backward(l);
    // The gradient of every input, 0 for one the loss never reached.
    const auto take = [&](const auto& v, int scalars) {
      for (std::int64_t i = 0; i < v.size() * scalars; ++i) {
        gradient_one.push_back(0.0);
      }
      try {
        const auto g = whole.gradient(v);
        const auto* first = reinterpret_cast<const double*>(g.data());
        std::copy(first, first + g.size() * scalars, gradient_one.end() - g.size() * scalars);
      } catch (const InvalidArgument&) {
      }
    };
    take(tracked.a, 1);
    take(tracked.b, 2);
    take(tracked.c, 1);
    take(tracked_theta.p, 1);
    oracle = true;
  } catch (const StepFailure&) {
  } catch (const InvalidArgument&) {
  }
  if (empty_reached && oracle) {
    fuzz::finding("a step's empty field was not rejected on one tape");
  }

  // The plain rollout.
  auto state = sim::clone(exec, initial);
  bool plain = false;
  try {
    sim::rollout(exec, steps, state, theta, step);
    plain = true;
  } catch (const StepFailure&) {
  } catch (const InvalidArgument&) {
    if (!empty_reached) {
      fuzz::finding("the plain rollout threw InvalidArgument for a valid program");
    }
  }
  if (plain != oracle) {
    fuzz::finding("the plain rollout and the one tape disagree on whether the program runs");
  }
  if (plain && !same_bits(flatten(state, theta), final_values)) {
    fuzz::finding("the plain rollout's final state differs from the one tape's");
  }

  // rollout_gradient for several budgets: the same bits each time.
  // Budget 1 costs T²/2 advances and 2 about T·√(2T): kept for short rollouts; a long one
  // takes at least 16 checkpoints (a few passes).
  std::vector<std::int64_t> budgets{0, in.integer(1, steps)};
  if (steps <= 24) {
    budgets.push_back(1);
  }
  if (steps <= 500) {
    budgets.push_back(2);
  } else if (budgets[1] < 16) {
    budgets[1] = 16;
  }
  std::vector<double> first_gradient, first_loss;
  for (const std::int64_t budget : budgets) {
    auto g0 = sim::clone(exec, initial);
    auto gp = sim::clone(exec, theta);
    bool ran = false;
    std::vector<double> loss;
    try {
      const auto result =
          sim::rollout_gradient(exec, steps, initial, theta, step, Loss{}, g0, gp, {budget});
      loss.push_back(result.loss[0]);
      ran = true;
    } catch (const StepFailure&) {
    } catch (const InvalidArgument&) {
      if (!empty_reached) {
        fuzz::finding("rollout_gradient threw InvalidArgument for a valid program");
      }
    }
    if (!same_bits(flatten(initial, theta), before)) {
      fuzz::finding("rollout_gradient changed its initial state or parameters");
    }
    if (ran != oracle) {
      fuzz::finding("rollout_gradient and the one tape disagree on whether the program runs");
    }
    if (!ran) {
      continue;
    }
    if (!same_bits(loss, loss_one)) {
      fuzz::finding("rollout_gradient's loss differs from the one tape's");
    }
    const auto gradient = flatten(g0, gp);
    if (first_gradient.empty()) {
      first_gradient = gradient;
    } else if (!same_bits(gradient, first_gradient)) {
      fuzz::finding("two checkpoint budgets gave different gradients");
    }
  }
  // Against the one tape only for short rollouts: the two add an array's adjoint contributions
  // in other orders, and over hundreds of steps the adjoint recursion can amplify that rounding
  // to any size (seen: 15 % at T = 3,330 with gradients of 1e4, while every budget agreed to the
  // bit); long rollouts are held to the same bits across budgets and the one tape's primal.
  if (oracle && !first_gradient.empty() && steps <= 200) {
    bool finite = gradient_one.size() == first_gradient.size();
    double scale = 1.0;
    for (std::size_t i = 0; finite && i < gradient_one.size(); ++i) {
      finite = std::isfinite(gradient_one[i]) && std::isfinite(first_gradient[i]) &&
               std::abs(gradient_one[i]) < 1e150;
      scale = std::max(scale, std::abs(gradient_one[i]));
    }
    for (std::size_t i = 0; finite && i < gradient_one.size(); ++i) {
      if (!(std::abs(gradient_one[i] - first_gradient[i]) <= 1e-9 * scale)) {
        std::fprintf(stderr, "T %lld, n %lld, resize at %lld to %lld; entry %zu:\n",
                     static_cast<long long>(steps), static_cast<long long>(n),
                     static_cast<long long>(plan.resize_at), static_cast<long long>(plan.resize_to),
                     i);
        for (std::size_t k = 0; k < gradient_one.size(); ++k) {
          std::fprintf(stderr, "  one tape %.17g rollout %.17g\n", gradient_one[k],
                       first_gradient[k]);
        }
        fuzz::finding("rollout_gradient differs from the one tape's gradient beyond rounding");
      }
    }
  }
  return 0;
}
