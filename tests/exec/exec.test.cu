// SPDX-License-Identifier: MIT
// The execution-layer tests on the CUDA space (needs a GPU to run; CI only compiles it).
#include <sphad/exec/cuda.hpp>
#define SPHAD_TEST_EXEC ::sphad::exec::cuda
#include "exec/exec.cases.hpp"

TEST_CASE("exec::cuda: work on a caller's stream completes at fence", "[exec][cuda]") {
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
  {
    const sphad::exec::cuda exec{stream};
    sphad::Buffer<std::int64_t, sphad::exec::cuda> out(exec, 1000);
    sphad::exec::for_each_index(exec, 1000, sphad::test::SquareIndex{out.data()});
    sphad::exec::fence(exec);
    const auto host = sphad::exec::to_host(exec, out.data(), 1000);
    CHECK(host[999] == 999 * 999);
  }
  REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
}

TEST_CASE("exec::cuda: the device's memory pool keeps what sphad frees", "[exec][cuda]") {
  const sphad::exec::cuda exec{};
  { const sphad::Buffer<double, sphad::exec::cuda> freed(exec, 1 << 20); }
  sphad::exec::fence(exec); // a synchronization would release it under the default threshold
  int device = 0;
  REQUIRE(cudaGetDevice(&device) == cudaSuccess);
  cudaMemPool_t pool = nullptr;
  REQUIRE(cudaDeviceGetMemPool(&pool, device) == cudaSuccess);
  std::uint64_t threshold = 0, reserved = 0;
  REQUIRE(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold) ==
          cudaSuccess);
  REQUIRE(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) ==
          cudaSuccess);
  CHECK(threshold == ~std::uint64_t(0));
  CHECK(reserved >= std::uint64_t(8) << 20);
}
