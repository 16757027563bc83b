// SPDX-License-Identifier: MIT
// Host vectors to device buffers and device results compared with host ones, for the CUDA tests
// (include from .cu files only); views of them: test::span in ops/ops_cases.hpp.
#pragma once

#include <sphad/exec/buffer.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/exec/cuda.hpp>

#include "kernels/kernel_cases.hpp" // near
#include "support/flatten.hpp"
#include "support/space_arrays.hpp"

#include <cstdint>
#include <vector>

namespace sphad::test {

/// Every scalar of a device result equals the host result's to 1e-12 relative (1e-12 absolute).
template <class T, class E>
bool agrees_with_host(const exec::cuda& device,
                      const Buffer<T, E>& on_host,
                      const Buffer<T, exec::cuda>& on_device) {
  const auto got = exec::to_host(device, on_device.data(), on_device.size());
  bool ok = on_host.size() == std::int64_t(got.size());
  for (std::int64_t i = 0; ok && i < on_host.size(); ++i) {
    const auto a = flatten(on_host[i]);
    const auto b = flatten(got[std::size_t(i)]);
    for (std::size_t k = 0; k < a.size(); ++k) {
      ok = ok && near(a[k], b[k], 1e-12, 1e-12);
    }
  }
  return ok;
}

} // namespace sphad::test
