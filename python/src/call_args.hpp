// SPDX-License-Identifier: MIT
// What every entry shares (operator_call.hpp's slots as the C++ library's views): the checked
// arrays, the sets and the correction states of a call built through one wrapper for all of
// them — plain spans (values), spans with tangents (JVP) or variables (VJP) — the box, the
// options, and the error reporting.
#pragma once

#include <sphad/ad.hpp>
#include <sphad/errors.hpp>
#include <sphad/ops.hpp>

#include "operator_call.hpp"

#if defined(SPHAD_PYTHON_CUDA)
#include <sphad/exec/cuda.hpp>
#endif

#include <algorithm>
#include <cstdio>
#include <exception>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

namespace sphad::python {
namespace entry_detail {

/// The trailing extents of an element type: () for a scalar, (K) for Vec<·, K>, (R, C) for
/// Mat<·, R, C>, nested left to right.
template <class E>
struct Extents {
  static constexpr int rank = 0;
  static void fill(std::int64_t*) {}
};
template <class E, int K>
struct Extents<Vec<E, K>> {
  static constexpr int rank = 1 + Extents<E>::rank;
  static void fill(std::int64_t* p) {
    p[0] = K;
    Extents<E>::fill(p + 1);
  }
};
template <class E, int R, int C>
struct Extents<Mat<E, R, C>> {
  static constexpr int rank = 2 + Extents<E>::rank;
  static void fill(std::int64_t* p) {
    p[0] = R;
    p[1] = C;
    Extents<E>::fill(p + 2);
  }
};

/// The name of derived input d (`positions`, `references.masses`, `crk.a`, ...).
inline std::string derived_name(int d) {
  if (d < 2 * slot::derived) {
    return std::string(d < slot::derived ? "" : "references.") +
           input_names[slot::input_of_derived(d % slot::derived)];
  }
  return correction_names[d - 2 * slot::derived];
}

/// The Python name of slot s, for messages.
inline std::string slot_name(int s) {
  if (s < 2 * slot::inputs) {
    return std::string(s < slot::inputs ? "" : "references.") + input_names[s % slot::inputs];
  }
  if (s < slot::all_inputs) {
    return correction_names[s - 2 * slot::inputs];
  }
  if (s < slot::gradient(0)) {
    return derived_name(s - slot::tangent(0)) + "_tangent";
  }
  if (s < slot::out) {
    return derived_name(s - slot::gradient(0)) + "_grad";
  }
  const int k = (s - slot::out) / 3, role = (s - slot::out) % 3;
  const std::string suffix = k == 0 ? "" : "[" + std::to_string(k) + "]";
  return (role == 0 ? "out" : role == 1 ? "out_tangent" : "seed") + suffix;
}

/// The array in slot s as n elements of E (checked: rank and extents; n < 0: any length).
template <class E>
Span<E> view(const OperatorCall& c, int s, std::int64_t n) {
  using V = std::remove_const_t<E>;
  const ArrayRef& a = c.arrays[s];
  constexpr int rank = Extents<V>::rank;
  std::int64_t extents[8] = {};
  Extents<V>::fill(extents);
  std::string expected = "(" + (n < 0 ? std::string("n") : std::to_string(n));
  for (int k = 0; k < rank; ++k) {
    expected += ", " + std::to_string(extents[k]);
  }
  expected += rank == 0 ? ",)" : ")";
  constexpr bool integers = std::is_same_v<V, std::int32_t>;
  SPHAD_REQUIRE(a.ndim < 0 || a.int32 == integers, c.function, slot_name(s).c_str(),
                integers ? "must have dtype int32" : "must have the positions' float dtype");
  bool ok = a.ndim == rank + 1 && (n < 0 || a.shape[0] == n);
  for (int k = 0; ok && k < rank; ++k) {
    ok = a.shape[k + 1] == extents[k];
  }
  if (!ok) {
    std::string got = "(";
    for (int k = 0; k < a.ndim; ++k) {
      got += (k ? ", " : "") + std::to_string(a.shape[k]);
    }
    got += a.ndim == 1 ? ",)" : ")";
    sphad::detail::throw_invalid_argument(c.function, slot_name(s).c_str(),
                                          "has shape " + got + ", expected " + expected);
  }
  return {static_cast<E*>(a.data), a.shape[0]};
}

inline bool given(const OperatorCall& c, int s) {
  return c.arrays[s].ndim >= 0;
}

/// Slot s's array, which the operator needs (a clear error when it is missing).
template <class E>
Span<E> required(const OperatorCall& c, int s, std::int64_t n, const char* why) {
  SPHAD_REQUIRE(given(c, s), c.function, slot_name(s).c_str(), why);
  return view<E>(c, s, n);
}

/// Slot s's array, or an empty span when it is not given.
template <class E>
Span<E> optional(const OperatorCall& c, int s, std::int64_t n) {
  return given(c, s) ? view<E>(c, s, n) : Span<E>{};
}

} // namespace entry_detail

/// The execution space of this translation unit's entries: CUDA where it is compiled by nvcc
/// with SPHAD_PYTHON_CUDA (sphad/_jit.py does so for the entries of CUDA arrays), else the host.
#if defined(SPHAD_PYTHON_CUDA)
using Space = exec::cuda;
#else
using Space = exec::host;
#endif

/// The call's execution space: on CUDA, its stream.
inline Space space_of(const OperatorCall& c) {
#if defined(SPHAD_PYTHON_CUDA)
  return exec::cuda{static_cast<cudaStream_t>(c.stream)};
#else
  (void)c;
  return exec::host{};
#endif
}

/// The call's neighbour list, of execution space S.
template <class S = Space>
const NeighborList<S>& list_of(const OperatorCall& c) {
  return *static_cast<const NeighborList<S>*>(c.list);
}

/// For the duration of an entry: the call's arrays are where the entry's space works (a CUDA
/// entry for device memory, a host entry for host memory), and on CUDA the current device is
/// theirs (the previous one restored after).
class OnCallDevice {
public:
  explicit OnCallDevice(const OperatorCall& c) {
    const bool device_arrays = c.device >= 0;
    constexpr bool cuda_entry = !std::is_same_v<Space, exec::host>;
    SPHAD_REQUIRE(device_arrays == cuda_entry, c.function, "positions",
                  device_arrays ? "is CUDA memory, and this entry runs on the host"
                                : "is host memory, and this entry runs on CUDA");
#if defined(SPHAD_PYTHON_CUDA)
    sphad::detail::check_cuda(cudaGetDevice(&previous_), "cudaGetDevice");
    if (previous_ != c.device) {
      sphad::detail::check_cuda(cudaSetDevice(c.device), "cudaSetDevice");
    }
#endif
  }
  OnCallDevice(const OnCallDevice&) = delete;
  OnCallDevice& operator=(const OnCallDevice&) = delete;
  ~OnCallDevice() {
#if defined(SPHAD_PYTHON_CUDA)
    int now = previous_;
    if (cudaGetDevice(&now) == cudaSuccess && now != previous_) {
      cudaSetDevice(previous_);
    }
#endif
  }

private:
  int previous_ = -1;
};

/// A derived index known at compile time (a wrapper may give each input its own view type).
template <int D>
using Derived = std::integral_constant<int, D>;

/// The views of one call in dimension D and scalar T: the sets (with volumes when `Volumes`)
/// and the correction states (`Corrections`: bits of `correction`), each differentiable array
/// passed through `wrap(Derived<d>{}, span)` (d: its derived index).
template <int D, class T, bool Volumes, int Corrections>
struct CallArgs {
  OperatorCall& c;
  std::int64_t rows[2] = {}; ///< the sets' sizes (from their positions)
  Domain<D, T> domain{};
  ApplyOptions<T> options{};

  /// `describe` reads no array.
  CallArgs(OperatorCall& call, bool reads_arrays) : c(call) {
    using entry_detail::view;
    for (int r = 0; r < 2 && reads_arrays; ++r) { // no references: 0 rows (a pipeline of one set)
      rows[r] = entry_detail::given(c, slot::input(r, 0))
                    ? view<const Vec<T, D>>(c, slot::input(r, 0), -1).size()
                    : 0;
    }
    for (int a = 0; a < D; ++a) {
      domain.min[a] = T(c.min[a]);
      domain.max[a] = T(c.max[a]);
      domain.periodic[a] = c.periodic[a];
    }
    options.direction = c.direction;
    options.calibration_n_h = T(c.calibration_n_h);
  }

  template <class E>
  Span<const E> in(int s, std::int64_t n, const char* why) const {
    return entry_detail::required<const E>(c, s, n, why);
  }

  /// Set R (0: queries, 1: references), with densities when `Densities`.
  template <bool Densities, int R, class Wrap>
  auto set(Wrap&& wrap_derived) const {
    constexpr int r = R;
    const auto wrap = [&](auto k, auto span) {
      return wrap_derived(Derived<slot::set_derived(R, decltype(k)::value)>{}, span);
    };
    const std::int64_t n = rows[r];
    const auto x = in<Vec<T, D>>(slot::input(r, 0), n, "is required");
    const ParticleSet<D, T> base{x, in<T>(slot::input(r, 1), n, "is required"),
                                 in<T>(slot::input(r, 2), n, "is required"),
                                 in<std::int32_t>(slot::input(r, 3), n, "is required")};
    const auto with_xhm = base.with_positions(wrap(Derived<0>{}, x))
                              .with_supports(wrap(Derived<1>{}, base.supports))
                              .with_masses(wrap(Derived<2>{}, base.masses));
    const auto with_rho = [&] {
      if constexpr (Densities) {
        return with_xhm.with_densities(
            wrap(Derived<3>{}, in<T>(slot::input(r, 4), n,
                                     "is required by this operator (V = m/rho, or its scheme)")));
      } else {
        return with_xhm;
      }
    }();
    if constexpr (Volumes) {
      return with_rho.with_volumes(wrap(Derived<4>{}, in<T>(slot::input(r, 5), n, "is required")));
    } else {
      return with_rho;
    }
  }

  /// Set R's field values (E = ops::NoField: none).
  template <class E, int R, class Wrap>
  auto values(Wrap&& wrap) const {
    if constexpr (std::is_same_v<E, ops::NoField>) {
      return Span<const ops::NoField>{};
    } else {
      return wrap(Derived<slot::set_derived(R, 5)>{},
                  in<E>(slot::input(R, 6), rows[R], "is required by this operator"));
    }
  }

  /// The correction states as an `ops::Corrections`.
  template <class Wrap>
  auto corrections(Wrap&& wrap) const {
    const auto state = [&](auto k, auto type, std::int64_t n) {
      using E = typename decltype(type)::type;
      constexpr int index = decltype(k)::value;
      return wrap(Derived<slot::correction_derived(index)>{},
                  in<E>(slot::correction(index), n, "is required by the corrections"));
    };
    const auto crk = [&] {
      if constexpr ((Corrections & correction::crk) != 0) {
        const auto a = state(Derived<0>{}, std::common_type<T>{}, rows[0]);
        const auto b = state(Derived<1>{}, std::common_type<Vec<T, D>>{}, rows[0]);
        const auto ga = state(Derived<2>{}, std::common_type<Vec<T, D>>{}, rows[0]);
        const auto gb = state(Derived<3>{}, std::common_type<Mat<T, D, D>>{}, rows[0]);
        return ops::CRK<D, T, decltype(a), decltype(b), decltype(ga), decltype(gb)>{a, b, ga, gb};
      } else {
        return ops::NoCRK{};
      }
    }();
    const auto renormalization = [&] {
      if constexpr ((Corrections & correction::renormalization) != 0) {
        const auto l = state(Derived<4>{}, std::common_type<Mat<T, D, D>>{}, rows[0]);
        return ops::Renormalization<D, T, decltype(l)>{l};
      } else {
        return ops::NoRenormalization{};
      }
    }();
    const auto grad_h = [&] {
      if constexpr ((Corrections & correction::grad_h) != 0) {
        const auto q = state(Derived<5>{}, std::common_type<T>{}, rows[0]);
        const auto r = state(Derived<6>{}, std::common_type<T>{}, rows[1]);
        return ops::GradH<T, decltype(q), decltype(r)>{q, r};
      } else {
        return ops::NoGradH{};
      }
    }();
    return ops::Corrections<std::remove_const_t<decltype(crk)>,
                            std::remove_const_t<decltype(renormalization)>,
                            std::remove_const_t<decltype(grad_h)>>{crk, renormalization, grad_h};
  }

  /// Output k as n elements of E.
  template <class E>
  Span<E> out(int k) const {
    return entry_detail::view<E>(c, slot::out_k(k), rows[0]);
  }
};

/// The wrapper of value calls: the span itself.
struct PlainArrays {
  template <int d, class S>
  S operator()(Derived<d>, S span) const {
    return span;
  }
};

/// The wrapper of JVP calls: each array with its tangent (a zero array where none is given: one
/// instantiation serves every combination).
template <class T>
struct TangentArrays {
  const OperatorCall& c;
  std::vector<Buffer<T, Space>> zeros; // in the space's memory (filled on the call's stream)
  explicit TangentArrays(const OperatorCall& call) : c(call) { zeros.reserve(slot::all_derived); }
  template <int d, class E>
  DualView<E, 1> operator()(Derived<d>, Span<const E> span) {
    const int s = slot::tangent(d);
    Span<const E> t;
    if (entry_detail::given(c, s)) {
      t = entry_detail::view<const E>(c, s, span.size());
    } else {
      const std::int64_t n = span.size() * std::int64_t(sizeof(E) / sizeof(T));
      zeros.emplace_back(space_of(c), n);
      exec::fill(space_of(c), zeros.back().data(), n, T(0));
      t = Span<const E>(reinterpret_cast<const E*>(zeros.back().data()), span.size());
    }
    return with_tangents<1>(span, t);
  }
};

/// Which inputs a VJP tracks: every differentiable one, or only both sets' positions — the
/// common gradient, whose sweep then carries the pair vector's D directions per pair instead of
/// one per scalar of every input (a third less time for Density).
enum class Tracking { all, positions };

/// Whether a call asks only for position gradients (its other gradient slots empty).
inline bool wants_positions_only(const OperatorCall& c) {
  for (int d = 0; d < slot::all_derived; ++d) {
    if (d != slot::set_derived(0, 0) && d != slot::set_derived(1, 0) &&
        entry_detail::given(c, slot::gradient(d))) {
      return false;
    }
  }
  return true;
}

/// The wrapper of VJP calls: each tracked array a variable (the others constants);
/// `copy_gradients` writes the gradients the call asks for (its gradient slots) after the
/// sweep, summing the roles of an array given in several slots.
template <Tracking Tracked = Tracking::all>
struct VariableArrays {
  const OperatorCall& c;
  std::vector<std::function<void(const Tape<Space>&)>> copies;
  std::vector<const void*> targets; // the gradient arrays written so far
  template <int d, class E>
  auto operator()(Derived<d>, Span<const E> span) {
    if constexpr (Tracked == Tracking::positions && d != slot::set_derived(0, 0) &&
                  d != slot::set_derived(1, 0)) {
      return span;
    } else {
      const Variable<E> v(span);
      const int s = slot::gradient(d);
      if (entry_detail::given(c, s)) {
        const auto g = entry_detail::view<E>(c, s, span.size());
        // One array in two gradient slots (an input in two roles): the second role's gradient
        // is added to the first's.
        const bool shared = std::find(targets.begin(), targets.end(), g.data()) != targets.end();
        targets.push_back(g.data());
        copies.emplace_back([v, g, shared](const Tape<Space>& tape) {
          if (shared) {
            tape.add_gradient(v, g);
          } else {
            tape.copy_gradient(v, g);
          }
        });
      }
      return v;
    }
  }
  void copy_gradients(const Tape<Space>& tape) const {
    for (const auto& copy : copies) {
      copy(tape);
    }
  }
};

/// Runs f(), reporting its exceptions in the call (an entry never throws across its boundary).
template <class F>
void reporting_errors(OperatorCall& c, F&& f) noexcept {
  try {
    f();
  } catch (const InvalidArgument& e) {
    c.status = 1;
    std::snprintf(c.message, sizeof c.message, "%s", e.what());
  } catch (const std::exception& e) {
    c.status = 2;
    std::snprintf(c.message, sizeof c.message, "%s", e.what());
  } catch (...) {
    c.status = 2;
    std::snprintf(c.message, sizeof c.message, "%s: unknown C++ exception", c.function);
  }
}

/// The trailing shape of output k.
template <class E>
void describe_output(OperatorCall& c, int k) {
  c.out_ndim[k] = entry_detail::Extents<E>::rank;
  entry_detail::Extents<E>::fill(c.out_shape[k]);
}

} // namespace sphad::python
