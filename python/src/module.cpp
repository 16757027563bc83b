// SPDX-License-Identifier: MIT
// sphad._core: the C++ library's calls for Python. Arrays cross by DLPack or the buffer
// protocol without a copy (arrays.hpp); outputs are the caller's (destination passing), except
// the neighbour list, whose size the search decides; the GIL is released around the work.
// sphad/__init__.py and sphad/torch.py build the public API on these.
#include <sphad/errors.hpp>
#include <sphad/search.hpp>

#include "arrays.hpp"
#include "call_args.hpp"
#include "operator_call.hpp"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace nb = nanobind;
using namespace nb::literals;

namespace sphad::python {
/// The entries compiled into the module (generated: sphad/_entries.py).
void add_builtin_entries(std::vector<std::pair<std::string, EntryFunction>>& out);

namespace {

/// A neighbour list in CUDA memory: made by a search entry compiled for CUDA
/// (search_entry.hpp), held here as its handle, released through the same entry.
class DeviceList {
public:
  DeviceList(EntryFunction entry, const OperatorCall& made, std::int64_t queries)
      : entry_(entry), handle_(made.made_list), device(made.device), num_queries(queries),
        num_pairs(made.num_pairs), offsets(made.made_offsets), neighbors(made.made_neighbors) {}
  DeviceList(const DeviceList&) = delete;
  DeviceList& operator=(const DeviceList&) = delete;
  ~DeviceList() {
    OperatorCall c;
    c.function = "NeighborList";
    c.device = device;
    c.made_list = handle_;
    entry_(int(Verb::release), &c); // frees stream-ordered; never throws
  }
  const void* handle() const { return handle_; }

private:
  EntryFunction entry_;
  void* handle_;

public:
  const int device;
  const std::int64_t num_queries;
  const std::int64_t num_pairs;
  const std::int64_t* const offsets;
  const std::int32_t* const neighbors;
};

/// A neighbour list owned by C++ (its arrays are exposed read-only, without a copy): in host
/// memory, or in a CUDA device's (`device`; `list` then empty).
struct PyNeighborList {
  NeighborList<exec::host> list;
  std::unique_ptr<DeviceList> device;

  std::int64_t num_queries() const { return device ? device->num_queries : list.num_queries; }
  std::int64_t num_pairs() const { return device ? device->num_pairs : list.num_pairs; }
};

/// The box as Python gives it: lower and upper corners and the periodic flags, D each.
struct PyDomain {
  std::vector<double> min, max;
  std::vector<bool> periodic;

  template <int D, class T>
  Domain<D, T> get(const char* function) const {
    SPHAD_REQUIRE(min.size() == D && max.size() == D && periodic.size() == D, function, "domain",
                  sphad::detail::concat("has ", min.size(), ", ", max.size(), " and ",
                                        periodic.size(),
                                        " entries in min, max and periodic; the "
                                        "positions have ",
                                        D, " columns"));
    Domain<D, T> d{};
    for (int a = 0; a < D; ++a) {
      d.min[a] = T(min[a]);
      d.max[a] = T(max[a]);
      d.periodic[a] = periodic[a];
    }
    return d;
  }
};

/// What an operator call shares beyond its arrays: the list and the box (held alive by the
/// Python object) and the options.
struct PyCall {
  const PyNeighborList* neighbors;
  const PyDomain* domain;
  OperationDirection direction;
  double calibration_n_h;
  double tau; ///< the CRK limiter (< 0: the library's default)
};

/// f(std::integral_constant<int, D>{}, T{}) for positions of shape (n, D) and dtype T.
template <class F>
void with_dim_and_scalar(const char* function, const Array& positions, F&& f) {
  const bool is_double = positions.dtype() == nb::dtype<double>();
  if (!is_double && positions.dtype() != nb::dtype<float>()) {
    throw nb::type_error((std::string("sphad::") + function +
                          ": argument `positions` must have dtype float32 or float64")
                             .c_str());
  }
  const int d = positions.ndim() == 2 ? int(positions.shape(1)) : 0;
  const auto with_scalar = [&](auto dim) {
    if (is_double) {
      f(dim, double{});
    } else {
      f(dim, float{});
    }
  };
  switch (d) {
  case 1:
    return with_scalar(std::integral_constant<int, 1>{});
  case 2:
    return with_scalar(std::integral_constant<int, 2>{});
  case 3:
    return with_scalar(std::integral_constant<int, 3>{});
  default:
    sphad::detail::throw_invalid_argument(function, "positions",
                                          "has shape " + shape_of(positions) +
                                              ", expected (n, D), D = 1, 2, 3");
  }
}

/// The arrays of a call in their slots (operator_call.hpp): each given one checked for dtype
/// (kinds int32, every other the positions' float32 or float64) and layout (C-contiguous);
/// shapes are the entry's to check.
/// The arrays of a call's slots (None: not given), each distinct Python object imported once
/// (one set in both roles passes the same tensors twice).
std::vector<std::optional<Array>> import_arrays(const nb::sequence& objects, const char* function) {
  const std::size_t n = nb::len(objects);
  SPHAD_REQUIRE(n == std::size_t(slot::count), function, "arrays",
                sphad::detail::concat("has ", n, " entries, expected ", slot::count));
  std::vector<std::optional<Array>> arrays(n);
  std::vector<std::pair<PyObject*, std::size_t>> seen;
  for (std::size_t s = 0; s < n; ++s) {
    const nb::handle object = objects[s];
    if (object.is_none()) {
      continue;
    }
    const auto same = std::find_if(seen.begin(), seen.end(),
                                   [&](const auto& e) { return e.first == object.ptr(); });
    if (same != seen.end()) {
      arrays[s] = arrays[same->second];
      continue;
    }
    auto a = Array::from_python(object);
    if (!a) {
      throw nb::type_error(("sphad::" + std::string(function) + ": argument `" +
                            entry_detail::slot_name(int(s)) +
                            "` must be an array in host or CUDA memory (NumPy, or a torch "
                            "tensor through DLPack)")
                               .c_str());
    }
    arrays[s] = std::move(*a);
    seen.emplace_back(object.ptr(), s);
  }
  return arrays;
}

void fill_slots(OperatorCall& c, const std::vector<std::optional<Array>>& arrays) {
  using namespace std::string_literals;
  SPHAD_REQUIRE(arrays[0].has_value(), c.function, "positions", "is required");
  const Array& x = *arrays[0];
  with_dim_and_scalar(c.function, x, [&](auto dim, auto) { c.dim = decltype(dim)::value; });
  for (int s = 0; s < slot::count; ++s) {
    if (!arrays[std::size_t(s)]) {
      continue;
    }
    const Array& a = *arrays[std::size_t(s)];
    if (a.device() != x.device()) {
      throw nb::type_error(("sphad::"s + c.function + ": argument `" + entry_detail::slot_name(s) +
                            "` is on " + device_name(a.device()) + " and `positions` on " +
                            device_name(x.device()) +
                            ": every array of a call must be on the positions' device (no copy "
                            "is made)")
                               .c_str());
    }
    const bool kinds = s == slot::input(0, 3) || s == slot::input(1, 3);
    const bool int32 = a.dtype() == nb::dtype<std::int32_t>();
    // kinds are int32; an output may be (the entry checks which); the rest the positions' dtype
    const bool dtype_ok = kinds ? int32 : a.dtype() == x.dtype() || (s >= slot::out && int32);
    if (!dtype_ok || !c_contiguous(a)) {
      const std::string name = entry_detail::slot_name(s);
      const std::string dtype = kinds                              ? "int32"
                                : x.dtype() == nb::dtype<double>() ? "float64"
                                                                   : "float32";
      throw nb::type_error(("sphad::"s + c.function + ": argument `" + name + "` must " +
                            (dtype_ok ? "be contiguous (call .contiguous(); no copy is made)"
                                      : "have dtype " + dtype + " (no conversion is made)"))
                               .c_str());
    }
    ArrayRef& r = c.arrays[s];
    r.data = a.data();
    r.ndim = int(a.ndim());
    r.int32 = int32;
    SPHAD_REQUIRE(r.ndim <= 6, c.function, entry_detail::slot_name(s).c_str(),
                  sphad::detail::concat("has ", r.ndim, " axes (at most 6)"));
    for (int k = 0; k < r.ndim; ++k) {
      r.shape[k] = std::int64_t(a.shape(std::size_t(k)));
    }
  }
  c.device = x.device();
}

/// The box in the call (D entries each, the positions' D).
void set_domain(OperatorCall& c, const PyDomain& d) {
  SPHAD_REQUIRE(d.min.size() == std::size_t(c.dim) && d.max.size() == std::size_t(c.dim) &&
                    d.periodic.size() == std::size_t(c.dim),
                c.function, "domain",
                sphad::detail::concat(
                    "has ", d.min.size(), ", ", d.max.size(), " and ", d.periodic.size(),
                    " entries in min, max and periodic; the positions have ", c.dim, " columns"));
  for (int a = 0; a < c.dim; ++a) {
    c.min[a] = d.min[std::size_t(a)];
    c.max[a] = d.max[std::size_t(a)];
    c.periodic[a] = d.periodic[std::size_t(a)];
  }
}

/// On CUDA: the stream of the positions' producer (torch's current stream), else null.
void set_stream(OperatorCall& c, const nb::sequence& objects) {
  c.stream = c.device >= 0 ? dlpack_exchange::work_stream(objects[0], c.device) : nullptr;
}

/// Raises the entry's error, if any, as ValueError (invalid argument) or RuntimeError.
void raise_status(const OperatorCall& c) {
  if (c.status == 1) {
    throw nb::value_error(c.message);
  }
  if (c.status != 0) {
    throw std::runtime_error(c.message);
  }
}

/// Runs entry `address` (verb value, jvp or vjp) on the arrays in their slots, `repeats` times
/// (more than once: the benchmark's measure of the C++ side alone); the seconds per run.
double run_timed(std::uintptr_t address,
                 int verb,
                 const char* function,
                 const nb::sequence& objects,
                 const PyCall& call,
                 int repeats) {
  OperatorCall c;
  c.function = function;
  const auto arrays = import_arrays(objects, function);
  fill_slots(c, arrays);
  SPHAD_REQUIRE(verb >= 1 && verb <= 3, function, "verb", "must be 1, 2 or 3");
  set_domain(c, *call.domain);
  const DeviceList* on_device = call.neighbors->device.get();
  const int list_device = on_device != nullptr ? on_device->device : -1;
  SPHAD_REQUIRE(list_device == c.device, function, "neighbors",
                "is a list in " +
                    (list_device < 0 ? std::string("host memory") : device_name(list_device)) +
                    " and the positions are on " + device_name(c.device) +
                    ": search with the positions on their device");
  c.list = on_device != nullptr ? on_device->handle() : &call.neighbors->list;
  set_stream(c, objects);
  c.direction = call.direction;
  c.calibration_n_h = call.calibration_n_h;
  c.tau = call.tau;
  const auto entry = reinterpret_cast<EntryFunction>(address);
  double seconds = 0.0;
  {
    nb::gil_scoped_release unlocked;
    const auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < repeats && c.status == 0; ++r) {
      entry(verb, &c);
    }
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  raise_status(c);
  return seconds / std::max(repeats, 1);
}

void run(std::uintptr_t address,
         int verb,
         const char* function,
         const nb::sequence& objects,
         const PyCall& call) {
  run_timed(address, verb, function, objects, call, 1);
}

/// A list in CUDA memory made by search entry `address` (verb search or adopt) over the arrays
/// in their slots (the queries' and references' positions and supports).
std::unique_ptr<DeviceList> make_device_list(std::uintptr_t address,
                                             Verb verb,
                                             const char* function,
                                             const nb::sequence& objects,
                                             const PyDomain& domain,
                                             int scheme,
                                             double skin,
                                             const Array* offsets = nullptr,
                                             const Array* neighbors = nullptr) {
  OperatorCall c;
  c.function = function;
  const auto arrays = import_arrays(objects, function);
  fill_slots(c, arrays);
  SPHAD_REQUIRE(c.device >= 0, function, "positions", "is not in CUDA memory");
  set_domain(c, domain);
  set_stream(c, objects);
  c.scheme = scheme;
  c.skin = skin;
  if (verb == Verb::adopt) {
    const auto list_array = [&](const Array& a, ArrayRef& r, bool int64, const char* name) {
      const bool dtype_ok =
          a.dtype() == (int64 ? nb::dtype<std::int64_t>() : nb::dtype<std::int32_t>());
      if (!dtype_ok || !c_contiguous(a) || a.device() != c.device) {
        throw nb::type_error(("sphad::" + std::string(function) + ": argument `" + name +
                              "` must be a contiguous " + (int64 ? "int64" : "int32") +
                              " array on " + device_name(c.device) + " (no copy is made)")
                                 .c_str());
      }
      r.data = a.data();
      r.ndim = int(a.ndim());
      r.int32 = !int64;
      r.shape[0] = a.ndim() >= 1 ? std::int64_t(a.shape(0)) : 0;
    };
    list_array(*offsets, c.list_offsets, true, "offsets");
    list_array(*neighbors, c.list_neighbors, false, "neighbors");
  }
  const auto entry = reinterpret_cast<EntryFunction>(address);
  {
    nb::gil_scoped_release unlocked;
    entry(int(verb), &c);
  }
  raise_status(c);
  return std::make_unique<DeviceList>(entry, c,
                                      verb == Verb::search ? c.arrays[slot::input(0, 0)].shape[0]
                                                           : c.list_offsets.shape[0] - 1);
}

/// `run` over a neighbour list given as arrays (torch tensors: the custom ops' path), with the
/// box and the options as plain values. The list is the caller's memory, adopted for the call
/// and released after it; it is checked entry by entry (a hand-made list).
void run_with_list(std::uintptr_t address,
                   int verb,
                   const char* function,
                   const nb::sequence& arrays,
                   const Array& offsets,
                   const Array& neighbors,
                   const std::vector<double>& min,
                   const std::vector<double>& max,
                   const std::vector<bool>& periodic,
                   OperationDirection direction,
                   double calibration_n_h,
                   double tau,
                   std::uintptr_t search_entry) {
  const PyDomain domain{min, max, periodic};
  if (offsets.device() >= 0 || neighbors.device() >= 0) {
    // CUDA: the list copied and checked on the device by the search entry (one host read).
    SPHAD_REQUIRE(search_entry != 0, function, "neighbors",
                  "is in CUDA memory: give the search entry of the positions' D and dtype");
    PyNeighborList holder;
    holder.device = make_device_list(search_entry, Verb::adopt, function, arrays, domain, 0, 0.0,
                                     &offsets, &neighbors);
    run(address, verb, function, arrays, PyCall{&holder, &domain, direction, calibration_n_h, tau});
    return;
  }
  const auto rows =
      span_of<const std::int64_t, const std::int64_t, 0>(offsets, function, "offsets");
  const auto pairs =
      span_of<const std::int32_t, const std::int32_t, 0>(neighbors, function, "neighbors");
  SPHAD_REQUIRE(rows.size() >= 1, function, "offsets", "must hold num_queries + 1 entries");
  PyNeighborList holder;
  // The caller's memory, adopted for the call and released (never freed) whatever happens.
  struct Release {
    NeighborList<exec::host>& list;
    ~Release() {
      sphad::detail::release_host_memory(list.offsets);
      sphad::detail::release_host_memory(list.neighbors);
    }
  } release{holder.list};
  holder.list.offsets =
      sphad::detail::adopt_host_memory(const_cast<std::int64_t*>(rows.data()), rows.size());
  holder.list.neighbors =
      sphad::detail::adopt_host_memory(const_cast<std::int32_t*>(pairs.data()), pairs.size());
  holder.list.num_queries = rows.size() - 1;
  holder.list.num_pairs = pairs.size();
  run(address, verb, function, arrays, PyCall{&holder, &domain, direction, calibration_n_h, tau});
}

/// The outputs' trailing shapes and what the operator reads (entry `address`).
nb::tuple describe(std::uintptr_t address, const char* function) {
  OperatorCall c;
  c.function = function;
  reinterpret_cast<EntryFunction>(address)(int(Verb::describe), &c);
  raise_status(c);
  nb::list outputs, integer;
  for (int o = 0; o < c.outputs; ++o) {
    nb::list shape;
    for (int k = 0; k < c.out_ndim[o]; ++k) {
      shape.append(c.out_shape[o][k]);
    }
    outputs.append(nb::tuple(shape));
    integer.append(c.out_int32[o]);
  }
  return nb::make_tuple(nb::tuple(outputs), c.needs_densities, c.needs_values, nb::tuple(integer));
}

PyNeighborList neighbor_list(const Array& query_positions,
                             const Array& query_supports,
                             const Array& reference_positions,
                             const Array& reference_supports,
                             const PyDomain& domain,
                             SupportScheme support,
                             double skin) {
  constexpr const char* function = "neighbor_list";
  PyNeighborList out;
  with_dim_and_scalar(function, query_positions, [&](auto dim, auto scalar) {
    constexpr int D = decltype(dim)::value;
    using T = decltype(scalar);
    const auto points = [&](const Array& positions, const Array& supports, const char* role) {
      const auto x = span_of<const Vec<T, D>, const T, D>(positions, function, {role, "positions"});
      return SearchPoints<D, T>{
          x, span_of<const T, const T, 0>(supports, function, {role, "supports"}, x.size())};
    };
    const auto queries = points(query_positions, query_supports, "");
    const auto references = points(reference_positions, reference_supports, "references.");
    SearchOptions<T> options;
    options.skin = T(skin);
    const Domain<D, T> box = domain.get<D, T>(function);
    nb::gil_scoped_release unlocked;
    out.list = build_neighbor_list(exec::host{}, queries, references, box, support, options);
  });
  return out;
}

/// The search of CUDA arrays (`arrays`: the call's slots, the queries' and the references'
/// positions and supports given) through search entry `address`.
PyNeighborList neighbor_list_on_device(std::uintptr_t address,
                                       const nb::sequence& arrays,
                                       const PyDomain& domain,
                                       SupportScheme support,
                                       double skin) {
  PyNeighborList out;
  out.device =
      make_device_list(address, Verb::search, "neighbor_list", arrays, domain, int(support), skin);
  return out;
}

/// A read-only view of a list's array, without a copy: a NumPy array in host memory, a DLPack
/// array (torch.from_dlpack reads it) in CUDA memory.
template <class T>
nb::object list_array(const PyNeighborList& l, const T* data, std::int64_t n, nb::handle self) {
  if (l.device) {
    return nb::cast(nb::ndarray<const T, nb::ndim<1>>(data, {std::size_t(n)}, self, {},
                                                      nb::dtype<T>(), nb::device::cuda::value,
                                                      l.device->device));
  }
  return nb::cast(nb::ndarray<nb::numpy, const T, nb::ndim<1>>(data, {std::size_t(n)}, self));
}

} // namespace
} // namespace sphad::python

NB_MODULE(_core, m) {
  using namespace sphad;
  using namespace sphad::python;
  m.doc() = "sphad's C++ calls (the public API is the sphad package)";
  // A torch autograd graph still alive at interpreter exit (a global `loss`) holds `_Call` and
  // `NeighborList` objects that torch never releases; nanobind would report them as leaks. A
  // loop of 9 000 searches, calls and backwards keeps a constant peak RSS (no leak at run time).
  nb::set_leak_warnings(false);

  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const InvalidArgument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  nb::enum_<KernelId>(m, "Kernel")
      .value("Wendland2", KernelId::Wendland2)
      .value("Wendland4", KernelId::Wendland4)
      .value("Wendland6", KernelId::Wendland6)
      .value("Poly6", KernelId::Poly6)
      .value("Spiky", KernelId::Spiky)
      .value("CubicSpline", KernelId::CubicSpline)
      .value("QuarticSpline", KernelId::QuarticSpline)
      .value("QuinticSpline", KernelId::QuinticSpline)
      .value("B8", KernelId::B8)
      .value("B7", KernelId::B7)
      .value("HOCT4", KernelId::HOCT4)
      .value("Gaussian", KernelId::Gaussian)
      .value("ViscosityKernel", KernelId::ViscosityKernel)
      .value("CohesionKernel", KernelId::CohesionKernel)
      .value("AdhesionKernel", KernelId::AdhesionKernel);
  nb::enum_<SupportScheme>(m, "SupportScheme")
      .value("Gather", SupportScheme::Gather)
      .value("Scatter", SupportScheme::Scatter)
      .value("MeanSymmetric", SupportScheme::MeanSymmetric)
      .value("KernelMeanSymmetric", SupportScheme::KernelMeanSymmetric)
      .value("SuperSymmetric", SupportScheme::SuperSymmetric)
      .value("PartialSymmetric", SupportScheme::PartialSymmetric);
  nb::enum_<OperationDirection>(m, "Direction")
      .value("TrueAllToAll", OperationDirection::TrueAllToAll)
      .value("FluidToFluid", OperationDirection::FluidToFluid)
      .value("FluidToBoundary", OperationDirection::FluidToBoundary)
      .value("BoundaryToFluid", OperationDirection::BoundaryToFluid)
      .value("BoundaryToBoundary", OperationDirection::BoundaryToBoundary)
      .value("FluidToGhost", OperationDirection::FluidToGhost)
      .value("GhostToFluid", OperationDirection::GhostToFluid)
      .value("BoundaryToGhost", OperationDirection::BoundaryToGhost)
      .value("GhostToBoundary", OperationDirection::GhostToBoundary)
      .value("AllToAll", OperationDirection::AllToAll)
      .value("AllToGhost", OperationDirection::AllToGhost)
      .value("AllToFluid", OperationDirection::AllToFluid)
      .value("AllToBoundary", OperationDirection::AllToBoundary)
      .value("FluidToAll", OperationDirection::FluidToAll)
      .value("BoundaryToAll", OperationDirection::BoundaryToAll);

  nb::enum_<GradientScheme>(m, "GradientScheme")
      .value("Naive", GradientScheme::Naive)
      .value("Symmetric", GradientScheme::Symmetric)
      .value("Difference", GradientScheme::Difference)
      .value("Summation", GradientScheme::Summation);
  nb::enum_<LaplacianScheme>(m, "LaplacianScheme")
      .value("Naive", LaplacianScheme::Naive)
      .value("Brookshaw", LaplacianScheme::Brookshaw)
      .value("Dot", LaplacianScheme::Dot)
      .value("Default", LaplacianScheme::Default);
  nb::enum_<DivergenceMode>(m, "DivergenceMode")
      .value("Standard", DivergenceMode::Standard)
      .value("Dot", DivergenceMode::Dot);

  nb::class_<PyDomain>(m, "_Domain")
      .def(nb::init<std::vector<double>, std::vector<double>, std::vector<bool>>(), "min"_a,
           "max"_a, "periodic"_a);

  nb::class_<PyNeighborList>(m, "NeighborList")
      .def_prop_ro("num_queries", &PyNeighborList::num_queries)
      .def_prop_ro("num_pairs", &PyNeighborList::num_pairs)
      .def_prop_ro(
          "device", [](const PyNeighborList& l) { return l.device ? l.device->device : -1; },
          "the CUDA device holding the list; -1: host memory")
      .def_prop_ro(
          "offsets",
          [](nb::handle self) {
            const auto& l = nb::cast<const PyNeighborList&>(self);
            return list_array(l, l.device ? l.device->offsets : l.list.offsets.data(),
                              l.num_queries() + 1, self);
          },
          "int64 [num_queries + 1], read-only, no copy (a DLPack array in CUDA memory)")
      .def_prop_ro(
          "neighbors",
          [](nb::handle self) {
            const auto& l = nb::cast<const PyNeighborList&>(self);
            return list_array(l, l.device ? l.device->neighbors : l.list.neighbors.data(),
                              l.num_pairs(), self);
          },
          "int32 [num_pairs], read-only, no copy (a DLPack array in CUDA memory)");

  m.def(
      "_exchange_api",
      [](nb::handle object) { return dlpack_exchange::api_of(Py_TYPE(object.ptr())) != nullptr; },
      "Whether arrays of this object's type are read through DLPack's C exchange API.");
  // The address the module reads an array at (the zero-copy test compares it with the array's).
  m.def("_address", [](const Array& a) { return reinterpret_cast<std::uintptr_t>(a.data()); });

  nb::class_<PyCall>(m, "_Call")
      .def(
          "__init__",
          [](PyCall* self, const PyNeighborList& neighbors, const PyDomain& domain,
             OperationDirection direction, double calibration_n_h, double tau) {
            new (self) PyCall{&neighbors, &domain, direction, calibration_n_h, tau};
          },
          "neighbors"_a, "domain"_a, "direction"_a, "calibration_n_h"_a, "tau"_a = -1.0,
          nb::keep_alive<1, 2>(), nb::keep_alive<1, 3>());
  m.def("neighbor_list", &neighbor_list, "query_positions"_a, "query_supports"_a,
        "reference_positions"_a, "reference_supports"_a, "domain"_a, "support"_a, "skin"_a);
  m.def("run", &run, "entry"_a, "verb"_a, "function"_a, "arrays"_a, "call"_a,
        "Runs an operator entry on the arrays in their slots (sphad/_entries.py).");
  m.def("_run_timed", &run_timed, "entry"_a, "verb"_a, "function"_a, "arrays"_a, "call"_a,
        "repeats"_a, "`run` repeated: the seconds per run of the C++ entry alone (benchmarks).");
  m.def("run_with_list", &run_with_list, "entry"_a, "verb"_a, "function"_a, "arrays"_a, "offsets"_a,
        "neighbors"_a, "min"_a, "max"_a, "periodic"_a, "direction"_a, "calibration_n_h"_a, "tau"_a,
        "search_entry"_a = 0,
        "run over a list given as arrays (the caller's memory, checked entry by entry; in CUDA "
        "memory copied and checked by `search_entry`).");
  m.def("neighbor_list_on_device", &neighbor_list_on_device, "entry"_a, "arrays"_a, "domain"_a,
        "support"_a, "skin"_a,
        "The search of CUDA arrays (the slots' positions and supports of both sets) through a "
        "search entry.");
  m.def("describe", &describe, "entry"_a, "function"_a = "describe",
        "(output's trailing shape, needs densities, needs values) of an operator entry.");
  m.def(
      "builtin_entries",
      [] {
        std::vector<std::pair<std::string, EntryFunction>> entries;
        add_builtin_entries(entries);
        nb::dict out;
        for (const auto& [key, f] : entries) {
          out[key.c_str()] = reinterpret_cast<std::uintptr_t>(f);
        }
        return out;
      },
      "The entries compiled into the module: key -> address.");
  nb::dict slots;
  slots["inputs"] = slot::inputs;
  slots["corrections"] = slot::correction(0);
  slots["tangents"] = slot::tangent(0);
  slots["gradients"] = slot::gradient(0);
  slots["out"] = slot::out;
  slots["out_tangent"] = slot::out_tangent;
  slots["seed"] = slot::seed;
  slots["outputs"] = slot::outputs;
  slots["count"] = slot::count;
  m.attr("slots") = slots;
}
