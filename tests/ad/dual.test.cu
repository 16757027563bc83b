// SPDX-License-Identifier: MIT
// Dual numbers and the safe primitives evaluated in device code agree with the host.
#include <sphad/ad/dual.hpp>
#include <sphad/ad/safe.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/exec/cuda.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

using namespace sphad;
using D2 = Dual<double, 2>;
using Nested = Dual<Dual<double, 1>, 1>;

namespace {

/// A kernel-like expression touching every dual function; the same code runs on both sides.
template <class S>
SPHAD_HOST_DEVICE S expression(const S& x, const S& y) {
  using std::cbrt;
  using std::exp;
  using std::fma;
  using std::log;
  using std::pow;
  using std::sqrt;
  const S q = sqrt(x * x + y * y) / 2.0;
  const S shape = pow(sphad::max(1.0 - q, 0.0), 4) * (1.0 + 4.0 * q);
  return shape + exp(-x) * log(2.0 + y) + cbrt(x) + fma(x, y, 1.0) + pow(x, 2.5) -
         sphad::min(x, y) / (1.0 + y * y);
}

struct Evaluate {
  const double* xs;
  D2* out;
  Nested* second;
  SPHAD_HOST_DEVICE void operator()(std::int64_t i) const {
    const double x = xs[i], y = 0.5 * xs[i] + 0.1;
    out[i] = expression(D2::variable(x, 0), D2::variable(y, 1));
    Nested t;
    t.value = Dual<double, 1>::variable(x, 0);
    t.tangent[0] = Dual<double, 1>(1.0);
    second[i] = expression(t, Nested(y));
    // The safe primitives at the zero vector.
    const Vec<D2, 2> zero{D2::variable(0.0, 0), D2::variable(0.0, 1)};
    const D2 r = safe_norm(zero);
    if (!all_finite(r) || r.tangent[0] != 0.0) {
      out[i].value = NAN;
    }
  }
};

} // namespace

TEST_CASE("ad::Dual: device evaluation matches the host", "[ad][dual][cuda]") {
  const exec::cuda exec{};
  std::vector<double> xs;
  for (int i = 1; i <= 64; ++i) {
    xs.push_back(0.03 * i);
  }
  const std::int64_t n = std::int64_t(xs.size());
  Buffer<double, exec::cuda> d_xs(exec, n);
  Buffer<D2, exec::cuda> d_out(exec, n);
  Buffer<Nested, exec::cuda> d_second(exec, n);
  exec::copy_from_host(exec, xs.data(), d_xs.data(), n);
  exec::for_each_index(exec, n, Evaluate{d_xs.data(), d_out.data(), d_second.data()});
  const auto out = exec::to_host(exec, d_out.data(), n);
  const auto second = exec::to_host(exec, d_second.data(), n);

  std::vector<D2> host_out(xs.size());
  std::vector<Nested> host_second(xs.size());
  for (std::int64_t i = 0; i < n; ++i) {
    Evaluate{xs.data(), host_out.data(), host_second.data()}(i);
    INFO("x = " << xs[i]);
    // Device code may contract a*b+c into FMAs: agreement to rounding, not bitwise.
    CHECK(out[i].value == Approx(host_out[i].value).epsilon(1e-13));
    CHECK(out[i].tangent[0] == Approx(host_out[i].tangent[0]).epsilon(1e-13));
    CHECK(out[i].tangent[1] == Approx(host_out[i].tangent[1]).epsilon(1e-13));
    CHECK(second[i].tangent[0].tangent[0] ==
          Approx(host_second[i].tangent[0].tangent[0]).epsilon(1e-12));
  }
}
