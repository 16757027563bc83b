// SPDX-License-Identifier: MIT
// expect: "sphad::exec::stable_sort_by_key: keys must be integral"
#include <sphad/exec/sort.hpp>

int main() {
  float keys[2] = {1.0f, 0.0f};
  int values[2] = {0, 1};
  sphad::exec::stable_sort_by_key(sphad::exec::host{}, keys, values, 2);
  return values[0];
}
