// SPDX-License-Identifier: MIT
// Vec/Mat algebra, pinv and the minimum image evaluated in device code agree with the host.
#include <sphad/ad/dual.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/exec/cuda.hpp>
#include <sphad/math/periodic.hpp>
#include <sphad/math/pinv.hpp>

#include <catch2/catch.hpp>

#include <vector>

using namespace sphad;
using M3 = Mat<double, 3, 3>;

namespace {
struct PinvAndImage {
  const M3* in;
  M3* out;
  Vec<double, 3>* image;
  SPHAD_HOST_DEVICE void operator()(std::int64_t i) const {
    out[i] = pinv(in[i]);
    image[i] = minimum_image(Vec<double, 3>{in[i](0, 0) * 7, in[i](1, 1) * 7, 0.25},
                             Vec<double, 3>{1.0, 2.0, 1.0}, Vec<bool, 3>{true, true, false});
  }
};
} // namespace

TEST_CASE("math::pinv and minimum_image: device results match the host", "[math][cuda]") {
  const exec::cuda exec{};
  std::vector<M3> mats;
  for (int i = 0; i < 32; ++i) {
    const double t = 0.1 * i;
    mats.push_back(M3{1 + t, 0.5, t * t, -0.3, 2 - t, 0.1, t, 0.2, (i % 4 == 0) ? 0.0 : 1.0});
    mats.back()(2, 0) = (i % 4 == 0) ? 0.0 : t; // every fourth matrix is rank-deficient
  }
  const std::int64_t n = std::int64_t(mats.size());
  Buffer<M3, exec::cuda> d_in(exec, n), d_out(exec, n);
  Buffer<Vec<double, 3>, exec::cuda> d_image(exec, n);
  exec::copy_from_host(exec, mats.data(), d_in.data(), n);
  exec::for_each_index(exec, n, PinvAndImage{d_in.data(), d_out.data(), d_image.data()});
  const auto out = exec::to_host(exec, d_out.data(), n);
  const auto image = exec::to_host(exec, d_image.data(), n);
  std::vector<M3> host_out(mats.size());
  std::vector<Vec<double, 3>> host_image(mats.size());
  for (std::int64_t i = 0; i < n; ++i) {
    PinvAndImage{mats.data(), host_out.data(), host_image.data()}(i);
    for (int r = 0; r < 3; ++r) {
      CHECK(image[i][r] == Approx(host_image[i][r]).margin(1e-14));
      for (int c = 0; c < 3; ++c) {
        CHECK(out[i](r, c) == Approx(host_out[i](r, c)).epsilon(1e-10).margin(1e-12));
      }
    }
  }
}
