// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/plain_tape.hpp>
#include <sphad/ad/tape.hpp>
#include <sphad/ad/variable.hpp>
#include <sphad/dist/communicator.hpp>
#include <sphad/errors.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

/// \file
/// \brief `dist::detail::LinearRecord`: the one tape record of the distributed layer's linear
/// maps y = A x (a halo gather, its transpose, a migration, a sum over ranks): it keeps the plan
/// A was built from and adds Aᵀ ȳ to x̄ when swept.

namespace sphad::dist::detail {

/// A recorded y = A x. `Adjoint{}(exec, plan, ybar, xbar)` adds Aᵀ ȳ into x̄ (and exchanges
/// between the ranks where A does).
template <class Exec, class E, class Plan, class Adjoint>
struct LinearRecord final : sphad::detail::Record<Exec> {
  std::shared_ptr<const Plan> plan;
  Variable<E> x;
  Variable<E> output;
  std::vector<sphad::detail::VersionSnapshot> snapshots;

  LinearRecord(std::shared_ptr<const Plan> p, Variable<E> in, Variable<E> out, const char* input)
      : plan(std::move(p)), x(std::move(in)), output(std::move(out)) {
    sphad::detail::snapshot_version(snapshots, input, x);
    sphad::detail::snapshot_version(snapshots, "output", output);
  }
  void check_versions() const override { sphad::detail::check_snapshots(snapshots); }
  std::int64_t bytes() const override { return 0; }
  void backward(Tape<Exec>& tape) const override {
    const Span<E> ybar = sphad::detail::TapeAccess::gradient_slot(tape, output, true);
    const Span<E> xbar = sphad::detail::TapeAccess::gradient_slot(tape, x);
    Adjoint{}(tape.exec(), *plan, ybar.data(), xbar.data());
  }
};

/// A communicator's handle as a number (a pointer in Open MPI, an integer in MPICH).
template <class Comm>
std::uintptr_t communicator_key(Comm comm) {
  if constexpr (std::is_pointer_v<Comm>) {
    return reinterpret_cast<std::uintptr_t>(comm);
  } else {
    return static_cast<std::uintptr_t>(comm);
  }
}

/// Pushes a `LinearRecord` onto `tape` when `x` is a `Variable` (a `Span` is a constant), and
/// makes the tape's checks before a sweep collective over `comm` (the record's sweep exchanges:
/// a rank failing its checks alone would leave the others waiting).
template <class Adjoint, class Exec, class Plan, class X, class E>
void push_linear(Tape<Exec>& tape,
                 const Communicator& comm,
                 std::shared_ptr<const Plan> plan,
                 const X& x,
                 const Variable<E>& out,
                 const char* input) {
  if constexpr (is_variable_v<X>) {
    sphad::detail::TapeAccess::push(tape, std::make_unique<LinearRecord<Exec, E, Plan, Adjoint>>(
                                              std::move(plan), x, out, input));
    sphad::detail::TapeAccess::agree_before_sweep(tape, communicator_key(comm.comm()),
                                                  [comm](const std::string* error) {
                                                    comm.require_all_pass([&] {
                                                      if (error != nullptr) {
                                                        throw InvalidArgument(*error);
                                                      }
                                                    });
                                                  });
  }
}

/// On a plain tape nothing is recorded (and no sweep will run).
template <class Adjoint, class Exec, class Plan, class X, class E>
void push_linear(PlainTape<Exec>&,
                 const Communicator&,
                 std::shared_ptr<const Plan>,
                 const X&,
                 const Variable<E>&,
                 const char*) {}

} // namespace sphad::dist::detail
