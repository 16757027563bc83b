// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

/// \file
/// \brief The corrections layer: CRK factors, renormalization matrices and grad-h Ω, computed
/// with the operators' machinery; the operators apply them through `ops::Corrections`.

#include <sphad/config.hpp>

#include <sphad/corrections/crk.hpp>
#include <sphad/corrections/crk_factors.hpp>
#include <sphad/corrections/grad_h.hpp>
#include <sphad/corrections/renormalization.hpp>
#include <sphad/corrections/self_term.hpp>
