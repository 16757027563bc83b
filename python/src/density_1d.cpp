// SPDX-License-Identifier: MIT
// Density's value, JVP and VJP in 1D, float and double (one translation unit per dimension:
// they build in parallel).
#include "density.hpp"

namespace sphad::python {
SPHAD_PYTHON_DENSITY_DIM(, 1)
} // namespace sphad::python
