// SPDX-License-Identifier: MIT
// MPI around the distributed tests' Catch2 session, as a listener on the shared runner: MPI_Init
// when the run starts, MPI_Finalize when it ends. Every rank runs every test case, and the cases
// compare values reduced over the ranks, so all ranks pass or fail together (ctest runs them
// under mpiexec with 1, 2 and 4 ranks).
#define CATCH_CONFIG_EXTERNAL_INTERFACES // the listener interface
#include <catch2/catch.hpp>
#include <mpi.h>

namespace {

struct MpiSession : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;
  void testRunStarting(Catch::TestRunInfo const& info) override {
    TestEventListenerBase::testRunStarting(info);
    MPI_Init(nullptr, nullptr);
  }
  void testRunEnded(Catch::TestRunStats const& stats) override {
    MPI_Finalize();
    TestEventListenerBase::testRunEnded(stats);
  }
};

} // namespace

CATCH_REGISTER_LISTENER(MpiSession)
