// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/exec/host.hpp>
#include <sphad/pairloop/vocabulary.hpp>

#include <cstdint>
#include <type_traits>

/// \file
/// \brief `ReversePolicy<Exec>`: the tuning constants of the reverse sweep
/// (`reverse_sweep.hpp`), one set per execution space, each with the measurement behind it.
/// None of them changes a gradient's bits on a given space: the chunks are fixed by the list,
/// the lanes' sums by a fixed shuffle tree.

namespace sphad::exec {
struct cuda; // <sphad/exec/cuda.hpp> defines it (and needs nvcc); its policy only names it
} // namespace sphad::exec

namespace sphad::pairloop {

/// The reverse sweep's constants for execution space Exec: the host's and CUDA's below.
template <class Exec>
struct ReversePolicy {
  static_assert(!std::is_same_v<Exec, Exec>,
                "sphad::pairloop::ReversePolicy: no reverse-sweep constants for this execution "
                "space; specialize ReversePolicy for it (see the host's and CUDA's)");
};

/// The host: rows in chunks, each on one thread adding into its own array (`ChunkSums`).
template <>
struct ReversePolicy<exec::host> {
  /// Threads per row: one, its entries in order (`RowAdjoints::rows`, prefetching ahead). Not
  /// `InLanes<1>`: written as that, the Laplacian's host sweep measured 3–5 % slower (other
  /// inlining), the rest equal.
  static constexpr int lanes = 1;
  /// The most chunks of rows (`RowChunks`). Each chunk adds its references' adjoints into its
  /// own window of the references its entries reach, then every reference sums the chunks
  /// that hold it, in order; against grouping the entries by reference at record time this
  /// took Density's full gradient 120.5 → 78.8 ms (random order, 2 threads, 8 chunks of whole
  /// arrays). The count is fixed by the list, never by the thread count, so the sums — and the
  /// gradients — are the same bits on any number of threads; a sweep uses at most this many
  /// threads (on 16 cores 64 chunks of whole arrays measured faster than 8).
  static constexpr int max_row_chunks = 64;
  /// The chunks' windows together span at most this many times the references (the scratch;
  /// the references' sum reads each window once): cell-ordered particles' narrow windows allow
  /// all the chunks, random order's (each window nearly every reference) 8 — the scratch of the
  /// 8 whole arrays before windows.
  static constexpr std::int64_t scratch_per_reference = 8;
  /// The pairs per chunk below which a list gets fewer chunks (a power of two: 2 from twice
  /// this). No measurement of this value is recorded.
  static constexpr std::int64_t min_chunk_pairs = 65536;
  /// How many pairs ahead a row asks the caches for the next references' inputs and sums, when
  /// it asks at all (`references_are_near`): in random order the requests halve the field
  /// operators' sweeps (Gradient 400 vs 660 ms without). The distance itself was not varied.
  static constexpr std::int64_t prefetch_pairs_ahead = 8;
  /// `references_are_near` judges from up to this many rows spread over the list. When the
  /// references lie near their queries (one set in both roles, in cell order) the processor's
  /// own prefetchers follow the sweep and the requests only cost instructions: leaving them out
  /// made the host sweeps 5–12 % faster.
  static constexpr std::int64_t near_sample_rows = 64;
  /// An entry is far when its reference lies more than this many indices from its query.
  static constexpr std::int64_t far_distance = 8192;
  /// The references are near when at most one sampled entry in this many is far.
  static constexpr std::int64_t far_one_in = 8;
};

/// CUDA: each pair stores its references' adjoints in its own slot and the references gather
/// them over the entries grouped by reference (`PairSlots`, `GatherPairAdjoints`).
template <>
struct ReversePolicy<exec::cuda> {
  /// Threads per row of the sweep and per reference of the gather (`exec::InLanes`): a warp
  /// reads and writes the entries in contiguous runs and each row's pairs are evaluated this
  /// many at a time, not one after another (~50 neighbours a row: 7 rounds of 8). One thread
  /// per row waited on its loads: 95 % of its stalls on an H200, at 16 % of the memory
  /// bandwidth; Density backward 6.2 → 2.9 ms with the rows in lanes, → 1.7 ms with the
  /// references too.
  static constexpr int lanes = 8;
};

} // namespace sphad::pairloop
