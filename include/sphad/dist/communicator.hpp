// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/errors.hpp>

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#include <climits>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

/// \file
/// \brief `dist::Communicator`: the MPI calls the distributed layer makes (through the C API
/// only), and `require_all` / `require_all_pass`, the collective checks that turn an error found
/// on one rank into the same exception on every rank instead of a hang.

namespace sphad::dist {

/// A view of an MPI communicator (not owned: the caller initializes and finalizes MPI).
class Communicator {
public:
  /// `comm`: the ranks that share the simulation (default: every rank).
  explicit Communicator(MPI_Comm comm = MPI_COMM_WORLD) : comm_(comm) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }

  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }

  /// Collective: throws `InvalidArgument` on every rank when `ok` is false on any. The message is
  /// the lowest failing rank's (`problem()` is evaluated there only), with the rank named, so
  /// every rank reports the same error. Call it on every rank, in the same order.
  template <class Problem>
  void require_all(bool ok, const char* function, const char* argument, Problem&& problem) const {
    require_all_named(ok, function, [&] {
      return std::make_pair(std::string(argument), std::string(problem()));
    });
  }

  /// The same where the failing rank also names the argument: `problem()` returns the pair
  /// (argument, problem).
  template <class Problem>
  void require_all_named(bool ok, const char* function, Problem&& problem) const {
    fail_together(ok, [&] {
      const auto [argument, message] = problem();
      return sphad::detail::concat("sphad::", function, ": argument `", argument, "`: ", message);
    });
  }

  /// Collective: runs `check`, this rank's checks of its arguments (each an `InvalidArgument`
  /// thrown as usual; `check` must not communicate), and throws on every rank when it threw on
  /// any: the lowest failing rank's message, with the rank named. Every check made before a
  /// collective goes through here or `require_all`, so that no rank throws alone while the others
  /// wait.
  template <class Check>
  void require_all_pass(Check&& check) const {
    bool ok = true;
    std::string text;
    try {
      check();
    } catch (const InvalidArgument& e) {
      ok = false;
      text = e.what();
    }
    fail_together(ok, [&] { return text; });
  }

  /// Every rank's `value`, in rank order.
  template <class T>
  std::vector<T> all_gather(const T& value) const {
    static_assert(std::is_trivially_copyable_v<T>, "all_gather: a trivially copyable value");
    std::vector<T> out(static_cast<std::size_t>(size_));
    MPI_Allgather(&value, int(sizeof(T)), MPI_BYTE, out.data(), int(sizeof(T)), MPI_BYTE, comm_);
    return out;
  }

  /// Element-wise sums of `values` over the ranks (exact: integers).
  std::vector<std::int64_t> all_sum(std::vector<std::int64_t> values) const {
    MPI_Allreduce(MPI_IN_PLACE, values.data(), int(values.size()), MPI_INT64_T, MPI_SUM, comm_);
    return values;
  }

  /// The largest `value` over the ranks.
  double all_max(double value) const {
    MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MAX, comm_);
    return value;
  }

  /// The counts each rank receives from every other, given those this rank sends to each.
  std::vector<std::int64_t> exchange_counts(const std::vector<std::int64_t>& send) const {
    std::vector<std::int64_t> receive(static_cast<std::size_t>(size_));
    MPI_Alltoall(send.data(), 1, MPI_INT64_T, receive.data(), 1, MPI_INT64_T, comm_);
    return receive;
  }

  /// Sends `send[send_offsets[r] .. + send_counts[r])` to rank r and receives rank r's block at
  /// `receive + receive_offsets[r]`, for every r (host memory, or device memory with a
  /// CUDA-aware MPI), with one message per rank pair that has elements to move (non-blocking
  /// point-to-point, then one wait). Elements travel as raw bytes.
  template <class E>
  void exchange(const E* send,
                const std::vector<int>& send_counts,
                const std::vector<int>& send_offsets,
                E* receive,
                const std::vector<int>& receive_counts,
                const std::vector<int>& receive_offsets) const {
    static_assert(std::is_trivially_copyable_v<E>, "exchange: a trivially copyable element");
    constexpr int tag = 0x5ad;
    MPI_Datatype element = MPI_DATATYPE_NULL;
    MPI_Type_contiguous(int(sizeof(E)), MPI_BYTE, &element);
    MPI_Type_commit(&element);
    std::vector<MPI_Request> requests;
    for (int r = 0; r < size_; ++r) {
      if (receive_counts[std::size_t(r)] > 0) {
        requests.emplace_back();
        MPI_Irecv(receive + receive_offsets[std::size_t(r)], receive_counts[std::size_t(r)],
                  element, r, tag, comm_, &requests.back());
      }
    }
    for (int r = 0; r < size_; ++r) {
      if (send_counts[std::size_t(r)] > 0) {
        requests.emplace_back();
        MPI_Isend(send + send_offsets[std::size_t(r)], send_counts[std::size_t(r)], element, r, tag,
                  comm_, &requests.back());
      }
    }
    MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    MPI_Type_free(&element);
  }

private:
  /// Throws on every rank when `ok` is false on any: `message()` of the lowest failing rank (a
  /// whole message) and the rank.
  template <class Message>
  void fail_together(bool ok, Message&& message) const {
    const int mine = ok ? size_ : rank_;
    int first = size_;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm_);
    if (first == size_) {
      return;
    }
    std::string text;
    if (rank_ == first) {
      text = message();
    }
    broadcast(text, first);
    throw InvalidArgument(sphad::detail::concat(text, " (on rank ", first, ")"));
  }

  void broadcast(std::string& text, int root) const {
    int length = int(text.size());
    MPI_Bcast(&length, 1, MPI_INT, root, comm_);
    text.resize(static_cast<std::size_t>(length));
    MPI_Bcast(text.data(), length, MPI_CHAR, root, comm_);
  }

  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
};

/// Whether the MPI library accepts device pointers (Open MPI built with CUDA and its runtime
/// agreeing; checked after `MPI_Init`). Debian's Open MPI has no CUDA support: false, and
/// device buffers are staged through host memory.
inline bool cuda_aware_mpi() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT && defined(OMPI_HAVE_MPI_EXT_CUDA)
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

namespace detail {

/// MPI counts and displacements are ints: the offsets of `counts` (exclusive scan). False, on
/// this rank only, when they pass `INT_MAX`.
inline bool int_counts(const std::vector<std::int64_t>& counts,
                       std::vector<int>& out_counts,
                       std::vector<int>& out_offsets) {
  out_counts.assign(counts.size(), 0);
  out_offsets.assign(counts.size(), 0);
  std::int64_t offset = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    if (offset + counts[r] > INT_MAX) {
      return false;
    }
    out_counts[r] = int(counts[r]);
    out_offsets[r] = int(offset);
    offset += counts[r];
  }
  return true;
}

} // namespace detail

} // namespace sphad::dist
