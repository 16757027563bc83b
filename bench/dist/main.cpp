// SPDX-License-Identifier: MIT
// The distributed benchmarks' runner: Google Benchmark inside MPI_Init / MPI_Finalize. Every
// benchmark runs a fixed number of iterations (each one is collective: the ranks must agree on
// the count); rank 0 reports, the other ranks' output is discarded.
#include <sphad/config.hpp>

#include <benchmark/benchmark.h>
#include <mpi.h>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank != 0 && std::freopen("/dev/null", "w", stdout) == nullptr) {
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  benchmark::AddCustomContext("sphad_version", SPHAD_VERSION_STRING);
  benchmark::AddCustomContext("mpi_ranks", std::to_string(size));
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  MPI_Finalize();
  return 0;
}
