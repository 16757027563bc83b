// SPDX-License-Identifier: MIT
// What the module hands an operator entry: the arrays of one call in fixed slots (checked for
// dtype and layout by the module, for shape by the entry, which knows the operator's types), the
// list, the box and the options; and what comes back (a status and a message). Plain data, so
// that entries compiled apart from the module (on first use, jit.py) read it with the same layout.
#pragma once

#include <sphad/particles.hpp>
#include <sphad/search.hpp>

#include <cstddef>
#include <cstdint>

namespace sphad::python {

/// An array as the module checked it: its data, rank and extents (`ndim` −1: not given).
struct ArrayRef {
  void* data = nullptr;
  int ndim = -1;
  bool int32 = false; ///< int32 elements (else the call's float dtype)
  std::int64_t shape[6] = {};
};

/// The slots of a call's arrays. The inputs: each set's seven (queries, then references), then
/// the correction states' seven; then a tangent and a gradient slot per differentiable input
/// ("derived": each set's six — not kinds — then the seven correction arrays); then the output,
/// its tangent and the seed.
namespace slot {
constexpr int inputs = 7;      ///< per set: positions, supports, masses, kinds, densities, volumes,
                               ///< values
constexpr int derived = 6;     ///< per set: positions, supports, masses, densities, volumes, values
constexpr int corrections = 7; ///< crk_a, crk_b, crk_grad_a, crk_grad_b, renormalization,
                               ///< omegas, references.omegas
constexpr int all_inputs = 2 * inputs + corrections;
constexpr int all_derived = 2 * derived + corrections;
constexpr int input(int role, int k) {
  return role * inputs + k;
}
constexpr int correction(int c) {
  return 2 * inputs + c;
}
/// Derived index of set r's k-th derived input, or of correction c.
constexpr int set_derived(int role, int k) {
  return role * derived + k;
}
constexpr int correction_derived(int c) {
  return 2 * derived + c;
}
constexpr int tangent(int d) {
  return all_inputs + d;
}
constexpr int gradient(int d) {
  return all_inputs + all_derived + d;
}
constexpr int outputs = 6; ///< at most (the CRK factors have six)
/// Output k, its tangent and its seed.
constexpr int out_k(int k) {
  return all_inputs + 2 * all_derived + 3 * k;
}
constexpr int out_tangent_k(int k) {
  return out_k(k) + 1;
}
constexpr int seed_k(int k) {
  return out_k(k) + 2;
}
constexpr int out = out_k(0);
constexpr int out_tangent = out_tangent_k(0);
constexpr int seed = seed_k(0);
constexpr int count = out_k(outputs);
/// The input index of set-derived index k (kinds have no tangent or gradient).
constexpr int input_of_derived(int k) {
  return k < 3 ? k : k + 1;
}
} // namespace slot

inline constexpr const char* input_names[slot::inputs] = {
    "positions", "supports", "masses", "kinds", "densities", "volumes", "values"};
inline constexpr const char* correction_names[slot::corrections] = {
    "crk.a", "crk.b", "crk.grad_a", "crk.grad_b", "renormalization", "omegas", "references.omegas"};

/// Which corrections an entry applies (bits of its `Corrections` parameter).
namespace correction {
constexpr int crk = 1, renormalization = 2, grad_h = 4;
}

/// What an entry does.
enum class Verb : int {
  describe = 0, ///< fill `out_ndim`, `out_shape`, `needs_*` (no arrays read)
  value = 1,    ///< out
  jvp = 2,      ///< out, out_tangent along the given tangents (absent: zero)
  vjp = 3,      ///< the given gradient slots for the seed ∂L/∂out
  // Search entries (search_entry.hpp), on a CUDA device:
  search = 4,  ///< a list of the queries (set 0) against the references (set 1): `made_list`
  adopt = 5,   ///< a list copied from `list_offsets`/`list_neighbors`, checked: `made_list`
  release = 6, ///< frees `made_list`
};

struct OperatorCall {
  const char* function = "";    ///< the Python function, for messages
  ArrayRef arrays[slot::count]; ///< by `slot`
  /// The neighbour list, of the entry's execution space: a `NeighborList<exec::host>` or, for
  /// an entry compiled for CUDA, a `NeighborList<exec::cuda>` (made by a search entry).
  const void* list = nullptr;
  int device = -1;        ///< the CUDA device holding the arrays; -1: host memory
  void* stream = nullptr; ///< on CUDA: the stream the work is enqueued on (torch's current one)
  double min[3] = {}, max[3] = {};
  bool periodic[3] = {};
  int dim = 0;
  OperationDirection direction = OperationDirection::AllToAll;
  double calibration_n_h = 0;
  double tau = -1; ///< the CRK limiter's threshold (< 0: the library's default)
  // Filled by `describe`:
  int outputs = 1;                               ///< how many outputs
  int out_ndim[slot::outputs] = {};              ///< each output's trailing rank
  std::int64_t out_shape[slot::outputs][4] = {}; ///< its trailing extents
  bool out_int32[slot::outputs] = {};            ///< int32 elements (else the positions' dtype)
  bool needs_densities = false, needs_values = false;
  // Search entries: in, the scheme (a `SupportScheme` value), the skin and, to adopt, the list's
  // arrays; out, the list made (an opaque handle for `release`) and its arrays.
  int scheme = 0;
  double skin = 0;
  ArrayRef list_offsets, list_neighbors;
  void* made_list = nullptr;
  std::int64_t num_pairs = 0;
  const std::int64_t* made_offsets = nullptr;
  const std::int32_t* made_neighbors = nullptr;
  // Filled on failure:
  int status = 0; ///< 0 ok, 1 invalid argument (ValueError), 2 other error (RuntimeError)
  char message[1024] = {};
};

/// An entry: one operator type, dimension, scalar and field type (entry.hpp).
using EntryFunction = void (*)(int verb, OperatorCall* call);

} // namespace sphad::python
