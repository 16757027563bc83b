// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

/// \file
/// \brief Compiler and platform configuration: annotation macros, assertions, version.
///
/// Every header that uses a `SPHAD_` macro includes this one first.

#define SPHAD_VERSION_MAJOR 0
#define SPHAD_VERSION_MINOR 1
#define SPHAD_VERSION_PATCH 0
/// One integer, e.g. 100 for 0.1.0, for `#if SPHAD_VERSION >= ...`.
#define SPHAD_VERSION                                                                              \
  (SPHAD_VERSION_MAJOR * 10000 + SPHAD_VERSION_MINOR * 100 + SPHAD_VERSION_PATCH)
#define SPHAD_VERSION_STRING "0.1.0"

// ---------------------------------------------------------------------------------------------
// Host/device annotations. They are empty outside a CUDA compiler, so every header compiles
// with a plain C++17 compiler.
#if defined(__CUDACC__)
#define SPHAD_HOST_DEVICE __host__ __device__
#define SPHAD_DEVICE __device__
#define SPHAD_HOST __host__
#define SPHAD_INLINE __forceinline__
/// Kernels have internal linkage: users instantiate sphad inside their own shared libraries,
/// and two libraries must never share (or clash over) one instantiation. `static` rather than
/// hidden visibility, which nvcc rejects for kernels over functors in anonymous namespaces.
#define SPHAD_KERNEL static __global__
#define SPHAD_FLATTEN // nvcc inlines device code on its own
#define SPHAD_LAMBDA_INLINE
/// Only on wrappers that call user callables which may be host-only.
#define SPHAD_EXEC_CHECK_DISABLE _Pragma("nv_exec_check_disable")
#else
#define SPHAD_HOST_DEVICE
#define SPHAD_DEVICE
#define SPHAD_HOST
// Host inlining of the small functions is forced: left to GCC, the dual-number loops of the
// reverse pass run 2-3x slower. A build may define SPHAD_RELAXED_INLINING to trade that speed
// for compile time (the exhaustive test matrices do).
#if defined(__GNUC__) && !defined(SPHAD_RELAXED_INLINING)
#define SPHAD_INLINE inline __attribute__((always_inline))
/// On the loop body of a hot launch: everything it calls is inlined, lambdas included (in a
/// large translation unit GCC otherwise stops inlining them once its growth budget is spent).
#define SPHAD_FLATTEN __attribute__((flatten))
/// After a lambda's parameter list: forced inlining for a lambda in a hot path (`flatten` does
/// not reach every one: GCC left the kernels' per-support lambdas out of line in the JVP loops).
#define SPHAD_LAMBDA_INLINE __attribute__((always_inline))
#else
#define SPHAD_INLINE inline
#define SPHAD_FLATTEN
#define SPHAD_LAMBDA_INLINE
#endif
#define SPHAD_EXEC_CHECK_DISABLE
#endif

/// Defined to 1 while compiling device code (nvcc's device pass), 0 otherwise.
#if defined(__CUDA_ARCH__)
#define SPHAD_DEVICE_PASS 1
#else
#define SPHAD_DEVICE_PASS 0
#endif

/// Unroll a loop over a compile-time extent (D, N).
#if defined(__CUDA_ARCH__)
#define SPHAD_PRAGMA_UNROLL _Pragma("unroll")
#elif defined(__CUDACC__) // nvcc's host pass: its front end knows no GCC pragmas
#define SPHAD_PRAGMA_UNROLL
#elif defined(__GNUC__) && !defined(__clang__)
#define SPHAD_PRAGMA_UNROLL _Pragma("GCC unroll 8")
#else
#define SPHAD_PRAGMA_UNROLL
#endif

// ---------------------------------------------------------------------------------------------
// Internal invariants (never user input: that is SPHAD_REQUIRE in <sphad/errors.hpp>).
// On when SPHAD_ENABLE_ASSERTS is defined (the build defines it in Debug); traps with file:line.
#if defined(SPHAD_ENABLE_ASSERTS)
#if defined(__CUDA_ARCH__)
#define SPHAD_ASSERT(condition)                                                                    \
  do {                                                                                             \
    if (!(condition)) {                                                                            \
      __trap();                                                                                    \
    }                                                                                              \
  } while (false)
#else
#include <cstdio>
#include <cstdlib>
#define SPHAD_ASSERT(condition)                                                                    \
  do {                                                                                             \
    if (!(condition)) {                                                                            \
      std::fprintf(stderr, "%s:%d: sphad assertion failed: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                                \
    }                                                                                              \
  } while (false)
#endif
#else
#define SPHAD_ASSERT(condition)                                                                    \
  do {                                                                                             \
  } while (false)
#endif

// ---------------------------------------------------------------------------------------------
// Features found at compile time.
#if defined(_OPENMP)
#define SPHAD_HAS_OPENMP 1
#else
#define SPHAD_HAS_OPENMP 0
#endif
