// SPDX-License-Identifier: MIT
// optimize_flow on the host: see optimize_flow.hpp. Usage: optimize_flow [side] [steps]
// [iterations]
#include "optimize_flow.hpp"

int main(int argc, char** argv) {
  return flow::optimize_flow(sphad::exec::host{}, argc, argv);
}
