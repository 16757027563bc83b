// SPDX-License-Identifier: MIT
// The correction pipelines on the CUDA space equal the host ones (needs a GPU to run; CI
// compiles it).
#include <sphad/corrections.hpp>
#include <sphad/exec/cuda.hpp>
#include <sphad/search.hpp>

#include "ops/ops_cases.hpp"
#include "support/device_arrays.hpp"

#include <catch2/catch.hpp>

#include <vector>

using namespace sphad;
using test::agrees_with_host;
using test::span;
using test::upload;
using K = kernels::Wendland4;

TEST_CASE("corrections: device pipelines equal the host ones", "[corrections][cuda]") {
  auto p = test::lattice<2, double>(16, 30);
  for (std::size_t i = 0; i < p.x.size(); ++i) {
    p.x[i][0] += 0.01 * double(i % 5);
    p.rho[i] = 1.0 + 0.02 * double(i % 3);
  }
  const Domain<2, double> domain{{-1.5, -1.5}, {1.5, 1.5}, {false, false}};
  const exec::host host;
  const exec::cuda device{};
  const auto x = upload(device, p.x);
  const auto h = upload(device, p.h);
  const auto m = upload(device, p.m);
  const auto rho = upload(device, p.rho);
  const auto kinds = upload(device, p.kinds);
  const ParticleSet<2, double> d{span(x), span(h), span(m), span(kinds), span(rho)};
  const auto s = p.view();
  const auto host_list = build_neighbor_list<SupportScheme::SuperSymmetric>(
      host, s.search_points(), s.search_points(), domain);
  const auto device_list = build_neighbor_list<SupportScheme::SuperSymmetric>(
      device, d.search_points(), d.search_points(), domain);
  const auto on_host = corrections::compute_crk_factors<K>(host, s, domain, host_list);
  const auto on_device = corrections::compute_crk_factors<K>(device, d, domain, device_list);
  CHECK(agrees_with_host(device, on_host.volumes, on_device.volumes));
  CHECK(agrees_with_host(device, on_host.density, on_device.density));
  CHECK(agrees_with_host(device, on_host.a, on_device.a));
  CHECK(agrees_with_host(device, on_host.b, on_device.b));
  CHECK(agrees_with_host(device, on_host.grad_a, on_device.grad_a));
  CHECK(agrees_with_host(device, on_host.grad_b, on_device.grad_b));

  const ops::Corrections<ops::CRK<2, double>> host_crk{on_host.state(), {}, {}};
  const ops::Corrections<ops::CRK<2, double>> device_crk{on_device.state(), {}, {}};
  const auto r_host =
      corrections::compute_renormalization<K>(host, s, s, domain, host_list, {}, host_crk);
  const auto r_device =
      corrections::compute_renormalization<K>(device, d, d, domain, device_list, {}, device_crk);
  CHECK(agrees_with_host(device, r_host.matrices, r_device.matrices));
  CHECK(agrees_with_host(device, r_host.covariances, r_device.covariances));

  CHECK(agrees_with_host(device, corrections::compute_omegas<K>(host, s, domain, host_list),
                         corrections::compute_omegas<K>(device, d, domain, device_list)));
}

TEST_CASE("corrections: the renormalized gradient's reverse mode on the device equals the host's",
          "[corrections][cuda][vjp]") {
  auto p = test::lattice<2, double>(12, 30);
  for (std::size_t i = 0; i < p.x.size(); ++i) {
    p.x[i][1] += 0.01 * double(i % 7);
    p.rho[i] = 1.0 + 0.02 * double(i % 3);
  }
  std::vector<double> f;
  std::vector<Vec<double, 2>> seed;
  for (std::size_t i = 0; i < p.x.size(); ++i) {
    f.push_back(p.x[i][0] * p.x[i][0] - 0.5 * p.x[i][1]);
    seed.push_back({1.0 - 0.1 * double(i % 4), 0.2 * double(i % 3)});
  }
  const auto n = std::int64_t(p.x.size());
  const Domain<2, double> domain{{-1.5, -1.5}, {1.5, 1.5}, {false, false}};
  const exec::host host;
  const exec::cuda device{};
  auto x = upload(device, p.x);
  const auto h = upload(device, p.h);
  const auto m = upload(device, p.m);
  const auto rho = upload(device, p.rho);
  const auto kinds = upload(device, p.kinds);
  const auto fd = upload(device, f);
  const auto seed_d = upload(device, seed);
  const ParticleSet<2, double> d{span(x), span(h), span(m), span(kinds), span(rho)};
  const auto s = p.view();
  const auto host_list = build_neighbor_list<SupportScheme::Gather>(host, s.search_points(),
                                                                    s.search_points(), domain);
  const auto device_list = build_neighbor_list<SupportScheme::Gather>(device, d.search_points(),
                                                                      d.search_points(), domain);
  using Gradient = ops::Gradient<K, GradientScheme::Difference>;
  // Positions tracked through L (record_renormalization) and the renormalized gradient.
  const auto sweep = [&](auto& tape, auto& xs, const auto& set, const auto& list,
                         const double* values, const Vec<double, 2>* seed_data) {
    const Variable<Vec<double, 2>> xv(xs.data(), n);
    const auto tracked = set.with_positions(xv);
    const auto l = corrections::record_renormalization<K>(tape, tracked, tracked, domain, list);
    const auto g = record<Gradient>(
        tape, tracked, tracked, domain, list, Span<const double>{values, n},
        Span<const double>{values, n}, ApplyOptions<double>{},
        ops::Corrections{ops::NoCRK{},
                         ops::Renormalization<2, double, Variable<Mat<double, 2, 2>>>{l}});
    tape.backward(g, Span<const Vec<double, 2>>{seed_data, n});
    return tape.gradient(xv);
  };
  auto xh = p.x;
  Tape<exec::host> host_tape(host);
  const auto on_host = sweep(host_tape, xh, s, host_list, f.data(), seed.data());
  Tape<exec::cuda> device_tape(device);
  const auto on_device = sweep(device_tape, x, d, device_list, fd.data(), seed_d.data());
  const auto got = exec::to_host(device, on_device.data(), on_device.size());
  bool ok = on_host.size() == std::int64_t(got.size());
  for (std::int64_t i = 0; ok && i < on_host.size(); ++i) {
    for (int k = 0; k < 2; ++k) {
      ok = ok && test::near(on_host[i][k], got[std::size_t(i)][k], 1e-12, 1e-12);
    }
  }
  CHECK(ok);
}
