// SPDX-License-Identifier: MIT
// A search entry: the neighbour lists of one dimension D and scalar T in the entry's execution
// space — the search (`Verb::search`), a list copied from the caller's arrays and checked
// (`Verb::adopt`: the custom ops' lists of tensors) and the release of either. The module is
// compiled without CUDA: for CUDA arrays it makes and holds its lists through the search entry
// compiled for CUDA on first use (sphad/_jit.py), as opaque handles.
#pragma once

#include <sphad/search.hpp>

#include "call_args.hpp"

#include <memory>

namespace sphad::python {

template <int D, class T>
void search_entry(int verb, OperatorCall* call) noexcept {
  OperatorCall& c = *call;
  reporting_errors(c, [&] {
    using List = NeighborList<Space>;
    if (verb == int(Verb::release)) {
      const OnCallDevice on_device(c);
      delete static_cast<List*>(c.made_list);
      c.made_list = nullptr;
      return;
    }
    SPHAD_REQUIRE(verb == int(Verb::search) || verb == int(Verb::adopt), c.function, "verb",
                  "unknown to a search entry");
    const OnCallDevice on_device(c);
    const Space ex = space_of(c);
    const CallArgs<D, T, false, 0> args(c, true);
    auto made = std::make_unique<List>();
    if (verb == int(Verb::search)) {
      const auto points = [&](int role) {
        const auto n = args.rows[role];
        return SearchPoints<D, T>{
            args.template in<Vec<T, D>>(slot::input(role, 0), n, "is required"),
            args.template in<T>(slot::input(role, 1), n, "is required")};
      };
      SearchOptions<T> options;
      options.skin = T(c.skin);
      const auto queries = points(0);
      const auto references = points(1);
      *made = build_neighbor_list(ex, queries, references, args.domain, SupportScheme(c.scheme),
                                  options);
    } else {
      // The caller's offsets (int64, num_queries + 1) and neighbours (int32), copied on the
      // stream and checked against the references (one host read: a synchronization on CUDA).
      const ArrayRef& o = c.list_offsets;
      const ArrayRef& p = c.list_neighbors;
      SPHAD_REQUIRE(o.ndim == 1 && o.shape[0] >= 1, c.function, "offsets",
                    "must hold num_queries + 1 entries");
      SPHAD_REQUIRE(p.ndim == 1, c.function, "neighbors", "must be one-dimensional");
      made->offsets = Buffer<std::int64_t, Space>(ex, o.shape[0]);
      made->neighbors = Buffer<std::int32_t, Space>(ex, p.shape[0]);
      exec::copy(ex, static_cast<const std::int64_t*>(o.data), made->offsets.data(), o.shape[0]);
      exec::copy(ex, static_cast<const std::int32_t*>(p.data), made->neighbors.data(), p.shape[0]);
      made->num_queries = o.shape[0] - 1;
      made->num_pairs = p.shape[0];
      sphad::validate(ex, *made, args.rows[1]);
    }
    c.num_pairs = made->num_pairs;
    c.made_offsets = made->offsets.data();
    c.made_neighbors = made->neighbors.data();
    c.made_list = made.release();
  });
}

} // namespace sphad::python

/// Defines `extern "C" void NAME(int, OperatorCall*)` as the search entry of D and T.
#define SPHAD_PYTHON_SEARCH(NAME, D, T)                                                            \
  extern "C" void NAME(int verb, ::sphad::python::OperatorCall* call) {                            \
    ::sphad::python::search_entry<D, T>(verb, call);                                               \
  }
