// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/dist/communicator.hpp>
#include <sphad/errors.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/exec/host.hpp>
#if defined(__CUDACC__)
#include <sphad/exec/cuda.hpp>
#endif

#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

/// \file
/// \brief `dist::detail::Pattern`: how many elements each rank sends every other in one
/// all-to-all exchange (a halo's or a migration's), and `exchange`, which moves the elements
/// along it forward or back — host memory to MPI directly, device memory directly with a
/// CUDA-aware MPI, else staged through page-locked host buffers that the plan keeps.

namespace sphad::dist::detail {

/// Element counts of one exchange: this rank's sends and receives per rank, as MPI wants them.
struct Pattern {
  Communicator comm;
  std::vector<std::int64_t> send_counts, receive_counts; ///< per rank
  std::vector<int> send_counts_int, send_offsets, receive_counts_int, receive_offsets;
  std::int64_t sends = 0, receives = 0;
  bool device_direct = false; ///< device pointers straight to MPI
  /// Page-locked host buffers for staging device data (allocated at the first staged exchange,
  /// grown when a larger element needs more; freed with the plan).
  mutable std::shared_ptr<void> send_stage, receive_stage;
  mutable std::size_t send_stage_bytes = 0, receive_stage_bytes = 0;

  /// Collective: the receive counts from the send counts. Throws naming `argument` of `function`
  /// on every rank when a rank's counts pass MPI's `int` limit.
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
    const bool sends_fit = int_counts(send_counts, send_counts_int, send_offsets);
    const bool receives_fit = int_counts(receive_counts, receive_counts_int, receive_offsets);
    comm.require_all(sends_fit && receives_fit, function, argument, [&] {
      return sphad::detail::concat(sends_fit ? "receives" : "sends", " more than ", INT_MAX,
                                   " elements in one exchange (MPI's count limit)");
    });
    device_direct = device_memory && cuda_aware_mpi();
  }
};

/// Collective, the checks of a call that moves data along a plan (halo or migration): throws on
/// every rank when `plan` is empty (default-constructed or moved from) or `check` (this call's
/// other checks on this rank, e.g. `require_size`) throws on any rank. An empty plan has no
/// communicator: its rank joins the check on `MPI_COMM_WORLD`, the default, so a plan built on
/// another communicator must not be empty on some ranks only.
template <class Plan, class Check>
void require_plan_call(const Plan& plan, const char* function, Check&& check) {
  const Communicator comm = plan.shared() ? plan.communicator() : Communicator(MPI_COMM_WORLD);
  comm.require_all_pass([&] {
    SPHAD_REQUIRE(plan.shared() != nullptr, function, "plan",
                  "is empty (default-constructed or moved from); build it on every rank");
    check();
  });
}

/// Throws naming `view` of `function` (on this rank only: call it inside a collective check)
/// when the view has `size` elements where `need` are needed.
inline void
require_size(const char* function, const char* view, std::int64_t size, std::int64_t need) {
  SPHAD_REQUIRE(size == need, function, view,
                sphad::detail::concat("has ", size, " element", size == 1 ? "" : "s", " where ",
                                      need, need == 1 ? " is" : " are", " needed"));
}

#if defined(__CUDACC__)
/// A page-locked host buffer of at least `bytes` in `stage` (reallocated when smaller).
inline void* pinned(std::shared_ptr<void>& stage, std::size_t& have, std::size_t bytes) {
  if (have < bytes) {
    void* p = nullptr;
    sphad::detail::check_cuda(cudaMallocHost(&p, bytes), "cudaMallocHost");
    stage = std::shared_ptr<void>(p, [](void* q) { cudaFreeHost(q); });
    have = bytes;
  }
  return stage.get();
}

/// A device exchange through the plan's page-locked host buffers: copy out on the stream, wait,
/// exchange, copy in, wait (the buffers are reused by the next exchange).
template <class E>
void staged_exchange(const exec::cuda& exec,
                     const Pattern& p,
                     bool forward,
                     const E* send,
                     E* receive,
                     const std::vector<int>& sc,
                     const std::vector<int>& so,
                     const std::vector<int>& rc,
                     const std::vector<int>& ro) {
  const std::size_t out = std::size_t(forward ? p.sends : p.receives) * sizeof(E);
  const std::size_t in = std::size_t(forward ? p.receives : p.sends) * sizeof(E);
  E* host_send = static_cast<E*>(pinned(p.send_stage, p.send_stage_bytes, out));
  E* host_receive = static_cast<E*>(pinned(p.receive_stage, p.receive_stage_bytes, in));
  if (out > 0) {
    // host sync: an asynchronous copy into page-locked memory, waited for by the fence below
    constexpr cudaMemcpyKind out_kind = cudaMemcpyDeviceToHost;
    sphad::detail::check_cuda(cudaMemcpyAsync(host_send, send, out, out_kind, exec.stream),
                              "cudaMemcpyAsync");
  }
  exec::fence(exec); // host sync: MPI reads the staged copy
  p.comm.exchange(static_cast<const E*>(host_send), sc, so, host_receive, rc, ro);
  if (in > 0) {
    sphad::detail::check_cuda(
        cudaMemcpyAsync(receive, host_receive, in, cudaMemcpyHostToDevice, exec.stream),
        "cudaMemcpyAsync");
  }
  exec::fence(exec); // host sync: the staging buffers are reused by the next exchange
}
#endif

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
  } else if (p.device_direct) {
    exec::fence(exec); // host sync: MPI reads device memory once the packing has finished
    p.comm.exchange(send, sc, so, receive, rc, ro);
  } else {
    staged_exchange(exec, p, forward, send, receive, sc, so, rc, ro);
  }
}

} // namespace sphad::dist::detail
