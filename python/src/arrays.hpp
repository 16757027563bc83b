// SPDX-License-Identifier: MIT
// How arrays cross from Python: any DLPack or buffer-protocol array (torch, NumPy) in host or
// CUDA memory, received untyped so that nanobind never converts (copies) one; its dtype, rank,
// shape and layout are checked here, naming the Python argument: a wrong dtype or a non-contiguous
// array is a TypeError, a wrong shape a ValueError (sphad::InvalidArgument).
#pragma once

#include <sphad/errors.hpp>
#include <sphad/math.hpp>
#include <sphad/span.hpp>

#include "dlpack_exchange.hpp"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <optional>
#include <string>

namespace sphad::python {

namespace nb = nanobind;

/// An array as received, without a copy: any dtype, any layout, host or CUDA memory. A view of a
/// torch tensor through DLPack's C exchange API (dlpack_exchange.hpp; valid while the call holds
/// the tensor), or of any other DLPack or buffer-protocol array through nanobind, which it keeps.
class Array {
public:
  static constexpr int max_rank = 8;

  Array() = default;

  /// DLPack's device types this module reads: host memory and CUDA device memory.
  static constexpr std::int32_t cpu = nb::device::cpu::value, cuda = nb::device::cuda::value;

  /// `object` as an array; nullopt where it is none in host or CUDA memory (or has more than
  /// max_rank dimensions).
  static std::optional<Array> from_python(nb::handle object) {
    Array a;
    dlpack_exchange::DLTensor view;
    if (dlpack_exchange::view(object, view)) {
      if ((view.device.device_type != cpu && view.device.device_type != cuda) ||
          view.ndim > max_rank || view.ndim < 0) {
        return std::nullopt;
      }
      a.device_ = view.device.device_type == cuda ? view.device.device_id : -1;
      a.data_ = static_cast<char*>(view.data) + view.byte_offset;
      a.ndim_ = view.ndim;
      a.dtype_ = view.dtype;
      std::int64_t compact = 1;
      for (int d = view.ndim; d-- > 0;) { // no strides: row-major
        a.shape_[d] = view.shape[d];
        a.strides_[d] = view.strides != nullptr ? view.strides[d] : compact;
        compact *= view.shape[d];
      }
      return a;
    }
    nb::ndarray<> owner;
    if (!nb::try_cast(object, owner, false) || owner.ndim() > std::size_t(max_rank) ||
        (owner.device_type() != cpu && owner.device_type() != cuda)) {
      return std::nullopt;
    }
    a.device_ = owner.device_type() == cuda ? owner.device_id() : -1;
    a.data_ = owner.data();
    a.ndim_ = int(owner.ndim());
    a.dtype_ = owner.dtype();
    for (int d = 0; d < a.ndim_; ++d) {
      a.shape_[d] = std::int64_t(owner.shape(std::size_t(d)));
      a.strides_[d] = owner.stride(std::size_t(d));
    }
    a.owner_ = std::move(owner);
    return a;
  }

  void* data() const { return data_; }
  std::size_t ndim() const { return std::size_t(ndim_); }
  std::size_t shape(std::size_t d) const { return std::size_t(shape_[d]); }
  /// In elements.
  std::int64_t stride(std::size_t d) const { return strides_[d]; }
  std::size_t size() const {
    std::size_t n = 1;
    for (int d = 0; d < ndim_; ++d) {
      n *= std::size_t(shape_[d]);
    }
    return n;
  }
  nb::dlpack::dtype dtype() const { return dtype_; }
  /// The CUDA device holding it; -1: host memory.
  int device() const { return device_; }

private:
  void* data_ = nullptr;
  int ndim_ = 0;
  nb::dlpack::dtype dtype_{};
  std::int64_t shape_[max_rank] = {};
  std::int64_t strides_[max_rank] = {};
  int device_ = -1;
  std::optional<nb::ndarray<>> owner_; ///< nanobind's import, kept alive
};

template <class T>
const char* dtype_name() {
  if constexpr (std::is_same_v<T, double>) {
    return "float64";
  } else if constexpr (std::is_same_v<T, float>) {
    return "float32";
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    return "int32";
  } else {
    return "int64";
  }
}

/// Where an array is, for messages: "the CPU" or "cuda:K".
inline std::string device_name(int device) {
  return device < 0 ? "the CPU" : "cuda:" + std::to_string(device);
}

inline std::string shape_of(const Array& a) {
  std::string s = "(";
  for (std::size_t d = 0; d < a.ndim(); ++d) {
    s += (d ? ", " : "") + std::to_string(a.shape(d));
  }
  return s + (a.ndim() == 1 ? ",)" : ")");
}

/// Whether `a` is C-contiguous (row-major, no gaps): strides are counted in elements. An array
/// without elements is (NumPy gives an empty one zero strides).
inline bool c_contiguous(const Array& a) {
  if (a.size() == 0) {
    return true;
  }
  std::int64_t expected = 1;
  for (std::size_t d = a.ndim(); d-- > 0;) {
    if (a.shape(d) != 1 && a.stride(d) != expected) {
      return false;
    }
    expected *= std::int64_t(a.shape(d));
  }
  return true;
}

/// A Python argument's name: a role's prefix ("" for the call's own arrays, "references." for
/// the reference set's) and the field, joined only when a message needs them.
struct Name {
  const char* prefix = "";
  const char* field;
  Name(const char* f) : field(f) {} // NOLINT: a plain name converts
  Name(const char* p, const char* f) : prefix(p), field(f) {}
  std::string str() const { return std::string(prefix) + field; }
};

/// `a`'s elements as E (T, or Vec<T, D> for a [n, D] array) after the checks: dtype T, rank 1
/// ([n]) or 2 ([n, D]), `rows` rows when rows >= 0, C-contiguous.
template <class T, int Columns = 0>
T* checked(const Array& a, const char* function, const Name& argument, std::int64_t rows = -1) {
  using namespace std::string_literals;
  if (a.device() >= 0) {
    throw nb::type_error(("sphad::"s + function + ": argument `" + argument.str() +
                          "` must be in host memory here (it is on " + device_name(a.device()) +
                          ")")
                             .c_str());
  }
  if (a.dtype() != nb::dtype<T>()) {
    throw nb::type_error(("sphad::"s + function + ": argument `" + argument.str() +
                          "` must have dtype " + dtype_name<T>() + " (no conversion is made)")
                             .c_str());
  }
  if (!c_contiguous(a)) {
    throw nb::type_error(("sphad::"s + function + ": argument `" + argument.str() +
                          "` must be contiguous (call .contiguous(); no copy is made)")
                             .c_str());
  }
  const bool rank_ok =
      Columns == 0 ? a.ndim() == 1 : a.ndim() == 2 && std::int64_t(a.shape(1)) == Columns;
  const bool rows_ok = rows < 0 || (a.ndim() >= 1 && std::int64_t(a.shape(0)) == rows);
  if (!rank_ok || !rows_ok) {
    const std::string want = Columns == 0 ? "(" + (rows < 0 ? "n"s : std::to_string(rows)) + ",)"
                                          : "(" + (rows < 0 ? "n"s : std::to_string(rows)) + ", " +
                                                std::to_string(Columns) + ")";
    sphad::detail::throw_invalid_argument(function, argument.str().c_str(),
                                          "has shape " + shape_of(a) + ", expected " + want);
  }
  return static_cast<T*>(a.data());
}

/// A span of n elements E over a checked array (E = Vec<T, D>: an [n, D] array).
template <class E, class T, int Columns>
Span<E>
span_of(const Array& a, const char* function, const Name& argument, std::int64_t rows = -1) {
  T* p = checked<std::remove_const_t<T>, Columns>(a, function, argument, rows);
  const std::int64_t n = a.ndim() == 0 ? 0 : std::int64_t(a.shape(0));
  return Span<E>(reinterpret_cast<E*>(p), n);
}

} // namespace sphad::python

/// `const Array&` parameters of the module's functions.
template <>
struct nanobind::detail::type_caster<sphad::python::Array> {
  NB_TYPE_CASTER(sphad::python::Array, const_name("ndarray"))

  bool from_python(handle src, uint8_t, cleanup_list*) noexcept {
    try {
      auto a = sphad::python::Array::from_python(src);
      if (!a) {
        return false;
      }
      value = std::move(*a);
      return true;
    } catch (...) {
      PyErr_Clear();
      return false;
    }
  }

  static handle from_cpp(const sphad::python::Array&, rv_policy, cleanup_list*) noexcept {
    return handle(); // arrays are never returned as Array
  }
};
