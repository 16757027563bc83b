// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

/// \file
/// \brief The operators layer: particle views, operator specs, `apply` and the runtime front end.

#include <sphad/config.hpp>

#include <sphad/ops/apply.hpp>
#include <sphad/ops/corrections.hpp>
#include <sphad/ops/covariance.hpp>
#include <sphad/ops/hvp.hpp>
#include <sphad/ops/jvp.hpp>
#include <sphad/ops/laplacian.hpp>
#include <sphad/ops/leaves.hpp>
#include <sphad/ops/operator_concept.hpp>
#include <sphad/ops/operators.hpp>
#include <sphad/ops/options.hpp>
#include <sphad/ops/pair.hpp>
#include <sphad/ops/properties.hpp>
#include <sphad/ops/record.hpp>
#include <sphad/ops/runtime.hpp>
#include <sphad/ops/schemes.hpp>
#include <sphad/particles.hpp>
