// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

/// \file
/// \brief The operators layer: particle views, operator specs, `apply` and the runtime front end.

#include <sphad/config.hpp>

#include <sphad/ops/apply.hpp>
#include <sphad/ops/covariance.hpp>
#include <sphad/ops/fused.hpp>
#include <sphad/ops/hvp.hpp>
#include <sphad/ops/jvp.hpp>
#include <sphad/ops/laplacian.hpp>
#include <sphad/ops/operators.hpp>
#include <sphad/ops/pairs.hpp>
#include <sphad/ops/record.hpp>
#include <sphad/ops/runtime.hpp>
#include <sphad/ops/spelled_out_calls.hpp>
#include <sphad/pair/concept.hpp>
#include <sphad/pair/corrections.hpp>
#include <sphad/pair/leaves.hpp>
#include <sphad/pair/options.hpp>
#include <sphad/pair/pair.hpp>
#include <sphad/pair/properties.hpp>
#include <sphad/pair/schemes.hpp>
#include <sphad/particles.hpp>
