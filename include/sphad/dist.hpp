// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

/// \file
/// \brief The distributed layer over MPI (link `sphad::dist`): decompositions, the halo exchange
/// and its adjoint, recorded on the tape. Not part of `sphad/sphad.hpp`: it needs MPI.

#include <sphad/config.hpp>

#include <sphad/dist/communicator.hpp>
#include <sphad/dist/decomposition.hpp>
#include <sphad/dist/exchange.hpp>
#include <sphad/dist/halo.hpp>
#include <sphad/dist/migration.hpp>
#include <sphad/dist/record.hpp>
