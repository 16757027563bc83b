// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sstream>
#include <stdexcept>
#include <string>

/// \file
/// \brief The exceptions sphad throws and `SPHAD_REQUIRE`, the check of user input.

namespace sphad {

/// Bad user input, detected on the host before any work is launched. The message
/// reads ``sphad::<function>: argument `<name>`: <problem>``.
class InvalidArgument : public std::invalid_argument {
public:
  using std::invalid_argument::invalid_argument;
};

/// A CUDA runtime call failed; the message names the call and the CUDA error string.
class CudaError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

namespace detail {

/// Streams every argument into one string: `concat("got ", n, ", expected ", m)`.
template <class... Parts>
std::string concat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

[[noreturn]] inline void
throw_invalid_argument(const char* function, const char* argument, const std::string& problem) {
  throw InvalidArgument(concat("sphad::", function, ": argument `", argument, "`: ", problem));
}

} // namespace detail
} // namespace sphad

/// Checks user input on the host; throws `sphad::InvalidArgument` naming `function` and
/// `argument`. `problem` (a `std::string` expression) is evaluated only when the check fails.
/// Example: `SPHAD_REQUIRE(n >= 0, "exclusive_scan", "n", detail::concat("negative (got ", n,
/// ")"))`.
#define SPHAD_REQUIRE(condition, function, argument, problem)                                      \
  do {                                                                                             \
    if (!(condition)) {                                                                            \
      ::sphad::detail::throw_invalid_argument(function, argument, problem);                        \
    }                                                                                              \
  } while (false)
