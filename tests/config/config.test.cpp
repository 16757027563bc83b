// SPDX-License-Identifier: MIT
#include <sphad/config.hpp>

#include <sphad/errors.hpp>

#include <catch2/catch.hpp>

#include <string>

TEST_CASE("config: the version macros match the CMake project version", "[config]") {
  STATIC_REQUIRE(SPHAD_VERSION_MAJOR == SPHAD_TEST_PROJECT_VERSION_MAJOR);
  STATIC_REQUIRE(SPHAD_VERSION_MINOR == SPHAD_TEST_PROJECT_VERSION_MINOR);
  STATIC_REQUIRE(SPHAD_VERSION_PATCH == SPHAD_TEST_PROJECT_VERSION_PATCH);
  STATIC_REQUIRE(SPHAD_VERSION ==
                 SPHAD_VERSION_MAJOR * 10000 + SPHAD_VERSION_MINOR * 100 + SPHAD_VERSION_PATCH);
  CHECK(std::string(SPHAD_VERSION_STRING) == SPHAD_TEST_PROJECT_VERSION);
}

namespace {
void check_positive(int n) {
  SPHAD_REQUIRE(n > 0, "check_positive", "n",
                sphad::detail::concat("must be positive (got ", n, ", expected > 0)"));
}
} // namespace

TEST_CASE("errors: SPHAD_REQUIRE throws InvalidArgument naming the function and argument",
          "[config][errors]") {
  CHECK_NOTHROW(check_positive(1));
  CHECK_THROWS_AS(check_positive(-2), sphad::InvalidArgument);
  CHECK_THROWS_AS(check_positive(-2), std::invalid_argument);
  CHECK_THROWS_WITH(check_positive(-2),
                    "sphad::check_positive: argument `n`: must be positive (got -2, expected > 0)");
}

TEST_CASE("config: outside a CUDA compiler the annotations are empty", "[config]") {
  STATIC_REQUIRE(SPHAD_DEVICE_PASS == 0);
#if defined(_OPENMP)
  STATIC_REQUIRE(SPHAD_HAS_OPENMP == 1);
#else
  STATIC_REQUIRE(SPHAD_HAS_OPENMP == 0);
#endif
}
