// SPDX-License-Identifier: MIT
// The execution-layer tests on the host space.
#include <sphad/exec/host.hpp>
#define SPHAD_TEST_EXEC ::sphad::exec::host
#include "exec/exec.cases.hpp"

TEST_CASE("exec::host: reports its thread count", "[exec]") {
  CHECK(sphad::exec::host::concurrency() >= 1);
}
