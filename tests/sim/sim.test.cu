// SPDX-License-Identifier: MIT
// The tape's array algebra on the CUDA space (needs a GPU to run; CI only compiles it).
#include <sphad/exec/cuda.hpp>
#define SPHAD_TEST_EXEC ::sphad::exec::cuda
#include <sphad/exec/thrust.hpp>

#include "sim/sim.cases.hpp"

#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/transform.h>

#include <catch2/catch.hpp>

#include <vector>

namespace {
struct Triple {
  SPHAD_HOST_DEVICE double operator()(double x) const { return 3 * x; }
};
} // namespace

TEST_CASE("Thrust vectors are views and Variables; Thrust algorithms run on the space's stream",
          "[sim]") {
  using namespace sphad;
  const exec::cuda exec{};
  const std::vector<double> host{1, 2, 3};
  const thrust::device_vector<double> x(host.begin(), host.end());
  thrust::device_vector<double> y(3), dy(3);
  thrust::transform(exec::thrust_policy(exec), x.begin(), x.end(), y.begin(), Triple{});
  Tape<exec::cuda> tape(exec);
  const Variable<double> yv(y);
  const Span<const double> xs = x;
  CHECK(xs.size() == 3);
  const auto loss = record_squared_norm(tape, yv); // 3² + 6² + 9²
  tape.backward(loss);
  tape.copy_gradient(yv, Span<double>(dy));
  CHECK(exec::to_host(exec, loss.data(), 1)[0] == 126.0);
  const thrust::host_vector<double> g = dy;
  CHECK(g[0] == 6.0);
  CHECK(g[1] == 12.0);
  CHECK(g[2] == 18.0);
}
