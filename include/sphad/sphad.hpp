// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

/// \file
/// \brief Everything sphad offers, in one include.

#include <sphad/config.hpp>

#include <sphad/ad.hpp>
#include <sphad/corrections.hpp>
#include <sphad/errors.hpp>
#include <sphad/exec.hpp>
#include <sphad/io.hpp>
#include <sphad/kernels.hpp>
#include <sphad/math.hpp>
#include <sphad/ops.hpp>
#include <sphad/sampling.hpp>
#include <sphad/search.hpp>
#include <sphad/sim.hpp>
#include <sphad/solver.hpp>
#include <sphad/span.hpp>
