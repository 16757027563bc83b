// SPDX-License-Identifier: MIT
// The search tests on the host space.
#include <sphad/exec/host.hpp>
#define SPHAD_TEST_EXEC ::sphad::exec::host
#include "search/search.cases.hpp"
