// SPDX-License-Identifier: MIT
// The host reverse sweep's chunks of rows (pairloop/reverse/row_chunks.hpp): their count follows
// from the list alone — many for references near their queries, fewer when the windows of
// references they reach would outgrow the scratch —, every entry lies in its chunk's window, and a
// sweep over 16 chunks (more than the threads of the 8 whole arrays before windows) gives the same
// gradient bits on 1, 2 and 3 threads, agreeing with per-pair slots. A record finds its chunks
// while it copies the list: the same chunks, and the same entries.
#include <sphad/ops.hpp>
#include <sphad/search.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#if SPHAD_HAS_OPENMP
#include <omp.h>
#endif

using namespace sphad;
using pairloop::RowChunks;

namespace {

/// A list of n rows of `per_row` entries: each row's references around its own index
/// (`near`), or anywhere (random).
struct SyntheticList {
  std::vector<std::int64_t> offsets;
  std::vector<std::int32_t> neighbors;
  SyntheticList(std::int64_t n, int per_row, bool near) {
    std::mt19937 rng(5);
    std::uniform_int_distribution<std::int32_t> any(0, std::int32_t(n - 1));
    offsets.push_back(0);
    for (std::int64_t i = 0; i < n; ++i) {
      for (int k = 0; k < per_row; ++k) {
        neighbors.push_back(near ? std::int32_t((i + n + k - per_row / 2) % n) : any(rng));
      }
      offsets.push_back(std::int64_t(neighbors.size()));
    }
  }
};

void check_windows(const RowChunks& chunks, const SyntheticList& list, std::int64_t n) {
  REQUIRE(chunks.first_row.front() == 0);
  REQUIRE(chunks.first_row.back() == n);
  for (int c = 0; c < chunks.count; ++c) {
    const auto w = std::size_t(c);
    CHECK(chunks.first_row[w] <= chunks.first_row[w + 1]);
    CHECK(chunks.at[w + 1] - chunks.at[w] == chunks.hi[w] - chunks.lo[w]);
    for (std::int64_t k = list.offsets[std::size_t(chunks.first_row[w])];
         k < list.offsets[std::size_t(chunks.first_row[w + 1])]; ++k) {
      const auto j = list.neighbors[std::size_t(k)];
      if (j < chunks.lo[w] || j >= chunks.hi[w]) {
        FAIL("entry " << k << " (reference " << j << ") outside chunk " << c << "'s window");
      }
    }
  }
  CHECK(chunks.references() <= 8 * n);
}

} // namespace

TEST_CASE("row chunks: many for near references, fewer for random ones, windows hold every "
          "entry",
          "[record][chunks]") {
  const std::int64_t n = 100000;
  const SyntheticList near(n, 42, true), random(n, 42, false); // 4.2 M pairs: 64 × 65536
  const RowChunks many(near.offsets.data(), near.neighbors.data(), n, n);
  CHECK(many.count == 64);
  // Each window a 64th of the set plus the rows' reach; the first and last chunks' rows reach
  // around the ends (the whole set).
  CHECK(many.references() < 4 * n);
  check_windows(many, near, n);
  const RowChunks fewer(random.offsets.data(), random.neighbors.data(), n, n);
  CHECK(fewer.count == 8); // every window nearly the whole set: 8 of them fill the scratch
  check_windows(fewer, random, n);
  // Without reference-side sums: the most chunks the pairs allow, no windows.
  const RowChunks plain(random.offsets.data(), random.neighbors.data(), n, n, false);
  CHECK(plain.count == 64);
  CHECK(plain.references() == 0);
  // Short lists: one chunk per whole 65536 pairs, a power of two.
  const SyntheticList short_list(5000, 42, true); // 210000 pairs: 3 → 2
  CHECK(RowChunks(short_list.offsets.data(), short_list.neighbors.data(), 5000, 5000).count == 2);
  const SyntheticList empty(0, 0, true);
  const RowChunks none(empty.offsets.data(), empty.neighbors.data(), 0, 0);
  CHECK(none.count == 1);
  CHECK(none.references() == 0);
}

/// The chunks' members equal.
void check_same_chunks(const RowChunks& a, const RowChunks& b) {
  CHECK(a.count == b.count);
  CHECK(a.first_row == b.first_row);
  CHECK(a.lo == b.lo);
  CHECK(a.hi == b.hi);
  CHECK(a.at == b.at);
}

TEST_CASE("row chunks: found while copying the entries, the same chunks and an exact copy",
          "[record][chunks]") {
  const std::int64_t n = 100000;
  for (const bool near : {true, false}) {
    for (const bool windows : {true, false}) {
      INFO("near " << near << ", windows " << windows);
      const SyntheticList list(n, 42, near);
      std::vector<std::int32_t> copy(list.neighbors.size(), -7);
      const RowChunks copying(list.offsets.data(), list.neighbors.data(), n, n, windows,
                              copy.data());
      check_same_chunks(copying,
                        RowChunks(list.offsets.data(), list.neighbors.data(), n, n, windows));
      CHECK(copy == list.neighbors);
    }
  }
  // Through a record's copy of a built list: the list copied whole, the chunks those of the copy.
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<Vec<double, 2>> x(3000);
  for (auto& p : x) {
    p = {unit(rng), unit(rng)};
  }
  const std::vector<double> h(x.size(), 0.04);
  const Domain<2, double> domain{{0, 0}, {1, 1}, {true, true}};
  const SearchPoints<2, double> points{Span<const Vec<double, 2>>(x), Span<const double>(h)};
  const auto list =
      build_neighbor_list<SupportScheme::Gather>(exec::host{}, points, points, domain);
  const auto [copy, recorded] =
      pairloop::copy_with_chunks(exec::host{}, list, std::int64_t(x.size()), true, true);
  REQUIRE(recorded.chunks.has_value());
  CHECK(copy.num_pairs == list.num_pairs);
  CHECK(std::vector<std::int32_t>(copy.neighbors.data(), copy.neighbors.data() + copy.num_pairs) ==
        std::vector<std::int32_t>(list.neighbors.data(), list.neighbors.data() + list.num_pairs));
  CHECK(std::vector<std::int64_t>(copy.offsets.data(), copy.offsets.data() + x.size() + 1) ==
        std::vector<std::int64_t>(list.offsets.data(), list.offsets.data() + x.size() + 1));
  check_same_chunks(*recorded.chunks, RowChunks(copy.offsets.data(), copy.neighbors.data(),
                                                copy.num_queries, std::int64_t(x.size())));
  // Summing by pair slots: a plain copy, no chunks.
  CHECK_FALSE(pairloop::copy_with_chunks(exec::host{}, list, std::int64_t(x.size()), false, true)
                  .second.chunks.has_value());
}

#if SPHAD_HAS_OPENMP
TEST_CASE("row chunks: a sweep over 16 chunks gives the same bits on 1, 2 and 3 threads",
          "[record][chunks][vjp]") {
  // 160 × 160 jittered lattice, ~48 neighbours each: 1.2 M pairs, 16 chunks.
  constexpr int side = 160;
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> jitter(-0.3, 0.3);
  std::vector<Vec<double, 2>> x;
  std::vector<double> h, m;
  for (int a = 0; a < side; ++a) {
    for (int b = 0; b < side; ++b) {
      x.push_back({(a + jitter(rng)) / side, (b + jitter(rng)) / side});
      h.push_back((3.9 + jitter(rng)) / side);
      m.push_back(1.0 + jitter(rng));
    }
  }
  const auto n = std::int64_t(x.size());
  const Domain<2, double> domain{{0, 0}, {1, 1}, {true, true}};
  const std::vector<double> rho(x.size(), 1.0);
  const std::vector<std::int32_t> kinds(x.size(), 0);
  const ParticleSet<2, double> plain{Span<const Vec<double, 2>>(x), Span<const double>(h),
                                     Span<const double>(m), Span<const std::int32_t>(kinds),
                                     Span<const double>(rho)};
  const auto list = build_neighbor_list<SupportScheme::Scatter>(exec::host{}, plain.search_points(),
                                                                plain.search_points(), domain);
  REQUIRE(list.num_pairs >= 16 * 65536);
  CHECK(RowChunks(list.offsets.data(), list.neighbors.data(), n, n).count == 16);
  std::vector<double> seed(x.size());
  for (std::size_t k = 0; k < seed.size(); ++k) {
    seed[k] = std::sin(0.1 * double(k));
  }
  const auto gradients = [&](int threads, ReferenceSums sums) {
    const int before = omp_get_max_threads();
    omp_set_num_threads(threads);
    auto xs = x;
    auto hs = h;
    const Variable<Vec<double, 2>> xv(xs);
    const Variable<double> hv(hs);
    Tape<exec::host> tape(exec::host{}, TapeOptions{sums});
    const auto s = plain.with_positions(xv).with_supports(hv);
    const auto y =
        record<ops::Density<kernels::Wendland4, SupportScheme::Scatter>>(tape, s, s, domain, list);
    tape.backward(y, Span<const double>(seed));
    std::vector<double> out;
    const auto gx = tape.gradient(xv);
    const auto gh = tape.gradient(hv);
    for (std::int64_t i = 0; i < n; ++i) {
      out.push_back(gx[i][0]);
      out.push_back(gx[i][1]);
      out.push_back(gh[i]);
    }
    omp_set_num_threads(before);
    return out;
  };
  const auto one = gradients(1, ReferenceSums::automatic);
  CHECK(one == gradients(2, ReferenceSums::automatic));
  CHECK(one == gradients(3, ReferenceSums::automatic));
  const auto slots = gradients(2, ReferenceSums::pair_slots);
  double scale = 0, worst = 0;
  for (std::size_t k = 0; k < one.size(); ++k) {
    scale = std::max(scale, std::abs(one[k]));
    worst = std::max(worst, std::abs(one[k] - slots[k]));
  }
  CHECK(scale > 0);
  CHECK(worst <= 1e-12 * scale);
}
#endif
