// SPDX-License-Identifier: MIT
// Catch2's runner for the distributed tests, inside MPI_Init / MPI_Finalize: every rank runs
// every test case, and the cases' checks compare values reduced over the ranks, so all ranks
// pass or fail together (the ctest runs them under mpiexec with 1, 2 and 4 ranks).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int failed = Catch::Session().run(argc, argv);
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any != 0 ? 1 : 0;
}
