// SPDX-License-Identifier: MIT
// Every operator on the CUDA space equals the host result (needs a GPU to run; CI compiles it).
#include <sphad/corrections.hpp>
#include <sphad/exec/cuda.hpp>
#include <sphad/ops.hpp>
#include <sphad/search.hpp>

#include "kernels/kernel_cases.hpp" // near
#include "ops/ops_cases.hpp"
#include "support/device_arrays.hpp"
#include "support/flatten.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <tuple>
#include <type_traits>
#include <vector>

using namespace sphad;
using test::agrees_with_host;
using test::span;
using test::upload;
using K = kernels::Wendland4;

namespace {

/// Captures what `launch` enqueues on `stream` into a CUDA graph, replays it once and waits.
template <class Launch>
void replay_captured(cudaStream_t stream, const exec::cuda& device, Launch&& launch) {
  exec::fence(device);
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
  launch();
  REQUIRE(cudaStreamEndCapture(stream, &graph) == cudaSuccess);
  cudaGraphExec_t instance = nullptr;
  REQUIRE(cudaGraphInstantiate(&instance, graph, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(instance, stream) == cudaSuccess);
  exec::fence(device);
  cudaGraphExecDestroy(instance);
  cudaGraphDestroy(graph);
}

/// A Covariance result's neighbour count; other outputs have none.
template <class X>
std::int32_t neighbor_count(const X&) {
  return 0;
}
template <class T, int D>
std::int32_t neighbor_count(const ops::CovarianceResult<T, D>& c) {
  return c.neighbors;
}

/// Whether two device buffers hold the same values bit for bit (their scalars and counts: the
/// padding of a Covariance result is never written, so its bytes are not compared).
template <class T>
bool same_values(const exec::cuda& device,
                 const Buffer<T, exec::cuda>& a,
                 const Buffer<T, exec::cuda>& b) {
  const auto x = exec::to_host(device, a.data(), a.size());
  const auto y = exec::to_host(device, b.data(), b.size());
  bool same = x.size() == y.size();
  for (std::size_t i = 0; same && i < x.size(); ++i) {
    const auto u = test::flatten(x[i]);
    const auto v = test::flatten(y[i]);
    same = u.size() == v.size() &&
           std::memcmp(u.data(), v.data(), u.size() * sizeof(double)) == 0 &&
           neighbor_count(x[i]) == neighbor_count(y[i]);
  }
  return same;
}

} // namespace

TEST_CASE("ops: device operators equal the host ones", "[ops][cuda]") {
  auto p = test::lattice<2, double>(16, 40);
  for (std::size_t i = 0; i < p.x.size(); ++i) {
    p.rho[i] = 1.0 + 0.01 * double(i % 7);
    p.kinds[i] = std::int32_t(i % 3);
  }
  const Domain<2, double> domain{{-1, -1}, {1, 1}, {true, false}};
  std::vector<Vec<double, 2>> v;
  for (const auto& x : p.x) {
    v.push_back({x[0] * x[1], x[0] - 2 * x[1]});
  }
  const exec::host host;
  const exec::cuda device{};
  const auto x = upload(device, p.x);
  const auto h = upload(device, p.h);
  const auto m = upload(device, p.m);
  const auto rho = upload(device, p.rho);
  const auto kinds = upload(device, p.kinds);
  const auto vd = upload(device, v);
  const ParticleSet<2, double> d{span(x), span(h), span(m), span(kinds), span(rho)};
  const auto s = p.view();
  const auto host_list = build_neighbor_list<SupportScheme::Gather>(host, s.search_points(),
                                                                    s.search_points(), domain);
  const auto device_list = build_neighbor_list<SupportScheme::Gather>(device, d.search_points(),
                                                                      d.search_points(), domain);

  CHECK(agrees_with_host(device, apply<ops::Density<K>>(host, s, s, domain, host_list),
                         apply<ops::Density<K>>(device, d, d, domain, device_list)));
  CHECK(agrees_with_host(
      device, apply<ops::Interpolate<K>>(host, s, s, domain, host_list, span(v), span(v)),
      apply<ops::Interpolate<K>>(device, d, d, domain, device_list, span(vd), span(vd))));
  CHECK(agrees_with_host(device,
                         apply<ops::Gradient<K, GradientScheme::Symmetric>>(
                             host, s, s, domain, host_list, span(v), span(v)),
                         apply<ops::Gradient<K, GradientScheme::Symmetric>>(
                             device, d, d, domain, device_list, span(vd), span(vd))));
  CHECK(agrees_with_host(
      device, apply<ops::Divergence<K>>(host, s, s, domain, host_list, span(v), span(v)),
      apply<ops::Divergence<K>>(device, d, d, domain, device_list, span(vd), span(vd))));
  CHECK(
      agrees_with_host(device, apply<ops::Curl<K>>(host, s, s, domain, host_list, span(v), span(v)),
                       apply<ops::Curl<K>>(device, d, d, domain, device_list, span(vd), span(vd))));
  CHECK(agrees_with_host(device,
                         apply<ops::Laplacian<K, LaplacianScheme::Dot>>(
                             host, s, s, domain, host_list, span(v), span(v)),
                         apply<ops::Laplacian<K, LaplacianScheme::Dot>>(
                             device, d, d, domain, device_list, span(vd), span(vd))));
  // Terms of other kernel parts fused into one whole pair term (a gradient and a Laplacian's
  // gradient form over the same field).
  using Mixed = ops::Fused<ops::Slot<ops::Gradient<K, GradientScheme::Difference>, 0, 2>,
                           ops::Slot<ops::Laplacian<K>, 0, 2>>;
  static_assert(!ops::splits_term_v<Mixed>);
  CHECK(agrees_with_host(device, apply<Mixed>(host, s, s, domain, host_list, span(v), span(v)),
                         apply<Mixed>(device, d, d, domain, device_list, span(vd), span(vd))));
  const auto covariance_host = apply<ops::Covariance<K>>(host, s, s, domain, host_list);
  const auto covariance_device = apply<ops::Covariance<K>>(device, d, d, domain, device_list);
  CHECK(agrees_with_host(device, covariance_host, covariance_device));
  const auto counts = exec::to_host(device, covariance_device.data(), covariance_device.size());
  bool same_counts = true;
  for (std::int64_t i = 0; i < covariance_host.size(); ++i) {
    same_counts = same_counts && counts[std::size_t(i)].neighbors == covariance_host[i].neighbors;
  }
  CHECK(same_counts);
  // The runtime front end writes the same values through its flat output.
  OperationProperties properties;
  properties.operation = Operation::Laplacian;
  properties.gradient_scheme = GradientScheme::Symmetric;
  Buffer<double, exec::cuda> flat(device, 2 * d.size());
  ops::evaluate_into<kernels::KernelList<K>, ops::SupportList<SupportScheme::Gather>>(
      device, properties, d, d, domain, device_list, span(vd), span(vd),
      Span<double>{flat.data(), flat.size()});
  const auto flat_host = exec::to_host(device, flat.data(), flat.size());
  const auto laplacian =
      apply<ops::Laplacian<K, LaplacianScheme::Brookshaw, GradientScheme::Symmetric>>(
          host, s, s, domain, host_list, span(v), span(v));
  bool same = true;
  for (std::int64_t i = 0; i < laplacian.size(); ++i) {
    for (int k = 0; k < 2; ++k) {
      same = same && test::near(laplacian[i][k], flat_host[std::size_t(2 * i + k)], 1e-12, 1e-12);
    }
  }
  CHECK(same);
  const auto grid = search::build_search_grid<SupportScheme::Gather>(device, d.search_points(),
                                                                     d.search_points(), domain);
  CHECK(agrees_with_host(device, apply<ops::Density<K>>(host, s, s, domain, host_list),
                         apply<ops::Density<K>>(device, d, d, domain, grid)));
}

TEST_CASE("ops: operator calls captured into a CUDA graph replay to the direct result",
          "[ops][cuda]") {
  auto p = test::lattice<3, double>(10, 50);
  const Domain<3, double> domain{{-1, -1, -1}, {1, 1, 1}, {true, true, true}};
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
  {
    const exec::cuda device{stream};
    const auto x = upload(device, p.x);
    const auto h = upload(device, p.h);
    const auto m = upload(device, p.m);
    const auto rho = upload(device, p.rho);
    const auto kinds = upload(device, p.kinds);
    std::vector<double> f;
    std::vector<Vec<double, 3>> v;
    for (const auto& q : p.x) {
      f.push_back(q[0] - q[1] * q[2]);
      v.push_back({q[1], q[2] * q[0], -q[0]});
    }
    const auto fd = upload(device, f);
    const auto vd = upload(device, v);
    const ParticleSet<3, double> d{span(x), span(h), span(m), span(kinds), span(rho)};
    const auto list = build_neighbor_list<SupportScheme::Gather>(device, d.search_points(),
                                                                 d.search_points(), domain);
    // One graph per operator: capture apply_into, replay, compare bytes with a direct call.
    const auto replays_directly = [&](auto op, auto values) {
      using Op = decltype(op);
      using F = std::remove_const_t<typename decltype(values)::element_type>;
      using Out = typename Op::template output_t<3, double, F>;
      const auto direct = apply<Op>(device, d, d, domain, list, values, values);
      Buffer<Out, exec::cuda> replayed(device, d.size());
      replay_captured(stream, device, [&] {
        apply_into<Op>(device, d, d, domain, list, values, values,
                       Span<Out>{replayed.data(), replayed.size()});
      });
      CHECK(same_values(device, replayed, direct));
    };
    using G = GradientScheme;
    replays_directly(ops::Density<K>{}, Span<const ops::NoField>{});
    replays_directly(ops::Interpolate<K>{}, span(fd));
    replays_directly(ops::Gradient<K, G::Difference>{}, span(fd));
    replays_directly(ops::Divergence<K, G::Symmetric>{}, span(vd));
    replays_directly(ops::Curl<K>{}, span(vd));
    replays_directly(ops::Laplacian<K>{}, span(fd));
    replays_directly(ops::Covariance<K>{}, Span<const ops::NoField>{});
  }
  REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
}

TEST_CASE("ops: device JVPs equal the host ones and replay from a CUDA graph", "[ops][jvp][cuda]") {
  auto p = test::lattice<2, double>(16, 40);
  std::vector<Vec<double, 2>> dx;
  std::vector<double> f, df;
  for (std::size_t i = 0; i < p.x.size(); ++i) {
    p.rho[i] = 1.0 + 0.01 * double(i % 7);
    p.kinds[i] = std::int32_t(i % 3);
    dx.push_back({0.01 * double(i % 5), -0.02 * double(i % 3)});
    f.push_back(p.x[i][0] * p.x[i][1]);
    df.push_back(1.0 - 0.1 * double(i % 4));
  }
  const Domain<2, double> domain{{-1, -1}, {1, 1}, {true, false}};
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
  {
    const exec::host host;
    const exec::cuda device{stream};
    const auto x = upload(device, p.x);
    const auto dxd = upload(device, dx);
    const auto h = upload(device, p.h);
    const auto m = upload(device, p.m);
    const auto rho = upload(device, p.rho);
    const auto kinds = upload(device, p.kinds);
    const auto fd = upload(device, f);
    const auto dfd = upload(device, df);
    // Positions and values carry tangents (paired views over device arrays).
    const auto s = p.view().with_positions(with_tangents(span(p.x), span(dx)));
    const auto d =
        ParticleSet<2, double>{span(x), span(h), span(m), span(kinds), span(rho)}.with_positions(
            with_tangents(span(x), span(dxd)));
    const auto fs = with_tangents(span(f), span(df));
    const auto fdv = with_tangents(span(fd), span(dfd));
    const auto host_list = build_neighbor_list<SupportScheme::SuperSymmetric>(
        host, s.search_points(), s.search_points(), domain);
    const auto device_list = build_neighbor_list<SupportScheme::SuperSymmetric>(
        device, d.search_points(), d.search_points(), domain);
    const auto same = [&](auto op) {
      using Op = decltype(op);
      const auto on_host = jvp<Op>(host, s, s, domain, host_list, fs, fs);
      const auto on_device = jvp<Op>(device, d, d, domain, device_list, fdv, fdv);
      CHECK(agrees_with_host(device, on_host.primal, on_device.primal));
      CHECK(agrees_with_host(device, on_host.tangents, on_device.tangents));
      // Captured into a graph and replayed: the same bytes as the direct call.
      using Primal = typename decltype(on_device.primal)::value_type;
      Buffer<Primal, exec::cuda> primal(device, d.size()), tangents(device, d.size());
      replay_captured(stream, device, [&] {
        jvp_into<Op>(device, d, d, domain, device_list, fdv, fdv,
                     Span<Primal>{primal.data(), primal.size()},
                     Span<Primal>{tangents.data(), tangents.size()});
      });
      CHECK(same_values(device, primal, on_device.primal));
      CHECK(same_values(device, tangents, on_device.tangents));
    };
    same(ops::Density<K>{});
    same(ops::Gradient<K, GradientScheme::Difference>{});
    same(ops::Laplacian<K, LaplacianScheme::Brookshaw, GradientScheme::Symmetric>{});
    // The CRK pipeline's JVP on the device.
    const auto crk_host = corrections::compute_crk_factors<K>(host, s, domain, host_list);
    const auto crk_device = corrections::compute_crk_factors<K>(device, d, domain, device_list);
    CHECK(agrees_with_host(device, crk_host.grad_b, crk_device.grad_b));
  }
  REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
}

TEST_CASE("ops: device reverse-mode gradients equal the host ones, are bitwise reproducible and "
          "record in a CUDA graph",
          "[ops][vjp][cuda]") {
  auto p = test::lattice<2, double>(16, 40);
  std::vector<double> f;
  std::vector<Vec<double, 2>> seed;
  for (std::size_t i = 0; i < p.x.size(); ++i) {
    p.rho[i] = 1.0 + 0.01 * double(i % 7);
    p.kinds[i] = std::int32_t(i % 3);
    p.x[i][0] += 0.003 * double(i % 5);
    f.push_back(p.x[i][0] * p.x[i][1]);
    seed.push_back({1.0 - 0.1 * double(i % 4), 0.2 * double(i % 3)});
  }
  const auto n = std::int64_t(p.x.size());
  const Domain<2, double> domain{{-1, -1}, {1, 1}, {true, false}};
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
  {
    const exec::host host;
    const exec::cuda device{stream};
    auto x = upload(device, p.x);
    auto h = upload(device, p.h);
    auto m = upload(device, p.m);
    const auto kinds = upload(device, p.kinds);
    auto fd = upload(device, f);
    const auto seed_d = upload(device, seed);
    const auto host_set = p.view();
    const ParticleSet<2, double> device_set{span(x), span(h), span(m), span(kinds)};
    const auto host_list = build_neighbor_list<SupportScheme::Gather>(
        host, host_set.search_points(), host_set.search_points(), domain);
    const auto device_list = build_neighbor_list<SupportScheme::Gather>(
        device, device_set.search_points(), device_set.search_points(), domain);
    using Density = ops::Density<K>;
    using Gradient = ops::Gradient<K, GradientScheme::Symmetric>;
    // x, h, m, f tracked; Density feeds Gradient's densities; backward from the gradient.
    const auto sweep = [&](auto& tape, auto& xs, auto& hs, auto& ms, auto& fs, const auto& set,
                           const auto& list, const Vec<double, 2>* seed_data) {
      const Variable<Vec<double, 2>> xv(xs.data(), n);
      const Variable<double> hv(hs.data(), n), mv(ms.data(), n), fv(fs.data(), n);
      const auto tracked = set.with_positions(xv).with_supports(hv).with_masses(mv);
      const auto rho = record<Density>(tape, tracked, tracked, domain, list);
      const auto with_rho = tracked.with_densities(rho);
      const auto g = record<Gradient>(tape, with_rho, with_rho, domain, list, fv, fv);
      tape.backward(g, Span<const Vec<double, 2>>{seed_data, n});
      return std::make_tuple(tape.gradient(xv), tape.gradient(hv), tape.gradient(mv),
                             tape.gradient(fv));
    };
    auto xh = p.x;
    auto hh = p.h;
    auto mh = p.m;
    auto fh = f;
    Tape<exec::host> host_tape(host);
    const auto [gx, gh, gm, gf] =
        sweep(host_tape, xh, hh, mh, fh, host_set, host_list, seed.data());
    Tape<exec::cuda> tape(device);
    const auto [dx, dh, dm, df] = sweep(tape, x, h, m, fd, device_set, device_list, seed_d.data());
    const auto agree = [&](const auto& on_host, const auto& on_device) {
      const auto got = exec::to_host(device, on_device.data(), on_device.size());
      bool ok = on_host.size() == std::int64_t(got.size());
      for (std::int64_t i = 0; ok && i < on_host.size(); ++i) {
        const auto a = test::flatten(on_host[i]);
        const auto b = test::flatten(got[std::size_t(i)]);
        for (std::size_t k = 0; k < a.size(); ++k) {
          ok = ok && test::near(a[k], b[k], 1e-12, 1e-12);
        }
      }
      return ok;
    };
    CHECK(agree(gx, dx));
    CHECK(agree(gh, dh));
    CHECK(agree(gm, dm));
    CHECK(agree(gf, df));
    // Query and reference filters in the device sweep's lanes (fluid to fluid: kinds 1 and 2
    // drop out on both sides): device = host.
    const auto filtered = [&](auto& tape, auto& xs, const auto& set, const auto& list,
                              const double* seed_data) {
      const Variable<Vec<double, 2>> xv(xs.data(), n);
      const auto tracked = set.with_positions(xv);
      ApplyOptions<double> options;
      options.direction = OperationDirection::FluidToFluid;
      const auto rho = record<Density>(tape, tracked, tracked, domain, list, options);
      tape.backward(rho, Span<const double>{seed_data, n});
      return tape.gradient(xv);
    };
    Tape<exec::host> host_filtered(host);
    Tape<exec::cuda> device_filtered(device);
    CHECK(agree(filtered(host_filtered, xh, host_set, host_list, f.data()),
                filtered(device_filtered, x, device_set, device_list, fd.data())));
    const auto bytes_of = [&](const auto& s) {
      const auto v = exec::to_host(device, s.data(), s.size());
      std::vector<unsigned char> out(v.size() * sizeof(v[0]));
      std::memcpy(out.data(), v.data(), out.size());
      return out;
    };
    const auto first = bytes_of(dx);
    // A second backward, a second tape, and a tape recorded and swept inside stream capture
    // (replayed as a graph) give the same bytes: no atomics, no host sync.
    Tape<exec::cuda> again(device);
    const auto [dx2, dh2, dm2, df2] =
        sweep(again, x, h, m, fd, device_set, device_list, seed_d.data());
    CHECK(bytes_of(dx2) == first);
    Tape<exec::cuda> captured(device);
    Span<const Vec<double, 2>> dx3{};
    replay_captured(stream, device, [&] {
      dx3 = std::get<0>(sweep(captured, x, h, m, fd, device_set, device_list, seed_d.data()));
    });
    CHECK(bytes_of(dx3) == first);
    // The recorded CRK pipeline and a CRK-corrected gradient: device = host.
    const auto crk_sweep = [&](auto& tape, auto& xs, auto& hs, const auto& set, const auto& list,
                               const Vec<double, 2>* seed_data, const double* values) {
      const Variable<Vec<double, 2>> xv(xs.data(), n);
      const Variable<double> hv(hs.data(), n);
      const auto tracked = set.with_positions(xv).with_supports(hv);
      const auto crk = corrections::record_crk_factors<K>(tape, tracked, domain, list);
      const auto weighted = tracked.with_volumes(crk.volumes);
      const Span<const double> f_view{values, n};
      const auto g = record<ops::Gradient<K, GradientScheme::Difference>>(
          tape, weighted, weighted, domain, list, f_view, f_view, ApplyOptions<double>{},
          ops::Corrections{crk.state()});
      tape.backward(g, Span<const Vec<double, 2>>{seed_data, n});
      return std::make_pair(tape.gradient(xv), tape.gradient(hv));
    };
    Tape<exec::host> host_crk(host);
    const auto on_host = crk_sweep(host_crk, xh, hh, host_set, host_list, seed.data(), f.data());
    Tape<exec::cuda> device_crk(device);
    const auto on_device =
        crk_sweep(device_crk, x, h, device_set, device_list, seed_d.data(), fd.data());
    CHECK(agree(on_host.first, on_device.first));
    CHECK(agree(on_host.second, on_device.second));
  }
  REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
}
