// SPDX-License-Identifier: MIT
// Density's value, JVP and VJP in 2D, float and double (one translation unit per dimension:
// they build in parallel).
#include "density.hpp"

namespace sphad::python {
SPHAD_PYTHON_DENSITY_DIM(, 2)
} // namespace sphad::python
