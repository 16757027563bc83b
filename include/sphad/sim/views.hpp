// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/plain_tape.hpp>
#include <sphad/ad/tape.hpp>
#include <sphad/ad/variable.hpp>
#include <sphad/errors.hpp>
#include <sphad/span.hpp>

#include <cstdint>

/// \file
/// \brief What the tape algebra's calls check of a view (a `Variable` or a `Span`).

namespace sphad::sim {

/// What the tape algebra's calls (`record_map`, `record_gather`, the reductions, the
/// distributed sums) check of an input view: throws naming `argument` of `function` when `view`
/// is an empty `Variable`, a `Variable` of
/// another tape or a cleared one, or has other than n elements (before the tape changes).
template <class T, class View>
void check_view(
    const T& tape, const View& view, std::int64_t n, const char* function, const char* argument) {
  sphad::detail::require_readable(view, tape, function, argument);
  SPHAD_REQUIRE(view.size() == n, function, argument,
                sphad::detail::concat("has ", view.size(), " element", view.size() == 1 ? "" : "s",
                                      " where ", n, n == 1 ? " is" : " are", " needed"));
}

} // namespace sphad::sim
