# SPDX-License-Identifier: MIT
"""A differentiable weakly compressible SPH rollout in Python: 100 steps of a Taylor-Green
vortex in a periodic box (density by summation, linear equation of state, symmetric pressure
gradient, Laplacian viscosity, symplectic Euler), each step under torch.utils.checkpoint (the
backward recomputes one step at a time instead of keeping every step's intermediates). The
gradient of the final kinetic energy with respect to the flow's amplitude and the viscosity is
checked against central differences.

Run: python examples/wcsph_rollout.py   (after `pip install ./python`)
"""
import math

import torch
from torch.utils.checkpoint import checkpoint

import sphad
import sphad.torch as st
from sphad import GradientScheme

side = 16
n, dx = side * side, 1.0 / side
g = (torch.arange(side, dtype=torch.float64) + 0.5) * dx
x0 = torch.stack(torch.meshgrid(g, g, indexing="ij"), -1).reshape(n, 2)
h = torch.full((n,), 3 * dx, dtype=torch.float64)  # kernel radius
m = torch.full((n,), 1.0 / n, dtype=torch.float64)  # unit mass in the unit box: rho0 ~ 1
kinds = torch.zeros(n, dtype=torch.int32)
box = sphad.Domain([0.0, 0.0], [1.0, 1.0], [True, True])
c0, steps = 10.0, 100
dt = 0.2 * dx / c0
skin = 0.5 * dx  # one list serves 10 steps: particles move < 0.1 dx per step
with torch.no_grad():
    rho0 = st.density(x0, h, m, kinds, sphad.neighbor_list(x0, h, box), box).mean()


def step(x, v, nu, neighbors):
    rho = st.density(x, h, m, kinds, neighbors, box)
    p = c0 ** 2 * (rho - rho0)
    grad_p = st.gradient(x, h, m, kinds, rho, p, neighbors, box, scheme=GradientScheme.Symmetric)
    lap_v = st.laplacian(x, h, m, kinds, rho, v, neighbors, box)
    v = v + dt * (-grad_p / rho[:, None] + nu * lap_v)
    return (x + dt * v) % 1.0, v


def final_kinetic_energy(amplitude, nu):
    s, c = torch.sin(2 * math.pi * x0), torch.cos(2 * math.pi * x0)
    x, v = x0, amplitude * torch.stack([s[:, 0] * c[:, 1], -c[:, 0] * s[:, 1]], -1)
    for k in range(steps):
        if k % 10 == 0:  # a Verlet list: rebuilt every 10 steps, on plain positions
            neighbors = sphad.neighbor_list(x.detach(), h, box, skin=skin)
        x, v = checkpoint(step, x, v, nu, neighbors, use_reentrant=False)
    return 0.5 * (m[:, None] * v ** 2).sum()


amplitude = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
nu = torch.tensor(0.01, dtype=torch.float64, requires_grad=True)
energy = final_kinetic_energy(amplitude, nu)
energy.backward()
print(f"{n} particles, {steps} steps: kinetic energy {energy.item():.6e} "
      f"(initial {0.25 * amplitude.item() ** 2:.6e})")
with torch.no_grad():
    eps = 1e-6
    fd_a = (final_kinetic_energy(amplitude + eps, nu) - final_kinetic_energy(amplitude - eps, nu)) / (2 * eps)
    fd_nu = (final_kinetic_energy(amplitude, nu + eps) - final_kinetic_energy(amplitude, nu - eps)) / (2 * eps)
for name, ad, fd in (("amplitude", amplitude.grad, fd_a), ("viscosity", nu.grad, fd_nu)):
    error = abs(ad.item() - fd.item()) / abs(fd.item())
    print(f"dE/d{name}: reverse mode {ad.item():.10e}, central differences {fd.item():.10e}, "
          f"relative difference {error:.1e}")
    assert error < 1e-6, name
