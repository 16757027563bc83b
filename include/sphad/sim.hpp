// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

/// \file
/// \brief Differentiable simulations, above the operators: the tape's array algebra — recorded
/// sums, dots and norms that make a loss (`sim/reduce.hpp`), gathers and scatter-adds by an
/// index array (`sim/gather.hpp`) — states declared once (`sim/state.hpp`) and checkpointed
/// rollouts (`sim/rollout.hpp`). Its own layer because it builds on `ops` (record_map's local
/// forward mode) and `exec`, which the AD core under `ad/` must not include.

#include <sphad/config.hpp>

#include <sphad/sim/fields.hpp>
#include <sphad/sim/gather.hpp>
#include <sphad/sim/problem.hpp>
#include <sphad/sim/reduce.hpp>
#include <sphad/sim/rollout.hpp>
#include <sphad/sim/state.hpp>
#include <sphad/sim/views.hpp>
