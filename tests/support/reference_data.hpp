// SPDX-License-Identifier: MIT
// Loading the reference implementation's outputs (tests/data/reference/, written by
// tools/reference/generate.py) and comparing sphad's results with them: the particle set of
// inputs.txt, and the error of an output relative to the largest magnitude of the reference's.
#pragma once

#include <sphad/ops.hpp>

#include "ops/ops_cases.hpp"
#include "support/flatten.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace sphad::test::reference {

/// The folder of the data files: the environment variable SPHAD_REFERENCE_DATA_DIR, which ctest
/// sets to tests/data/reference (an environment variable, not a compiled-in path, so the test
/// objects do not depend on where the checkout lies and a compiler cache serves every checkout).
inline std::string data_dir() {
  const char* dir = std::getenv("SPHAD_REFERENCE_DATA_DIR");
  INFO("the environment variable SPHAD_REFERENCE_DATA_DIR must name tests/data/reference "
       "(ctest sets it)");
  REQUIRE(dir != nullptr);
  return dir;
}

/// Rows of numbers in a data file, comment lines skipped.
inline std::vector<std::vector<double>> read_rows(const std::string& name) {
  std::ifstream in(data_dir() + "/" + name);
  INFO("reading " << name);
  REQUIRE(in.good());
  std::vector<std::vector<double>> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') {
      continue;
    }
    std::istringstream fields(line);
    std::vector<double> row;
    double value = 0;
    while (fields >> value) {
      row.push_back(value);
    }
    rows.push_back(row);
  }
  return rows;
}

/// The particle set and fields of inputs.txt.
struct Inputs {
  Particles<2, double> p;
  std::vector<double> f;
  std::vector<Vec<double, 2>> v;
};

inline Inputs load_inputs() {
  Inputs in;
  for (const auto& r : read_rows("inputs.txt")) { // x y h m rho f vx vy
    in.p.add({r[0], r[1]}, r[2], r[3], r[4]);
    in.f.push_back(r[5]);
    in.v.push_back({r[6], r[7]});
  }
  return in;
}

/// max |ours − reference| / max |reference| over the file.
template <class Out>
double relative_error(const Buffer<Out, exec::host>& ours, const std::string& file) {
  const auto reference = read_rows(file);
  INFO("comparing with " << file);
  REQUIRE(std::int64_t(reference.size()) == ours.size());
  double error = 0, scale = 1e-300;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    const auto row = test::flatten(ours[std::int64_t(i)]);
    REQUIRE(row.size() == reference[i].size());
    for (std::size_t k = 0; k < row.size(); ++k) {
      error = std::fmax(error, std::abs(row[k] - reference[i][k]));
      scale = std::fmax(scale, std::abs(reference[i][k]));
    }
  }
  return error / scale;
}

} // namespace sphad::test::reference
