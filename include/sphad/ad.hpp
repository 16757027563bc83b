// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

/// \file
/// \brief The autodiff layer: dual numbers, scalar traits, safe primitives.

#include <sphad/config.hpp>

#include <sphad/ad/dual.hpp>
#include <sphad/ad/dual_math.hpp>
#include <sphad/ad/dual_view.hpp>
#include <sphad/ad/safe.hpp>
#include <sphad/ad/tape.hpp>
#include <sphad/ad/variable.hpp>
#include <sphad/scalar_traits.hpp>
