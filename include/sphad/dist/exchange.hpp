// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/dist/communicator.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/exec/host.hpp>

#include <cstdint>
#include <type_traits>
#include <vector>

/// \file
/// \brief `dist::detail::Pattern`: how many elements each rank sends every other in one
/// all-to-all exchange (a halo's or a migration's), and `exchange`, which moves the elements
/// along it forward or back — host memory to MPI directly, device memory directly with a
/// CUDA-aware MPI, else staged through host copies.

namespace sphad::dist::detail {

/// Element counts of one exchange: this rank's sends and receives per rank, as MPI wants them.
struct Pattern {
  Communicator comm;
  std::vector<std::int64_t> send_counts, receive_counts; ///< per rank
  std::vector<int> send_counts_int, send_offsets, receive_counts_int, receive_offsets;
  std::int64_t sends = 0, receives = 0;
  bool device_direct = false; ///< device pointers straight to MPI

  /// Collective: the receive counts from the send counts.
  Pattern(const Communicator& c,
          std::vector<std::int64_t> send,
          bool device_memory,
          const char* function,
          const char* argument)
      : comm(c), send_counts(std::move(send)) {
    receive_counts = comm.exchange_counts(send_counts);
    for (std::size_t r = 0; r < send_counts.size(); ++r) {
      sends += send_counts[r];
      receives += receive_counts[r];
    }
    int_counts(send_counts, send_counts_int, send_offsets, function, argument);
    int_counts(receive_counts, receive_counts_int, receive_offsets, function, argument);
    device_direct = device_memory && cuda_aware_mpi();
  }
};

/// Sends `send` ([sends] forward, [receives] back; in the space's memory) along the pattern
/// (`forward`, or back from the receivers to the senders) into `receive`.
template <class E, class Exec>
void exchange(const Exec& exec, const Pattern& p, bool forward, const E* send, E* receive) {
  const auto& sc = forward ? p.send_counts_int : p.receive_counts_int;
  const auto& so = forward ? p.send_offsets : p.receive_offsets;
  const auto& rc = forward ? p.receive_counts_int : p.send_counts_int;
  const auto& ro = forward ? p.receive_offsets : p.send_offsets;
  if constexpr (std::is_same_v<Exec, exec::host>) {
    p.comm.exchange(send, sc, so, receive, rc, ro);
  } else {
    if (p.device_direct) {
      exec::fence(exec); // host sync: MPI reads device memory once the packing has finished
      p.comm.exchange(send, sc, so, receive, rc, ro);
      return;
    }
    const std::int64_t sends = forward ? p.sends : p.receives;
    const std::int64_t receives = forward ? p.receives : p.sends;
    // host sync: staging through host memory (an MPI without CUDA support)
    const std::vector<E> staged = exec::to_host(exec, send, sends);
    std::vector<E> received(static_cast<std::size_t>(receives));
    p.comm.exchange(staged.data(), sc, so, received.data(), rc, ro);
    exec::copy_from_host(exec, received.data(), receive, receives);
    exec::fence(exec); // host sync: `received` is released on return
  }
}

} // namespace sphad::dist::detail
