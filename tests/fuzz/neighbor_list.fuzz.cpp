// SPDX-License-Identifier: MIT
// Fuzz target: neighbour lists a user hands in. A hand-made list (arbitrary offsets, indices,
// sizes) goes through `validate`, `apply`, `record` and `backward`, `transpose_neighbor_list`
// and `copy_neighbor_list`, checked or not; a searched Verlet list is filtered against particle
// sets that moved, grew or shrank. Checks: no crash, leak or undefined behaviour; whatever
// `validate` accepts, the operators accept; an accepted call gives the same bits when repeated.
#include <sphad/ad/tape.hpp>
#include <sphad/ops.hpp>
#include <sphad/search.hpp>

#include "fuzz_input.hpp"
#include "hand_made_list.hpp"

#include <cstdint>
#include <vector>

using namespace sphad;

namespace {

constexpr int D = 2;
using V = Vec<double, D>;
using Density = ops::Density<kernels::Wendland2>;
using Gradient =
    ops::Gradient<kernels::Wendland2, GradientScheme::Difference, SupportScheme::Scatter>;

struct Particles {
  std::vector<V> x;
  std::vector<double> h, m, rho, f;
  std::vector<std::int32_t> kinds;

  Particles(fuzz::Bytes& in, std::int64_t n) {
    for (std::int64_t i = 0; i < n; ++i) {
      x.push_back(in.byte() >= 250 ? in.point<D>(-1, 1) : V{in.real(-1, 1), in.real(-1, 1)});
      h.push_back(in.byte() >= 250 ? in.real(0.2, 0.9) : 0.6);
      m.push_back(0.05);
      rho.push_back(1.0);
      f.push_back(double(i % 3));
      kinds.push_back(0);
    }
  }
  std::int64_t size() const { return std::int64_t(x.size()); }
  ParticleSet<D, double> view() const {
    return {{x.data(), size()},
            {h.data(), size()},
            {m.data(), size()},
            {kinds.data(), size()},
            {rho.data(), size()}};
  }
  Span<const double> field() const { return {f.data(), size()}; }
};

const Domain<D, double> domain{{-1, -1}, {1, 1}, {false, false}};

/// Density and a Scatter gradient over `list`, each twice (the same bits), then recorded and
/// swept backward. Returns whether `apply` accepted the list.
bool use(const NeighborList<exec::host>& list, const Particles& q, const Particles& r) {
  const exec::host ex;
  std::vector<double> rho;
  if (!fuzz::accepts([&] {
        const auto a = apply<Density>(ex, q.view(), r.view(), domain, list);
        rho.assign(a.data(), a.data() + a.size());
      })) {
    return false;
  }
  const auto again = apply<Density>(ex, q.view(), r.view(), domain, list);
  if (!fuzz::same_bits(rho.data(), again.data(), again.size())) {
    fuzz::finding("the same Density gave different bits");
  }
  fuzz::accepts(
      [&] { apply<Gradient>(ex, q.view(), r.view(), domain, list, q.field(), r.field()); });
  for (const auto sums : {ReferenceSums::automatic, ReferenceSums::pair_slots}) {
    Tape<exec::host> tape(ex, TapeOptions{sums});
    const Variable<V> xq(Span<V>{const_cast<V*>(q.x.data()), q.size()});
    const Variable<V> xr(Span<V>{const_cast<V*>(r.x.data()), r.size()});
    Variable<double> out;
    if (!fuzz::accepts([&] {
          out = record<Density>(tape, q.view().with_positions(xq), r.view().with_positions(xr),
                                domain, list);
        })) {
      fuzz::finding("record rejected a list that apply accepted");
    }
    if (!fuzz::same_bits(rho.data(), out.data(), out.size())) {
      fuzz::finding("record and apply disagree");
    }
    const std::vector<double> seed(std::size_t(out.size()), 1.0);
    tape.backward(out, Span<const double>{seed.data(), out.size()});
    const auto g = tape.gradient(xr);
    const std::vector<V> first(g.data(), g.data() + g.size());
    tape.backward(out, Span<const double>{seed.data(), out.size()});
    if (!fuzz::same_bits(first.data(), tape.gradient(xr).data(), g.size())) {
      fuzz::finding("two sweeps gave different gradients");
    }
  }
  return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Bytes in(data, size);
  const exec::host ex;
  const std::int64_t nq = in.small(0, 10);
  const std::int64_t nr = in.small(0, 10);
  const Particles q(in, nq);
  const Particles r(in, nr);

  switch (in.small(0, 1)) {
  case 0: { // a hand-made list, used as it is and after `validate`
    auto list = fuzz::hand_made_list(in, nq, nr);
    const std::int64_t claimed = in.byte() >= 240 ? in.small(-1, 12) : nr;
    const bool used = use(list, q, r);
    fuzz::accepts([&] { copy_neighbor_list(ex, list); });
    const bool valid = fuzz::accepts([&] { validate(ex, list, claimed); });
    if (valid) {
      // The per-call check of an unchecked list and `validate` accept the same lists.
      if (use(list, q, r) != used && claimed == nr && list.num_queries == nq) {
        fuzz::finding("validate and the per-call check of a hand-made list disagree");
      }
      NeighborList<exec::host> transposed;
      if (fuzz::accepts([&] { transposed = transpose_neighbor_list(ex, list, claimed); }) &&
          claimed == nr && list.num_queries == nq) {
        use(transposed, r, q);
      }
    } else {
      // Unchecked lists are checked by every call that takes them.
      fuzz::accepts([&] { transpose_neighbor_list(ex, list, nr); });
    }
    break;
  }
  default: { // a Verlet list, filtered after the particles moved, grew or changed in number
    const double skin = in.real(0, 0.3);
    const SupportScheme built = static_cast<SupportScheme>(in.small(10, 17));
    const SupportScheme filtered = static_cast<SupportScheme>(in.small(10, 17));
    VerletList<D, double, exec::host> verlet;
    if (!fuzz::accepts([&] {
          verlet = kernels::dispatch(built, [&](auto s) {
            return build_verlet_list<decltype(s)::value>(ex, q.view().search_points(),
                                                         r.view().search_points(), domain, skin);
          });
        })) {
      break;
    }
    const Particles moved_q(in, in.byte() >= 240 ? in.small(0, 10) : nq);
    const Particles moved_r(in, in.byte() >= 240 ? in.small(0, 10) : nr);
    NeighborList<exec::host> list;
    if (fuzz::accepts([&] {
          list = kernels::dispatch(filtered, [&](auto s) {
            return filter_verlet_list<decltype(s)::value>(
                ex, verlet, moved_q.view().search_points(), moved_r.view().search_points(), domain);
          });
        })) {
      use(list, moved_q, moved_r);
    }
    break;
  }
  }
  return 0;
}
