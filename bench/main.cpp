// SPDX-License-Identifier: MIT
// The benchmark runner: Google Benchmark's main plus the build and machine context in the
// JSON output (git hash, build type, compiler, CUDA, GPU, host threads).
#include <sphad/config.hpp>

#include <sphad/exec/host.hpp>

#include <benchmark/benchmark.h>

#include <string>

#if defined(SPHAD_BENCH_CUDA)
#include <cuda_runtime_api.h>
#endif

#ifndef SPHAD_BENCH_BUILD_TYPE
#define SPHAD_BENCH_BUILD_TYPE "unknown"
#endif
#ifndef SPHAD_GIT_HASH
#define SPHAD_GIT_HASH "unknown"
#endif

int main(int argc, char** argv) {
  benchmark::AddCustomContext("sphad_version", SPHAD_VERSION_STRING);
  benchmark::AddCustomContext("sphad_git_hash", SPHAD_GIT_HASH);
  benchmark::AddCustomContext("build_type", SPHAD_BENCH_BUILD_TYPE);
  benchmark::AddCustomContext("compiler", __VERSION__);
  benchmark::AddCustomContext("host_threads", std::to_string(sphad::exec::host::concurrency()));
#if defined(SPHAD_BENCH_CUDA)
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  benchmark::AddCustomContext("cuda_runtime", std::to_string(runtime));
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, 0) == cudaSuccess) {
    benchmark::AddCustomContext("gpu", properties.name);
  }
#endif
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
