// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

/// \file
/// \brief Initial conditions: particles on lattices (host only).

#include <sphad/config.hpp>

#include <sphad/sampling/box.hpp>
#include <sphad/sampling/lattice.hpp>
