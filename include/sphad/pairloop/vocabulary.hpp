// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/pair/concept.hpp>
#include <sphad/pair/corrections.hpp>
#include <sphad/pair/leaves.hpp>
#include <sphad/pair/pair.hpp>

/// \file
/// \brief The pair vocabulary (`sphad/pair/`) the pair-loop engine speaks, named in its
/// namespace: the engine (`sphad::pairloop`, internal) sits on the public pair layer and nothing
/// else of `ops`.

namespace sphad::pairloop {

using ops::check_operator;
using ops::Corrections;
using ops::CRK;
using ops::factored_combine_v;
using ops::GradH;
using ops::has_leaves_v;
using ops::kernel_part_v;
using ops::KernelPart;
using ops::Leaves;
using ops::NoCRK;
using ops::NoField;
using ops::NoGradH;
using ops::NoRenormalization;
using ops::Pair;
using ops::PairScalars;
using ops::ParticlePair;
using ops::Renormalization;
using ops::splits_term_v;
using ops::transposed_combine_v;
using ops::transposed_term_v;
using ops::Uncorrected;
using ops::zero_adjoint;

} // namespace sphad::pairloop
