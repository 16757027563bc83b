// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

/// \file
/// \brief Building blocks of weakly-compressible SPH solvers, generic over the scalar and the
/// execution space and recordable on the tape: equations of state (`solver/eos.hpp`), the
/// pressure, viscous, continuity, density-diffusion and shifting terms as operators of the public
/// operator concept, time-step rules and integrators over a user's state. Above `sim`: the
/// integrators record on the tape through `sim`'s states.

#include <sphad/config.hpp>

#include <sphad/solver/continuity.hpp>
#include <sphad/solver/density_diffusion.hpp>
#include <sphad/solver/eos.hpp>
#include <sphad/solver/integrators.hpp>
#include <sphad/solver/pressure_force.hpp>
#include <sphad/solver/shifting.hpp>
#include <sphad/solver/time_step.hpp>
#include <sphad/solver/viscosity.hpp>
#include <sphad/solver/walls.hpp>
