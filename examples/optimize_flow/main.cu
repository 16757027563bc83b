// SPDX-License-Identifier: MIT
// optimize_flow on CUDA, from the same source as the host build (optimize_flow.hpp, flow.hpp).
// Usage: optimize_flow_cuda [side] [steps] [iterations]
#include "optimize_flow.hpp"

int main(int argc, char** argv) {
  return flow::optimize_flow(sphad::exec::cuda{}, argc, argv);
}
