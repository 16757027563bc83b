// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

/// \file
/// \brief The math layer: `Vec`, `Mat`, small dense algebra, pinv, periodic minimum image.

#include <sphad/config.hpp>

#include <sphad/math/mat.hpp>
#include <sphad/math/periodic.hpp>
#include <sphad/math/pinv.hpp>
#include <sphad/math/scalar.hpp>
#include <sphad/math/vec.hpp>
