// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

/// \file
/// \brief The search layer: grid, neighbour lists, Verlet lists, brute force.

#include <sphad/config.hpp>

#include <sphad/domain.hpp>
#include <sphad/search/brute_force.hpp>
#include <sphad/search/grid_layout.hpp>
#include <sphad/search/hash_grid.hpp>
#include <sphad/search/list_checks.hpp>
#include <sphad/search/neighbor_cache.hpp>
#include <sphad/search/neighbor_list.hpp>
#include <sphad/search/points.hpp>
#include <sphad/search/support_radius.hpp>
#include <sphad/search/transpose.hpp>
#include <sphad/search/verlet.hpp>
