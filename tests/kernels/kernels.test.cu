// SPDX-License-Identifier: MIT
// Every kernel's W, gradient, Hessian, Laplacian and dual tangents evaluated in device code
// agree with the host (needs a GPU to run; CI compiles it).
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/exec/cuda.hpp>
#include <sphad/kernels.hpp>

#include "kernels/kernel_cases.hpp"

#include <catch2/catch.hpp>

#include <vector>

using namespace sphad;

namespace {
constexpr int samples = 64;
constexpr int per_sample = 1 + 3 + 9 + 1 + 4; // W, ∇W, H, ∇²W, W's tangents (x, h)

template <class K>
struct EvaluateKernel {
  double* out;
  SPHAD_HOST_DEVICE void operator()(std::int64_t i) const {
    const double q = 1.05 * double(i) / samples; // some beyond the support
    const Vec<double, 3> x{0.48 * q, -0.6 * q, 0.64 * q};
    const double h = 1.0;
    double* o = out + i * per_sample;
    o[0] = kernels::value<K>(x, h);
    const auto g = kernels::gradient<K>(x, h);
    const auto hess = kernels::hessian<K>(x, h);
    for (int a = 0; a < 3; ++a) {
      o[1 + a] = g[a];
      for (int b = 0; b < 3; ++b) {
        o[4 + 3 * a + b] = hess(a, b);
      }
    }
    o[13] = kernels::laplacian<K>(x, h);
    using D4 = Dual<double, 4>;
    const Vec<D4, 3> xd{D4::variable(x[0], 0), D4::variable(x[1], 1), D4::variable(x[2], 2)};
    const D4 w = kernels::value<K>(xd, D4::variable(h, 3));
    for (int k = 0; k < 4; ++k) {
      o[14 + k] = w.tangent[k];
    }
  }
};
} // namespace

TEST_CASE("kernels: device evaluations match the host for every kernel", "[kernels][cuda]") {
  const exec::cuda exec{};
  test::for_each_kernel([&](auto kernel) {
    using K = decltype(kernel);
    Buffer<double, exec::cuda> device(exec, samples * per_sample);
    exec::for_each_index(exec, samples, EvaluateKernel<K>{device.data()});
    const auto got = exec::to_host(exec, device.data(), device.size());
    std::vector<double> expected(got.size());
    for (int i = 0; i < samples; ++i) {
      EvaluateKernel<K>{expected.data()}(i);
    }
    INFO(K::name);
    for (std::size_t i = 0; i < got.size(); ++i) {
      // Device code may contract into FMAs: agreement to rounding, not bitwise.
      CHECK(test::near(got[i], expected[i], 1e-12, 1e-12));
    }
  });
}
