// SPDX-License-Identifier: MIT
// Fuzz target: the tape under random sequences of what a program does with it — record
// operators and row-wise maps on two tapes (mixing their outputs), sweep backward (seeds of
// the right size or not, seeds that are views of the tape's own gradients, accumulating or
// not), read gradients, write recorded arrays, clear a tape, destroy and remake it.
// Checks: no crash, leak, use after free or undefined behaviour; a sweep repeated with the
// same seed gives the same bits.
#include <sphad/ad/tape.hpp>
#include <sphad/ops.hpp>
#include <sphad/search.hpp>

#include "fuzz_input.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

using namespace sphad;

namespace {

constexpr int D = 2;
using V = Vec<double, D>;
using Density = ops::Density<kernels::Wendland2, SupportScheme::SuperSymmetric>;
using Gradient =
    ops::Gradient<kernels::Wendland2, GradientScheme::Difference, SupportScheme::SuperSymmetric>;

const Domain<D, double> domain{{-1, -1}, {1, 1}, {false, false}};

struct Mul {
  template <class A, class B>
  SPHAD_HOST_DEVICE auto operator()(const A& a, const B& b) const {
    return a * b;
  }
};

/// What the program holds: its own arrays (positions, supports, masses, densities, a field),
/// the variables tracking them, and every output a tape gave it.
struct Program {
  std::int64_t n;
  std::array<std::vector<V>, 2> x;
  std::vector<double> h, m, rho, f;
  std::vector<std::int32_t> kinds;
  NeighborList<exec::host> list;
  std::vector<Variable<V>> vectors; // leaves first, then outputs
  std::vector<Variable<double>> scalars;
  std::array<std::optional<Tape<exec::host>>, 2> tapes;

  Program(fuzz::Bytes& in, std::int64_t size) : n(size) {
    for (std::int64_t i = 0; i < n; ++i) {
      const V p{in.real(-0.9, 0.9), in.real(-0.9, 0.9)};
      x[0].push_back(p);
      x[1].push_back(p);
      h.push_back(0.8);
      m.push_back(0.05);
      rho.push_back(1.0);
      f.push_back(in.real(-1, 1));
      kinds.push_back(0);
    }
    vectors.emplace_back(Span<V>{x[0].data(), n});
    vectors.emplace_back(Span<V>{x[1].data(), n});
    scalars.emplace_back(Span<double>{f.data(), n});
    tapes[0].emplace(exec::host{}, TapeOptions{ReferenceSums::automatic});
    tapes[1].emplace(exec::host{}, TapeOptions{ReferenceSums::pair_slots});
  }

  ParticleSet<D, double> set() const {
    return {{x[0].data(), n}, {h.data(), n}, {m.data(), n}, {kinds.data(), n}, {rho.data(), n}};
  }

  /// A variable from `pool` that is safe to dereference (an output whose tape freed it stays in
  /// the pool: recording or seeding it must throw, but reading it is the caller's error).
  template <class E>
  const Variable<E>& pick(fuzz::Bytes& in, const std::vector<Variable<E>>& pool) const {
    return pool[std::size_t(in.byte()) % pool.size()];
  }
};

template <class E>
bool alive(const Variable<E>& v) {
  return v.state != nullptr && !v.state->released;
}

/// Sweeps `tape` from `output` with ones, twice, and compares every leaf's gradient.
template <class E>
void sweep_twice(Program& p, Tape<exec::host>& tape, const Variable<E>& output, bool accumulate) {
  E one{};
  if constexpr (std::is_same_v<E, double>) {
    one = 1.0;
  } else {
    one = V{1.0, 1.0};
  }
  const std::vector<E> seed(std::size_t(output.size()), one);
  const Span<const E> adjoint{seed.data(), std::int64_t(seed.size())};
  if (!fuzz::accepts([&] { tape.backward(output, adjoint, BackwardOptions{accumulate}); })) {
    return;
  }
  std::vector<std::vector<V>> first;
  for (std::size_t k = 0; k < 2; ++k) {
    std::vector<V> g;
    fuzz::accepts([&] {
      const auto s = tape.gradient(p.vectors[k]);
      g.assign(s.data(), s.data() + s.size());
    });
    first.push_back(g);
  }
  tape.backward(output, adjoint);
  tape.backward(output, adjoint);
  for (std::size_t k = 0; k < 2; ++k) {
    fuzz::accepts([&] {
      const auto s = tape.gradient(p.vectors[k]);
      if (!accumulate && (first[k].size() != std::size_t(s.size()) ||
                          !fuzz::same_bits(first[k].data(), s.data(), s.size()))) {
        fuzz::finding("two sweeps with the same seed gave different gradients");
      }
    });
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Bytes in(data, size);
  Program p(in, in.small(1, 8));
  if (!fuzz::accepts([&] {
        p.list = build_neighbor_list<SupportScheme::SuperSymmetric>(
            exec::host{}, p.set().search_points(), p.set().search_points(), domain);
      })) {
    return 0; // positions outside the domain or not finite: nothing to record
  }
  for (int step = 0; step < 48 && !in.empty(); ++step) {
    const std::size_t t = in.byte() % 2;
    if (!p.tapes[t]) {
      p.tapes[t].emplace(
          exec::host{}, TapeOptions{t == 0 ? ReferenceSums::automatic : ReferenceSums::pair_slots});
    }
    Tape<exec::host>& tape = *p.tapes[t];
    switch (in.small(0, 9)) {
    case 0: { // Density with tracked positions
      const auto& xq = p.pick(in, p.vectors);
      const auto& xr = p.pick(in, p.vectors);
      fuzz::accepts([&] {
        p.scalars.push_back(record<Density>(tape, p.set().with_positions(xq),
                                            p.set().with_positions(xr), domain, p.list));
      });
      break;
    }
    case 1: { // the gradient of a tracked field
      const auto& xq = p.pick(in, p.vectors);
      const auto& fq = p.pick(in, p.scalars);
      const auto& fr = p.pick(in, p.scalars);
      fuzz::accepts([&] {
        p.vectors.push_back(
            record<Gradient>(tape, p.set().with_positions(xq), p.set(), domain, p.list, fq, fr));
      });
      break;
    }
    case 2: { // a row-wise product of two scalar arrays
      const auto& a = p.pick(in, p.scalars);
      const auto& b = p.pick(in, p.scalars);
      fuzz::accepts([&] { p.scalars.push_back(record_map(tape, p.n, Mul{}, a, b)); });
      break;
    }
    case 3: { // a vector array scaled row by row
      const auto& a = p.pick(in, p.vectors);
      const auto& b = p.pick(in, p.scalars);
      fuzz::accepts([&] { p.vectors.push_back(record_map(tape, p.n, Mul{}, a, b)); });
      break;
    }
    case 4: { // sweep from a scalar output
      const auto& out = p.pick(in, p.scalars);
      sweep_twice(p, tape, out, in.flag());
      break;
    }
    case 5: { // sweep from a vector output, the seed of the wrong size or a view of the
              // tape's own gradient memory
      const auto& out = p.pick(in, p.vectors);
      if (in.flag()) {
        sweep_twice(p, tape, out, false);
      } else if (in.flag()) {
        std::vector<V> seed(std::size_t(in.small(0, 9)), V{1.0, -1.0});
        fuzz::accepts([&] {
          tape.backward(out, Span<const V>{seed.data(), std::int64_t(seed.size())});
        });
      } else {
        fuzz::accepts([&] { tape.backward(out, tape.gradient(out)); });
      }
      break;
    }
    case 6: { // read a gradient
      const auto& v = p.pick(in, p.vectors);
      fuzz::accepts([&] {
        const auto g = tape.gradient(v);
        double sum = 0;
        for (std::int64_t i = 0; i < g.size(); ++i) {
          sum += g[i][0] + g[i][1];
        }
        (void)sum;
      });
      break;
    }
    case 7: { // write an array that may have been recorded (its records then cannot be swept)
      const auto& v = p.pick(in, p.scalars);
      if (alive(v) && v.size() > 0) {
        v.write()[0] += 1.0;
      }
      break;
    }
    case 8:
      tape.clear();
      break;
    default:
      p.tapes[t].reset();
      break;
    }
  }
  return 0;
}
