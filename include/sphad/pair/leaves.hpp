// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <type_traits>

/// \file
/// \brief `ops::Leaves<X>`: how a struct of scalars (an operator's output that is not a scalar,
/// `Vec` or `Mat`) tells forward and reverse mode which of its members hold scalars.

namespace sphad::ops {

/// Structs of scalars that flow through the operator loops and the tape (a Covariance result,
/// the CRK moments, a user operator's struct output) say here which of their members hold
/// scalars. A specialization provides `template <class S> using rebind` (the struct over scalar
/// S), `count` (its scalars, which come first in its memory), `zip(f, xs...)` (calls f on the
/// same scalar-holding member of every x, member by member in memory order) and
/// `copy_rest(to, from)` (the other members, e.g. a count). The struct also specializes
/// `sphad::scalar_of` (its scalar type) and has `operator+=` (the sum over pairs).
template <class X>
struct Leaves;

/// Whether X specializes `Leaves`.
template <class X, class = void>
inline constexpr bool has_leaves_v = false;
template <class X>
inline constexpr bool has_leaves_v<X, std::void_t<decltype(Leaves<X>::count)>> = true;

} // namespace sphad::ops
