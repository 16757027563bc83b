// SPDX-License-Identifier: MIT
// With SPHAD_ENABLE_ASSERTS, a failed SPHAD_ASSERT aborts (ctest expects this program to fail);
// without it, the same program returns 0 (the check compiles to nothing).
#include <sphad/config.hpp>

int main(int argc, char**) {
  SPHAD_ASSERT(argc > 1); // run without arguments: the condition is false
  return 0;
}
