// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

/// \file
/// \brief Output, on the host: particle frames for ParaView (`io/vtk.hpp`: `.vtu` files and a
/// `.pvd` time series), CSV tables (`io/csv.hpp`), a progress line for long runs
/// (`io/progress.hpp`) and SVG line and scatter plots (`io/svg_plot.hpp`). Plain C++17 and the
/// standard library; data in device memory is copied to the host by the caller first.

#include <sphad/config.hpp>

#include <sphad/io/csv.hpp>
#include <sphad/io/progress.hpp>
#include <sphad/io/svg_plot.hpp>
#include <sphad/io/vtk.hpp>
