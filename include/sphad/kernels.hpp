// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

/// \file
/// \brief The kernels layer: every smoothing kernel type, their evaluation, support schemes,
/// runtime dispatch, properties and lattice calibration.

#include <sphad/config.hpp>

#include <sphad/kernels/akinci.hpp>
#include <sphad/kernels/b_splines.hpp>
#include <sphad/kernels/dispatch.hpp>
#include <sphad/kernels/evaluate.hpp>
#include <sphad/kernels/gaussian.hpp>
#include <sphad/kernels/hoct4.hpp>
#include <sphad/kernels/kernel_id.hpp>
#include <sphad/kernels/kernel_traits.hpp>
#include <sphad/kernels/lattice.hpp>
#include <sphad/kernels/mueller.hpp>
#include <sphad/kernels/properties.hpp>
#include <sphad/kernels/support.hpp>
#include <sphad/kernels/wendland.hpp>
