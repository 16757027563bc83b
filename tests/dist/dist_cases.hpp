// SPDX-License-Identifier: MIT
// The distributed operator matrix: the derivative matrix's inputs (tests/ops/derivative_matrix.hpp,
// every input with a random tangent) split over the ranks and run through the halo, against the
// same code with the whole set on one rank.
#pragma once

#include <sphad/dist.hpp>

#include "ops/derivative_matrix.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace sphad::test {

/// max over the ranks.
inline double rank_max(const dist::Communicator& comm, double value) {
  return comm.all_max(value);
}

/// Σ over the ranks, in rank order.
inline double rank_sum(const dist::Communicator& comm, double value) {
  double sum = 0;
  for (const double v : comm.all_gather(value)) {
    sum += v;
  }
  return sum;
}

/// The particles of `x` that `decomposition` gives this rank, by increasing id.
template <int D>
std::vector<std::int64_t> owned_ids(const dist::Communicator& comm,
                                    const dist::Decomposition<D, double>& decomposition,
                                    const std::vector<Vec<double, D>>& x) {
  std::vector<std::int64_t> ids;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (decomposition.owner(x[i]) == comm.rank()) {
      ids.push_back(std::int64_t(i));
    }
  }
  return ids;
}

template <class E>
std::vector<E> rows(const std::vector<E>& v, const std::vector<std::int64_t>& ids) {
  std::vector<E> out;
  for (const auto id : ids) {
    out.push_back(v[std::size_t(id)]);
  }
  return out;
}

/// One rank's share of `JVPInputs`: the owned rows, and the arrays the references read extended
/// by the halo (values and tangents gathered alike).
template <int D>
struct Share {
  using V = Vec<double, D>;
  using M = Mat<double, D, D>;
  dist::Communicator comm;
  std::vector<std::int64_t> ids;
  dist::HaloPlan<exec::host> plan;
  struct Owned {
    Differentiable<V> x, v, b, grad_a;
    Differentiable<double> h, m, rho, volume, omega, f, a;
    Differentiable<M> matrix_field, grad_b, l;
    std::vector<std::int32_t> kinds;
  } own;                  ///< the owned rows of every array
  Differentiable<V> x, v; ///< extended
  Differentiable<double> h, m, rho, volume, omega, f;
  Differentiable<M> matrix_field;
  std::vector<std::int32_t> kinds;
  NeighborList<exec::host> list; ///< owned against extended

  template <class E>
  Differentiable<E> extend(const Differentiable<E>& owned) const {
    Differentiable<E> out;
    out.value.resize(std::size_t(plan.extended()));
    out.tangent.resize(std::size_t(plan.extended()));
    dist::halo_gather(exec::host{}, plan, view_of(owned.value),
                      Span<E>{out.value.data(), plan.extended()});
    dist::halo_gather(exec::host{}, plan, view_of(owned.tangent),
                      Span<E>{out.tangent.data(), plan.extended()});
    return out;
  }

  template <class E>
  Differentiable<E> restrict(const Differentiable<E>& global) const {
    return {rows(global.value, ids), rows(global.tangent, ids)};
  }

  Share(const dist::Communicator& c,
        const dist::Decomposition<D, double>& decomposition,
        const JVPInputs<D>& in)
      : comm(c), ids(owned_ids(c, decomposition, in.x.value)) {
    // The frozen neighbour set of JVPInputs: supports widened by 5 % (and the tangent's step).
    std::vector<double> wide(in.h.value.size());
    for (std::size_t i = 0; i < wide.size(); ++i) {
      wide[i] = 1.05 * (in.h.value[i] + 1e-3 * std::abs(in.h.tangent[i]));
    }
    const double width = *std::max_element(wide.begin(), wide.end());
    own.x = restrict(in.x);
    plan =
        dist::HaloPlan<exec::host>(comm, exec::host{}, decomposition, view_of(own.x.value), width);
    own.h = restrict(in.h), own.m = restrict(in.m), own.rho = restrict(in.rho);
    own.volume = restrict(in.volume), own.omega = restrict(in.omega), own.f = restrict(in.f);
    own.a = restrict(in.a), own.v = restrict(in.v), own.b = restrict(in.b);
    own.grad_a = restrict(in.grad_a), own.matrix_field = restrict(in.matrix_field);
    own.grad_b = restrict(in.grad_b), own.l = restrict(in.l);
    own.kinds = rows(in.kinds, ids);
    x = extend(own.x), v = extend(own.v), h = extend(own.h), m = extend(own.m);
    rho = extend(own.rho), volume = extend(own.volume), omega = extend(own.omega);
    f = extend(own.f), matrix_field = extend(own.matrix_field);
    kinds.resize(std::size_t(plan.extended()));
    dist::halo_gather(exec::host{}, plan, view_of(own.kinds),
                      Span<std::int32_t>{kinds.data(), plan.extended()});
    const auto owned_wide = rows(wide, ids);
    std::vector<double> extended_wide(std::size_t(plan.extended()));
    dist::halo_gather(exec::host{}, plan, view_of(owned_wide),
                      Span<double>{extended_wide.data(), plan.extended()});
    list = build_neighbor_list<SupportScheme::SuperSymmetric>(
        exec::host{}, SearchPoints<D, double>{view_of(own.x.value), view_of(owned_wide)},
        SearchPoints<D, double>{view_of(x.value), view_of(extended_wide)}, in.domain);
  }
};

/// An operator's results per owned row, flattened: value, tangent (JVP) and the gradient of
/// every input (VJP, the inputs in a fixed order); and the two sides of the dot-product test,
/// summed over the ranks.
struct RowResults {
  std::vector<std::vector<double>> primal, tangent, gradient;
  double vjp_dot = 0, jvp_dot = 0, dot_scale = 0;
};

/// ȳ of one output scalar, the same for a particle on any rank.
inline double seed_of(std::int64_t id, std::size_t k) {
  return std::sin(0.7 + 1.37 * double(id) + 2.11 * double(k));
}

template <class Op, int D>
RowResults evaluate_share(const Share<D>& s, const Domain<D, double>& domain) {
  using V = Vec<double, D>;
  using M = Mat<double, D, D>;
  const auto& o = s.own;
  const auto n = std::int64_t(s.ids.size());
  RowResults out;
  out.primal.resize(std::size_t(n));
  out.tangent.resize(std::size_t(n));
  out.gradient.resize(std::size_t(n));
  // Forward mode: every input carries its tangent; the references' from the halo.
  {
    const auto set = [](const auto& x, const auto& h, const auto& m, const auto& rho,
                        const auto& volume, const std::vector<std::int32_t>& kinds) {
      const ParticleSet<D, double> plain{view_of(x.value), view_of(h.value), view_of(m.value),
                                         view_of(kinds), view_of(rho.value)};
      return plain.with_positions(with_tangents(view_of(x.value), view_of(x.tangent)))
          .with_supports(with_tangents(view_of(h.value), view_of(h.tangent)))
          .with_masses(with_tangents(view_of(m.value), view_of(m.tangent)))
          .with_densities(with_tangents(view_of(rho.value), view_of(rho.tangent)))
          .with_volumes(with_tangents(view_of(volume.value), view_of(volume.tangent)));
    };
    const auto queries = set(o.x, o.h, o.m, o.rho, o.volume, o.kinds);
    const auto references = set(s.x, s.h, s.m, s.rho, s.volume, s.kinds);
    const ops::CRK<D, double> crk{view_of(o.a.value), view_of(o.b.value), view_of(o.grad_a.value),
                                  view_of(o.grad_b.value)};
    const ops::Renormalization<D, double> renormalization{view_of(o.l.value)};
    const ops::GradH<double> grad_h{view_of(o.omega.value), view_of(s.omega.value)};
    const ops::Corrections corrections{
        crk.with_tangents(view_of(o.a.tangent), view_of(o.b.tangent), view_of(o.grad_a.tangent),
                          view_of(o.grad_b.tangent)),
        renormalization.with_tangents(view_of(o.l.tangent)),
        grad_h.with_tangents(view_of(o.omega.tangent), view_of(s.omega.tangent))};
    const auto run = [&](const auto& q, const auto& r) {
      const auto y = jvp<Op>(exec::host{}, queries, references, domain, s.list,
                             with_tangents(view_of(q.value), view_of(q.tangent)),
                             with_tangents(view_of(r.value), view_of(r.tangent)),
                             ApplyOptions<double>{}, corrections);
      for (std::int64_t i = 0; i < n; ++i) {
        append_scalars(y.primal[i], out.primal[std::size_t(i)]);
        append_scalars(y.tangents[i], out.tangent[std::size_t(i)]);
      }
    };
    constexpr FieldKind kind = field_kind<Op>();
    if constexpr (kind == FieldKind::matrix) {
      run(o.matrix_field, s.matrix_field);
    } else if constexpr (kind == FieldKind::vector) {
      run(o.v, s.v);
    } else {
      run(o.f, s.f);
    }
  }
  // Reverse mode: every owned input a Variable, the references' arrays recorded halo gathers.
  Tape<exec::host> tape;
  const Tracked<V> x(o.x.value), b(o.b.value), grad_a(o.grad_a.value), v(o.v.value);
  const Tracked<double> h(o.h.value), m(o.m.value), rho(o.rho.value), f(o.f.value);
  const Tracked<double> volume(o.volume.value), omega(o.omega.value), a(o.a.value);
  const Tracked<M> grad_b(o.grad_b.value), l(o.l.value), matrix_field(o.matrix_field.value);
  const auto gather = [&](const auto& t) {
    return dist::record_halo_gather(tape, s.plan, t.variable);
  };
  const ParticleSet<D, double> plain_q{view_of(o.x.value), view_of(o.h.value), view_of(o.m.value),
                                       view_of(o.kinds)};
  const ParticleSet<D, double> plain_r{view_of(s.x.value), view_of(s.h.value), view_of(s.m.value),
                                       view_of(s.kinds)};
  const auto queries = plain_q.with_positions(x.variable)
                           .with_supports(h.variable)
                           .with_masses(m.variable)
                           .with_densities(rho.variable)
                           .with_volumes(volume.variable);
  const auto references = plain_r.with_positions(gather(x))
                              .with_supports(gather(h))
                              .with_masses(gather(m))
                              .with_densities(gather(rho))
                              .with_volumes(gather(volume));
  const ops::Corrections corrections{
      ops::CRK<D, double, Variable<double>, Variable<V>, Variable<V>, Variable<M>>{
          a.variable, b.variable, grad_a.variable, grad_b.variable},
      ops::Renormalization<D, double, Variable<M>>{l.variable},
      ops::GradH<double, Variable<double>, Variable<double>>{omega.variable, gather(omega)}};
  const auto sweep = [&](const auto& values) {
    const auto y = record<Op>(tape, queries, references, domain, s.list, values.variable,
                              gather(values), ApplyOptions<double>{}, corrections);
    using Out = std::remove_const_t<std::remove_pointer_t<decltype(y.data())>>;
    std::vector<Out> seed(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      std::vector<double> ybar;
      for (std::size_t k = 0; k < out.primal[std::size_t(i)].size(); ++k) {
        ybar.push_back(seed_of(s.ids[std::size_t(i)], k));
        out.jvp_dot += ybar.back() * out.tangent[std::size_t(i)][k];
        out.dot_scale += std::abs(ybar.back() * out.tangent[std::size_t(i)][k]);
      }
      const double* next = ybar.data();
      assign_scalars(seed[std::size_t(i)], next);
    }
    tape.backward(y, Span<const Out>{seed.data(), n});
  };
  const auto collect = [&](const auto& t, const auto& tangent) {
    const auto g = tape.gradient(t.variable);
    for (std::int64_t i = 0; i < n; ++i) {
      const std::size_t before = out.gradient[std::size_t(i)].size();
      append_scalars(g[i], out.gradient[std::size_t(i)]);
      std::vector<double> u;
      append_scalars(tangent[std::size_t(i)], u);
      for (std::size_t k = 0; k < u.size(); ++k) {
        out.vjp_dot += out.gradient[std::size_t(i)][before + k] * u[k];
      }
    }
  };
  constexpr FieldKind kind = field_kind<Op>();
  if constexpr (kind == FieldKind::matrix) {
    sweep(matrix_field);
    collect(matrix_field, o.matrix_field.tangent);
  } else if constexpr (kind == FieldKind::vector) {
    sweep(v);
    collect(v, o.v.tangent);
  } else {
    sweep(f);
    collect(f, o.f.tangent);
  }
  collect(x, o.x.tangent), collect(h, o.h.tangent), collect(m, o.m.tangent);
  collect(rho, o.rho.tangent), collect(volume, o.volume.tangent);
  collect(omega, o.omega.tangent), collect(a, o.a.tangent), collect(b, o.b.tangent);
  collect(grad_a, o.grad_a.tangent), collect(grad_b, o.grad_b.tangent), collect(l, o.l.tangent);
  out.vjp_dot = rank_sum(s.comm, out.vjp_dot);
  out.jvp_dot = rank_sum(s.comm, out.jvp_dot);
  out.dot_scale = rank_sum(s.comm, out.dot_scale);
  return out;
}

/// The largest |distributed − one rank| over this rank's rows, and the largest |one rank|.
inline std::pair<double, double> row_error(const std::vector<std::vector<double>>& distributed,
                                           const std::vector<std::vector<double>>& single,
                                           const std::vector<std::int64_t>& ids) {
  double error = 0, scale = 0;
  for (const auto& row : single) {
    for (const double value : row) {
      scale = std::max(scale, std::abs(value));
      // A value that is not finite is an error here (std::max would pass over a NaN).
      error = std::isfinite(value) ? error : std::numeric_limits<double>::infinity();
    }
  }
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto& want = single[std::size_t(ids[i])];
    REQUIRE(distributed[i].size() == want.size());
    for (std::size_t k = 0; k < want.size(); ++k) {
      const double d = std::abs(distributed[i][k] - want[k]);
      error = std::isfinite(d) ? std::max(error, d) : std::numeric_limits<double>::infinity();
    }
  }
  return {error, scale};
}

template <int D, class... Ops>
void check_distributed(const Share<D>& many,
                       const Share<D>& one,
                       const Domain<D, double>& domain,
                       OpList<Ops...>,
                       const std::string& where) {
  const auto check = [&](auto op) {
    using Op = decltype(op);
    const RowResults d = evaluate_share<Op>(many, domain);
    const RowResults s = evaluate_share<Op>(one, domain);
    const auto relative = [&](const std::vector<std::vector<double>>& a,
                              const std::vector<std::vector<double>>& b) {
      const auto [error, scale] = row_error(a, b, many.ids);
      return rank_max(many.comm, scale > 0 ? error / scale : error);
    };
    const double primal = relative(d.primal, s.primal);
    const double tangent = relative(d.tangent, s.tangent);
    const double gradient = relative(d.gradient, s.gradient);
    const double dot = std::abs(d.vjp_dot - d.jvp_dot) / std::max(d.dot_scale, 1e-300);
    INFO(where << " operation " << describe<Op>() << ": value " << primal << ", JVP " << tangent
               << ", VJP " << gradient << ", dot-product " << dot);
    CHECK(primal <= 1e-12);
    CHECK(tangent <= 1e-12);
    CHECK(gradient <= 1e-12);
    CHECK(dot <= 1e-12);
  };
  (void)check; // an empty list (no curl in 1D)
  (check(Ops{}), ...);
}

/// Every operator of the derivative matrix for support scheme S, on this communicator's ranks
/// (slabs across x, and recursive bisection) against MPI_COMM_SELF with every particle owned.
template <int D, SupportScheme S, class Kernel = kernels::Wendland4>
void run_distributed_matrix() {
  const dist::Communicator world;
  const dist::Communicator self(MPI_COMM_SELF);
  for (const bool periodic : {false, true}) {
    const JVPInputs<D> in(periodic);
    // Every rank offers the bisection the particles id ≡ rank (mod ranks).
    std::vector<Vec<double, D>> offered;
    for (std::size_t i = 0; i < in.x.value.size(); ++i) {
      if (int(i % std::size_t(world.size())) == world.rank()) {
        offered.push_back(in.x.value[i]);
      }
    }
    const std::vector<std::pair<std::string, dist::Decomposition<D, double>>> decompositions{
        {"slabs", dist::slabs(in.domain, world.size())},
        {"bisection", dist::bisection(world, in.domain, view_of(offered))}};
    const Share<D> one(self, dist::slabs(in.domain, 1), in);
    for (const auto& [name, decomposition] : decompositions) {
      const Share<D> many(world, decomposition, in);
      const std::string where = std::to_string(D) + "D " + (periodic ? "periodic" : "open") + ", " +
                                name + " over " + std::to_string(world.size()) +
                                " ranks, support " + std::to_string(int(S));
      std::apply(
          [&](const auto&... lists) {
            (check_distributed(many, one, in.domain, lists, where), ...);
          },
          operators_for<Kernel, S, D>());
      check_distributed(many, one, in.domain, curls_for<Kernel, S, D>(), where);
    }
  }
}

} // namespace sphad::test
