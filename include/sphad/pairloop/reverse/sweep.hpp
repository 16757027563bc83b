// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/tape.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/host.hpp>
#include <sphad/exec/lanes.hpp>
#include <sphad/pairloop/lane_sums.hpp>
#include <sphad/pairloop/pack_lanes.hpp>
#include <sphad/pairloop/reverse/gradient_targets.hpp>
#include <sphad/pairloop/reverse/policy.hpp>
#include <sphad/pairloop/reverse/row_chunks.hpp>
#include <sphad/pairloop/vocabulary.hpp>
#include <sphad/search/neighbor_list.hpp>
#include <sphad/search/transpose.hpp>
#include <sphad/simd/pack.hpp>
#include <sphad/simd/pack_memory.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <type_traits>

/// \file
/// \brief The reverse sweep over a record's list: the rows' pairs give their directions, the
/// queries sum their rows, and the references sum their pairs' adjoints in a fixed order (the
/// host: per chunk of rows, then over the chunks; CUDA: each pair stores them and the references
/// gather over the entries grouped by reference). No atomics: bitwise reproducible on any thread
/// count.

namespace sphad::pairloop {

/// The reference side's adjoints of pair k = (i, j) stored in the pair's own slot
/// (`Dirs::per_pair` scalars at k · P; zeros for a filtered pair), for the gather over the
/// transposed entries (`GatherPairAdjoints`): how the CUDA sweep avoids atomics.
template <int P, class S>
struct PairSlots {
  S* data;
  static constexpr bool clears_filtered = true;
  SPHAD_HOST_DEVICE SPHAD_INLINE void prefetch(std::int32_t) const {}
  SPHAD_HOST_DEVICE SPHAD_INLINE void clear(std::int64_t k) const {
    SPHAD_PRAGMA_UNROLL
    for (int c = 0; c < P; ++c) {
      data[k * P + c] = S(0);
    }
  }
  SPHAD_HOST_DEVICE SPHAD_INLINE void put(std::int64_t k, std::int32_t, const S* v) const {
    SPHAD_PRAGMA_UNROLL
    for (int c = 0; c < P; ++c) {
      data[k * P + c] = v[c];
    }
  }
#if SPHAD_HAS_PACKS
  /// `put` of −g for the P scalars g as one pack.
  SPHAD_INLINE void put_negated(std::int64_t k, std::int32_t, simd::Pack<S, P> g) const {
    simd::store(data + k * P, -g);
  }
#endif
};

/// Row i of the reverse pass: each accepted pair (i, j) gives its K directions (`Pairs`, the
/// pair's gradient contracted with ȳ_i); the query side's are summed over the row and added
/// to the query targets at i, the reference side's (`Dirs::per_pair` scalars, x_j's negated)
/// go to `Sink` (`PairSlots` or `ChunkSums`). N: the most query targets (`GradientTargets`);
/// `Policy`: the space's `ReversePolicy`.
template <class Dirs, class S, class OutPrimal, class Pairs, class Sink, int N, class Policy>
struct RowAdjoints {
  static constexpr int K = Dirs::total;
  static constexpr int P = Dirs::per_pair;
  Pairs pairs;
  const std::int64_t* offsets;
  const std::int32_t* neighbors;
  const OutPrimal* ybar;
  GradientTargets<S, N> targets;
  Sink references;
  /// Whether the host loop asks the caches for the references ahead (`references_are_near`).
  bool prefetch = true;

  using Row = decltype(std::declval<const Pairs&>().row(std::int64_t(0)));

  /// Whether query i is filtered out (its pairs' slots are then cleared, every lane's share).
  SPHAD_HOST_DEVICE SPHAD_INLINE bool
  query_filtered(std::int64_t i, std::int64_t first, std::int64_t end, int step) const {
    const auto& evaluate = pairs.filtering();
    if (evaluate.filter.accepts_query(evaluate.queries.kinds[i])) {
      return false;
    }
    if constexpr (P > 0 && Sink::clears_filtered) {
      for (std::int64_t k = first; k < end; k += step) {
        references.clear(k);
      }
    }
    return true;
  }

  /// Entry k = (i, j) of row i, by the pair evaluators `pairs` (the member or a copy of it): its
  /// query-side directions are added to `sum`, its reference side's (x_j's negated) go to
  /// `sink` (the member or a copy); a filtered reference gives nothing (a cleared slot). `every`:
  /// the filter takes every kind (no test). `linear`: the pair's kernel linearized already.
  template <class... Linear>
  SPHAD_HOST_DEVICE SPHAD_INLINE void entry(const Pairs& pairs,
                                            const Sink& sink,
                                            bool every,
                                            std::int64_t i,
                                            std::int64_t k,
                                            const Row& row,
                                            const OutPrimal& ybar_i,
                                            S (&sum)[K],
                                            const Linear&... linear) const {
    const auto& evaluate = pairs.filtering();
    const std::int32_t j = neighbors[k];
    if (!every && !evaluate.filter.accepts_reference(evaluate.references.kinds[j])) {
      if constexpr (P > 0) {
        sink.clear(k);
      }
      return;
    }
    S g[K];
    pairs(g, i, j, row, ybar_i, linear...);
    SPHAD_PRAGMA_UNROLL
    for (int c = 0; c < K; ++c) {
      sum[c] += g[c];
    }
    if constexpr (P > 0) {
      S v[P];
      SPHAD_PRAGMA_UNROLL
      for (int c = 0; c < Dirs::stored_positions; ++c) {
        v[c] = -g[c];
      }
      SPHAD_PRAGMA_UNROLL
      for (int c = 0; c < Dirs::kernel_reference; ++c) {
        v[Dirs::stored_positions + c] = g[Dirs::kernel_reference_begin + c];
      }
      SPHAD_PRAGMA_UNROLL
      for (int c = 0; c < Dirs::particle_reference; ++c) {
        v[Dirs::stored_positions + Dirs::kernel_reference + c] =
            g[Dirs::particle_reference_begin + c];
      }
      sink.put(k, j, v);
    }
  }

  /// Row i, its entries in order (`Policy::lanes` 1; prefetching ahead), by `local`: a copy of
  /// the pair evaluators on the caller's stack. Read through `this`, their constants (supports'
  /// scale, the seeded units, the views' sizes) might alias the sink's stores, and the compiler
  /// reloads them for every pair; on the copy it keeps them: 3–8 % fewer instructions in the
  /// host sweep (docs/performance.md). The sink is copied for the same reason. The query side
  /// sums the row in lanes as the primal does (`LaneSums`: entry k of the row into lane k mod L,
  /// the lanes added in a fixed tree; one lane on a device). On the host the kernels of L
  /// entries at a time are linearized on SIMD packs (`Pairs::blocks`), and where the positions
  /// alone are tracked the entries' whole directions are formed on packs
  /// (`Pairs::block_directions`); each lane has the bits of its entry's own evaluation.
  SPHAD_HOST_DEVICE SPHAD_INLINE void row_by(const Pairs& local, std::int64_t i) const {
    const std::int64_t begin = offsets[i], end = offsets[i + 1];
    if (query_filtered(i, begin, end, 1)) {
      return;
    }
    const Sink sink = references;
    const std::int32_t* const js = neighbors; // (not reloaded per entry)
    const bool every = local.filtering().filter.accepts_every_kind();
    const auto row = local.row(i);
    const OutPrimal ybar_i = ybar[i];
    constexpr int L = row_lanes<S>();
    S sums[L][K] = {};
    constexpr std::int64_t ahead = Policy::prefetch_pairs_ahead; // pairs
    const bool ask = prefetch;                                   // (not reloaded per entry)
    const auto prefetch_for = [&](std::int64_t k) SPHAD_LAMBDA_INLINE {
      if (ask && k + ahead < end) {
        local.prefetch(js[k + ahead]);
        if constexpr (P > 0) {
          sink.prefetch(js[k + ahead]);
        }
      }
    };
    std::int64_t k = begin;
#if SPHAD_HAS_PACKS
    if constexpr (Pairs::packed) {
      // L entries' directions at once on packs; each reference's share lane by lane.
      using Pack = typename Pairs::Pack;
      const auto& evaluate = local.filtering();
      Pack acc[K] = {};
      const auto block_row = local.block_row(row);
      // (`all`: std::true_type when the filter takes every kind — no test per lane.)
      const auto blocks = [&](auto all) SPHAD_LAMBDA_INLINE {
        for (; k + L <= end; k += L) {
          Pack g[K];
          local.block_directions(g, block_row, i, js + k, ybar_i);
          bool taken[L];
          each_lane<L>([&](auto l) SPHAD_LAMBDA_INLINE {
            taken[l] =
                all || evaluate.filter.accepts_reference(evaluate.references.kinds[js[k + l]]);
          });
          if constexpr (!decltype(all)::value) {
            const auto keep = simd::mask_of<S>(taken);
            SPHAD_PRAGMA_UNROLL
            for (int c = 0; c < K; ++c) {
              g[c] = cut(keep, g[c]);
            }
          }
          SPHAD_PRAGMA_UNROLL
          for (int c = 0; c < K; ++c) {
            acc[c] += g[c];
          }
          if constexpr (P > 0) {
            each_lane<L>([&](auto l) SPHAD_LAMBDA_INLINE {
              prefetch_for(k + l);
              if (taken[l]) {
                if constexpr (P == 2 && std::is_same_v<S, double>) {
                  // x_j's two scalars as one vector (16 bytes, SSE2 and up).
                  sink.put_negated(
                      k + l, js[k + l],
                      simd::Pack<S, 2>(typename simd::Pack<S, 2>::vec{g[0][l], g[1][l]}));
                } else {
                  S v[P];
                  SPHAD_PRAGMA_UNROLL
                  for (int c = 0; c < P; ++c) {
                    v[c] = -g[c][l];
                  }
                  sink.put(k + l, js[k + l], v);
                }
              } else {
                sink.clear(k + l);
              }
            });
          }
        }
      };
      if (every) {
        blocks(std::true_type{});
      } else {
        blocks(std::false_type{});
      }
      each_lane<L>([&](auto l) SPHAD_LAMBDA_INLINE {
        SPHAD_PRAGMA_UNROLL
        for (int c = 0; c < K; ++c) {
          sums[l][c] = acc[c][l];
        }
      });
    } else if constexpr (Pairs::blocks) {
      // L entries' kernels linearized at once on packs, then each entry in order.
      const auto block_row = local.block_row(row);
      for (; k + L <= end; k += L) {
        const auto block = local.linear_block(block_row, i, js + k);
        each_lane<L>([&](auto l) SPHAD_LAMBDA_INLINE {
          prefetch_for(k + l);
          entry(local, sink, every, i, k + l, row, ybar_i, sums[l], block.lane(l));
        });
      }
    }
#endif
    if constexpr (Pairs::compact) {
      // Short code per entry: L at a time, each lane's sums in registers (their index a
      // constant), the last entries (fewer than L) too.
      // (The lane as `decltype(l)::value`: device code takes no host conversion.)
      for (; k + L <= end; k += L) {
        each_lane<L>([&](auto l) SPHAD_LAMBDA_INLINE {
          constexpr int lane = decltype(l)::value;
          prefetch_for(k + lane);
          entry(local, sink, every, i, k + lane, row, ybar_i, sums[lane]);
        });
      }
      each_lane<L>([&](auto l) SPHAD_LAMBDA_INLINE {
        constexpr int lane = decltype(l)::value;
        if (k + lane < end) {
          entry(local, sink, every, i, k + lane, row, ybar_i, sums[lane]);
        }
      });
    } else {
      // Dual numbers per entry: one at a time, into lane k mod L (its sums in memory).
      for (int l = 0; k < end; ++k, l = (l + 1) % L) {
        prefetch_for(k);
        entry(local, sink, every, i, k, row, ybar_i, sums[l]);
      }
    }
    S total[K];
    SPHAD_PRAGMA_UNROLL
    for (int c = 0; c < K; ++c) {
      total[c] = lane_tree<0, L>(sums, c);
    }
    targets.add(i, total);
  }

  /// Row i (one thread per row).
  SPHAD_HOST_DEVICE SPHAD_FLATTEN void operator()(std::int64_t i) const {
    const Pairs local = pairs;
    row_by(local, i);
  }

  /// Rows [first, end) in order on one thread (a host chunk), on one copy of the pair
  /// evaluators.
  SPHAD_FLATTEN void rows(std::int64_t first, std::int64_t end) const {
    const Pairs local = pairs;
    for (std::int64_t i = first; i < end; ++i) {
      row_by(local, i);
    }
  }

  /// Row i shared by L lanes (`exec::InLanes`, CUDA): lane l takes entries begin + l,
  /// begin + l + L, ...; the lanes' sums meet in a fixed shuffle tree and lane 0 adds them.
  template <int L>
  SPHAD_HOST_DEVICE SPHAD_INLINE void in_lanes(std::int64_t i, int lane) const {
    const std::int64_t begin = offsets[i], end = offsets[i + 1];
    if (query_filtered(i, begin + lane, end, L)) {
      return;
    }
    const auto row = pairs.row(i);
    const OutPrimal& ybar_i = ybar[i];
    S sum[K] = {};
    const bool every = pairs.filtering().filter.accepts_every_kind();
    for (std::int64_t k = begin + lane; k < end; k += L) {
      entry(pairs, references, every, i, k, row, ybar_i, sum);
    }
    SPHAD_PRAGMA_UNROLL
    for (int c = 0; c < K; ++c) {
      sum[c] = exec::lane_sum<L>(sum[c]);
    }
    if (lane == 0) {
      targets.add(i, sum);
    }
  }
};

/// Reference j sums the adjoints its pairs left in `pair_adjoints`, over its entries in the
/// transposed list (increasing order: no atomics, bitwise reproducible), into its targets (at
/// most N).
template <int P, class S, int N>
struct GatherPairAdjoints {
  const std::int64_t* offsets;
  const std::int64_t* entries;
  const S* pair_adjoints;
  GradientTargets<S, N> targets;
  SPHAD_HOST_DEVICE void operator()(std::int64_t j) const { in_lanes<1>(j, 0); }
  /// Reference j shared by L lanes (CUDA): lane l sums entries l, l + L, ...; the lanes' sums
  /// meet in a fixed shuffle tree.
  template <int L>
  SPHAD_HOST_DEVICE SPHAD_INLINE void in_lanes(std::int64_t j, int lane) const {
    S g[P] = {};
    for (std::int64_t t = offsets[j] + lane; t < offsets[j + 1]; t += L) {
      const S* slot = pair_adjoints + entries[t] * P;
      SPHAD_PRAGMA_UNROLL
      for (int c = 0; c < P; ++c) {
        g[c] += slot[c];
      }
    }
    SPHAD_PRAGMA_UNROLL
    for (int c = 0; c < P; ++c) {
      g[c] = exec::lane_sum<L>(g[c]);
    }
    if (lane == 0) {
      targets.add(j, g);
    }
  }
};

/// Whether the references of a query lie near it in memory (one set in both roles) — the
/// particles sorted by cell, as solvers keep them — judged from a few rows spread over the
/// list: then the processor's own prefetchers follow the sweep and asking for each reference
/// ahead only costs instructions; in random order the requests halve the field operators'
/// sweeps. Near: few sampled entries lie far from their query (the host's `ReversePolicy`
/// holds the sample size, the distance and the share, with their measurements).
inline bool references_are_near(const std::int64_t* offsets,
                                const std::int32_t* neighbors,
                                std::int64_t num_queries) {
  using Policy = ReversePolicy<exec::host>;
  constexpr std::int64_t samples = Policy::near_sample_rows, far = Policy::far_distance;
  std::int64_t entries = 0, distant = 0;
  for (std::int64_t s = 0; s < std::min(samples, num_queries); ++s) {
    const std::int64_t i = s * num_queries / std::min(samples, num_queries);
    for (std::int64_t k = offsets[i]; k < offsets[i + 1]; ++k) {
      ++entries;
      distant += std::abs(std::int64_t(neighbors[k]) - i) > far ? 1 : 0;
    }
  }
  return distant * Policy::far_one_in <= entries;
}

/// The reverse sweep of one record over its list `rows` (`nq` queries; `columns`: its entries
/// grouped by reference, for the pair slots; `recorded`: its chunks, for the host's sums by
/// chunks, which the record found while copying its list; `nr` references): `pairs` gives each
/// accepted pair's directions for the row's ȳ_i (`ybar`, [nq]); the queries add their rows' sums to
/// `query_targets`, the references their pairs' adjoints to `reference_targets`. With pair
/// slots (CUDA; the host on request) each pair stores its reference side and every reference
/// gathers its slots over the grouped entries; otherwise (the host) each chunk of rows adds
/// into its own array and every reference sums the chunks in order. `one_set`: the same set
/// plays both roles (its indices then say where in memory a reference lies).
template <class Dirs, class S, class OutPrimal, class Exec, class Pairs, int NQ, int NR>
void reverse_sweep(Tape<Exec>& tape,
                   const NeighborList<Exec>& rows,
                   const EntryTranspose<Exec>& columns,
                   const RecordedChunks<Exec>& recorded,
                   std::int64_t nq,
                   std::int64_t nr,
                   const Pairs& pairs,
                   const OutPrimal* ybar,
                   const GradientTargets<S, NQ>& query_targets,
                   const GradientTargets<S, NR>& reference_targets,
                   bool one_set) {
  using Policy = ReversePolicy<Exec>;
  constexpr int P = Dirs::per_pair;
  Buffer<S, Exec> kept;
  if (tape.uses_pair_slots()) {
    // Each pair stores its references' adjoints in its slot; every reference gathers its
    // slots over the transposed entries.
    SPHAD_ASSERT(P == 0 || columns.num_pairs == rows.num_pairs);
    S* slots = sphad::detail::TapeAccess::workspace(tape, P > 0 ? rows.num_pairs * P : 0, kept);
    const RowAdjoints<Dirs, S, OutPrimal, Pairs, PairSlots<P, S>, NQ, Policy> sweep{
        pairs, rows.offsets.data(), rows.neighbors.data(),
        ybar,  query_targets,       PairSlots<P, S>{slots}};
    const GatherPairAdjoints<P, S, NR> gather{columns.offsets.data(), columns.entries.data(), slots,
                                              reference_targets};
    if constexpr (Policy::lanes == 1) {
      exec::for_each_index(tape.exec(), nq, sweep);
      if constexpr (P > 0) {
        exec::for_each_index(tape.exec(), nr, gather);
      }
    } else {
      // `Policy::lanes` threads per row and per reference (the policy has the measurements).
      constexpr int L = Policy::lanes;
      exec::for_each_index(tape.exec(), nq * L, exec::InLanes<L, decltype(sweep)>{sweep});
      if constexpr (P > 0) {
        exec::for_each_index(tape.exec(), nr * L, exec::InLanes<L, decltype(gather)>{gather});
      }
    }
  } else if constexpr (std::is_same_v<Exec, exec::host>) {
    // Each chunk of rows adds its references' adjoints into its own window; then every
    // reference sums the chunks in order.
    // (The record's, found while it copied the list: a tape that sums by chunks records them.)
    SPHAD_ASSERT(recorded.chunks.has_value());
    const RowChunks& chunks = *recorded.chunks;
    S* sums = sphad::detail::TapeAccess::workspace(tape, P > 0 ? chunks.references() * P : 0, kept);
    const bool prefetch =
        !one_set || !references_are_near(rows.offsets.data(), rows.neighbors.data(), nq);
    chunks.for_each([&](int c) {
      const auto window = std::size_t(c);
      S* mine = sums + chunks.at[window] * P;
      // zeroed by the chunk's own thread
      std::fill_n(mine, (chunks.hi[window] - chunks.lo[window]) * P, S(0));
      return RowAdjoints<Dirs, S, OutPrimal, Pairs, ChunkSums<P, S>, NQ, Policy>{
          pairs,   rows.offsets.data(), rows.neighbors.data(),
          ybar,    query_targets,       ChunkSums<P, S>{mine, chunks.lo[window]},
          prefetch};
    });
    if constexpr (P > 0) {
      const SumChunks<P, S, NR> sum{sums, &chunks, nr, reference_targets};
      exec::for_each_index(tape.exec(), sum.blocks(), sum);
    }
  }
}

} // namespace sphad::pairloop
