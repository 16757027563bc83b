// SPDX-License-Identifier: MIT
// sphad._core: the C++ library's calls for Python. Arrays cross by DLPack or the buffer
// protocol without a copy (arrays.hpp); outputs are the caller's (destination passing), except
// the neighbour list, whose size the search decides; the GIL is released around the work.
// sphad/__init__.py and sphad/torch.py build the public API on these.
#include <sphad/errors.hpp>
#include <sphad/search.hpp>

#include "arrays.hpp"
#include "density.hpp"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace nb = nanobind;
using namespace nb::literals;

namespace sphad::python {
namespace {

/// A neighbour list owned by C++ (its arrays are exposed read-only, without a copy).
struct PyNeighborList {
  NeighborList<exec::host> list;
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

/// What a Density call shares beyond the particle arrays: the list, the box and the runtime
/// choices (made once per autograd Function call; holds the list and the box alive).
struct PyCall {
  const PyNeighborList* neighbors;
  const PyDomain* domain;
  KernelId kernel;
  SupportScheme support;
  OperationDirection direction;
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

/// A set's arrays as Python passes them (queries or references).
struct PySet {
  const Array& positions;
  const Array& supports;
  const Array& masses;
  const Array& kinds;
  const char* role; ///< "" (queries) or "references." (references), before the names
};

template <int D, class T>
SetViews<D, T> set_views(const char* function, const PySet& s) {
  const auto x = span_of<const Vec<T, D>, const T, D>(s.positions, function, {s.role, "positions"});
  const std::int64_t n = x.size();
  return {
      x, span_of<const T, const T, 0>(s.supports, function, {s.role, "supports"}, n),
      span_of<const T, const T, 0>(s.masses, function, {s.role, "masses"}, n),
      span_of<const std::int32_t, const std::int32_t, 0>(s.kinds, function, {s.role, "kinds"}, n)};
}

/// f(call) with the checked DensityCall<D, T> of the query positions' D and T.
template <class F>
void with_density_call(const char* function,
                       const PySet& queries,
                       const PySet& references,
                       const PyCall& call,
                       F&& f) {
  with_dim_and_scalar(function, queries.positions, [&](auto dim, auto scalar) {
    constexpr int D = decltype(dim)::value;
    using T = decltype(scalar);
    f(DensityCall<D, T>{set_views<D, T>(function, queries), set_views<D, T>(function, references),
                        call.domain->get<D, T>(function), &call.neighbors->list, call.kernel,
                        call.support, ApplyOptions<T>{call.direction}, function});
  });
}

/// An optional array as a span (empty for None), named by role and field.
template <class E, class T, int Columns>
Span<E> optional_span(const std::optional<Array>& a,
                      const char* function,
                      const char* role,
                      const char* name,
                      std::int64_t rows) {
  return a ? span_of<E, T, Columns>(*a, function, {role, name}, rows) : Span<E>{};
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
    kernels::dispatch(support, [&](auto s) {
      out.list =
          build_neighbor_list<decltype(s)::value>(exec::host{}, queries, references, box, options);
    });
  });
  return out;
}

void call_density(const Array& out,
                  const Array& query_positions,
                  const Array& query_supports,
                  const Array& query_masses,
                  const Array& query_kinds,
                  const Array& reference_positions,
                  const Array& reference_supports,
                  const Array& reference_masses,
                  const Array& reference_kinds,
                  const PyCall& call) {
  constexpr const char* function = "density";
  const PySet queries{query_positions, query_supports, query_masses, query_kinds, ""};
  const PySet references{reference_positions, reference_supports, reference_masses, reference_kinds,
                         "references."};
  with_density_call(function, queries, references, call, [&](const auto& c) {
    using T = typename std::decay_t<decltype(c)>::scalar;
    const auto rho = span_of<T, T, 0>(out, function, "out", c.queries.positions.size());
    nb::gil_scoped_release unlocked;
    density_value(c, rho);
  });
}

void call_density_jvp(const Array& out,
                      const Array& out_tangent,
                      const Array& query_positions,
                      const Array& query_supports,
                      const Array& query_masses,
                      const Array& query_kinds,
                      const Array& reference_positions,
                      const Array& reference_supports,
                      const Array& reference_masses,
                      const Array& reference_kinds,
                      const std::optional<Array>& query_positions_tangent,
                      const std::optional<Array>& query_supports_tangent,
                      const std::optional<Array>& query_masses_tangent,
                      const std::optional<Array>& reference_positions_tangent,
                      const std::optional<Array>& reference_supports_tangent,
                      const std::optional<Array>& reference_masses_tangent,
                      const PyCall& call) {
  constexpr const char* function = "density_jvp";
  const PySet queries{query_positions, query_supports, query_masses, query_kinds, ""};
  const PySet references{reference_positions, reference_supports, reference_masses, reference_kinds,
                         "references."};
  with_density_call(function, queries, references, call, [&](const auto& c) {
    using C = std::decay_t<decltype(c)>;
    constexpr int D = C::dim;
    using T = typename C::scalar;
    const auto tangents = [&](const auto& x, const auto& h, const auto& m, const char* role,
                              std::int64_t n) {
      return SetTangents<D, T>{
          optional_span<const Vec<T, D>, const T, D>(x, function, role, "positions_tangent", n),
          optional_span<const T, const T, 0>(h, function, role, "supports_tangent", n),
          optional_span<const T, const T, 0>(m, function, role, "masses_tangent", n)};
    };
    const std::int64_t nq = c.queries.positions.size();
    const std::int64_t nr = c.references.positions.size();
    const auto dq =
        tangents(query_positions_tangent, query_supports_tangent, query_masses_tangent, "", nq);
    const auto dr = tangents(reference_positions_tangent, reference_supports_tangent,
                             reference_masses_tangent, "references.", nr);
    const auto rho = span_of<T, T, 0>(out, function, "out", nq);
    const auto rho_dot = span_of<T, T, 0>(out_tangent, function, "out_tangent", nq);
    nb::gil_scoped_release unlocked;
    density_jvp(c, dq, dr, rho, rho_dot);
  });
}

void call_density_vjp(const Array& seed,
                      const std::optional<Array>& query_positions_grad,
                      const std::optional<Array>& query_supports_grad,
                      const std::optional<Array>& query_masses_grad,
                      const std::optional<Array>& reference_positions_grad,
                      const std::optional<Array>& reference_supports_grad,
                      const std::optional<Array>& reference_masses_grad,
                      const Array& query_positions,
                      const Array& query_supports,
                      const Array& query_masses,
                      const Array& query_kinds,
                      const Array& reference_positions,
                      const Array& reference_supports,
                      const Array& reference_masses,
                      const Array& reference_kinds,
                      const PyCall& call) {
  constexpr const char* function = "density_vjp";
  const PySet queries{query_positions, query_supports, query_masses, query_kinds, ""};
  const PySet references{reference_positions, reference_supports, reference_masses, reference_kinds,
                         "references."};
  with_density_call(function, queries, references, call, [&](const auto& c) {
    using C = std::decay_t<decltype(c)>;
    constexpr int D = C::dim;
    using T = typename C::scalar;
    const auto gradients = [&](const auto& x, const auto& h, const auto& m, const char* role,
                               std::int64_t n) {
      return SetGradients<D, T>{
          optional_span<Vec<T, D>, T, D>(x, function, role, "positions_grad", n),
          optional_span<T, T, 0>(h, function, role, "supports_grad", n),
          optional_span<T, T, 0>(m, function, role, "masses_grad", n)};
    };
    const std::int64_t nq = c.queries.positions.size();
    const std::int64_t nr = c.references.positions.size();
    const auto rho_bar = span_of<const T, const T, 0>(seed, function, "seed", nq);
    const auto gq = gradients(query_positions_grad, query_supports_grad, query_masses_grad, "", nq);
    const auto gr = gradients(reference_positions_grad, reference_supports_grad,
                              reference_masses_grad, "references.", nr);
    nb::gil_scoped_release unlocked;
    density_vjp(c, rho_bar, gq, gr);
  });
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

  nb::class_<PyDomain>(m, "_Domain")
      .def(nb::init<std::vector<double>, std::vector<double>, std::vector<bool>>(), "min"_a,
           "max"_a, "periodic"_a);

  nb::class_<PyNeighborList>(m, "NeighborList")
      .def_prop_ro("num_queries", [](const PyNeighborList& l) { return l.list.num_queries; })
      .def_prop_ro("num_pairs", [](const PyNeighborList& l) { return l.list.num_pairs; })
      .def_prop_ro(
          "offsets",
          [](const PyNeighborList& l) {
            return nb::ndarray<nb::numpy, const std::int64_t, nb::ndim<1>>(
                l.list.offsets.data(), {std::size_t(l.list.num_queries + 1)}, nb::handle());
          },
          nb::rv_policy::reference_internal, "int64 [num_queries + 1], read-only, no copy")
      .def_prop_ro(
          "neighbors",
          [](const PyNeighborList& l) {
            return nb::ndarray<nb::numpy, const std::int32_t, nb::ndim<1>>(
                l.list.neighbors.data(), {std::size_t(l.list.num_pairs)}, nb::handle());
          },
          nb::rv_policy::reference_internal, "int32 [num_pairs], read-only, no copy");

  // The address the module reads an array at (the zero-copy test compares it with the array's).
  m.def("_address", [](const Array& a) { return reinterpret_cast<std::uintptr_t>(a.data()); });

  nb::class_<PyCall>(m, "_Call")
      .def(
          "__init__",
          [](PyCall* self, const PyNeighborList& neighbors, const PyDomain& domain, KernelId kernel,
             SupportScheme support, OperationDirection direction) {
            new (self) PyCall{&neighbors, &domain, kernel, support, direction};
          },
          "neighbors"_a, "domain"_a, "kernel"_a, "support"_a, "direction"_a, nb::keep_alive<1, 2>(),
          nb::keep_alive<1, 3>());
  m.def("neighbor_list", &neighbor_list, "query_positions"_a, "query_supports"_a,
        "reference_positions"_a, "reference_supports"_a, "domain"_a, "support"_a, "skin"_a);
  m.def("density", &call_density, "out"_a, "query_positions"_a, "query_supports"_a,
        "query_masses"_a, "query_kinds"_a, "reference_positions"_a, "reference_supports"_a,
        "reference_masses"_a, "reference_kinds"_a, "call"_a);
  m.def("density_jvp", &call_density_jvp, "out"_a, "out_tangent"_a, "query_positions"_a,
        "query_supports"_a, "query_masses"_a, "query_kinds"_a, "reference_positions"_a,
        "reference_supports"_a, "reference_masses"_a, "reference_kinds"_a,
        "query_positions_tangent"_a.none(), "query_supports_tangent"_a.none(),
        "query_masses_tangent"_a.none(), "reference_positions_tangent"_a.none(),
        "reference_supports_tangent"_a.none(), "reference_masses_tangent"_a.none(), "call"_a);
  m.def("density_vjp", &call_density_vjp, "seed"_a, "query_positions_grad"_a.none(),
        "query_supports_grad"_a.none(), "query_masses_grad"_a.none(),
        "reference_positions_grad"_a.none(), "reference_supports_grad"_a.none(),
        "reference_masses_grad"_a.none(), "query_positions"_a, "query_supports"_a, "query_masses"_a,
        "query_kinds"_a, "reference_positions"_a, "reference_supports"_a, "reference_masses"_a,
        "reference_kinds"_a, "call"_a);
}
