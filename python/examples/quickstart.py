# SPDX-License-Identifier: MIT
"""sphad from PyTorch in a few lines: densities of a jittered lattice in a periodic box, their
gradient with respect to the positions (reverse mode) and a directional derivative (forward
mode), the two checked against each other. On a GPU when torch sees one (the CUDA entries are
compiled by nvcc on first use), else on the CPU; SPHAD_DEVICE=cpu forces the CPU.

Run: python examples/quickstart.py   (after `pip install ./python`)
"""
import os

import torch

import sphad
import sphad.torch as st

torch.manual_seed(0)
device = os.environ.get("SPHAD_DEVICE") or ("cuda" if torch.cuda.is_available() else "cpu")
torch.set_default_device(device)                # every tensor below is made there
side = 32
n = side * side
spacing = 1.0 / side
grid = torch.stack(torch.meshgrid(torch.arange(side), torch.arange(side), indexing="ij"), -1)
x = ((grid.reshape(n, 2).double() + 0.5) * spacing + 0.1 * spacing * torch.randn(n, 2))
x = (x % 1.0).requires_grad_(True)              # positions, (n, 2) float64
h = torch.full((n,), 2.5 * spacing, dtype=torch.float64)  # supports (kernel radius)
m = torch.full((n,), 1.0 / n, dtype=torch.float64)        # unit total mass
kinds = torch.zeros(n, dtype=torch.int32)                 # all fluid
box = sphad.Domain(min=[0.0, 0.0], max=[1.0, 1.0], periodic=[True, True])

neighbors = sphad.neighbor_list(x.detach(), h, box, skin=0.1 * spacing)
rho = st.density(x, h, m, kinds, neighbors, box, kernel=sphad.Kernel.Wendland4)
print(f"{n} particles on {device}, {neighbors.num_pairs} pairs; density mean {rho.mean():.6f}, "
      f"min {rho.min():.6f}, max {rho.max():.6f}")

# Reverse mode: the gradient of a loss (the density's spread) with respect to the positions.
loss = ((rho - 1.0) ** 2).mean()
(grad,) = torch.autograd.grad(loss, x)

# Forward mode: the same loss's derivative along a direction v, by torch.func.jvp.
v = torch.randn(n, 2, dtype=torch.float64)
f = lambda p: ((st.density(p, h, m, kinds, neighbors, box) - 1.0) ** 2).mean()  # noqa: E731
_, directional = torch.func.jvp(f, (x.detach(),), (v,))
print(f"loss {loss:.3e}; <grad, v> = {torch.sum(grad * v):.12e}, jvp = {directional:.12e}")
assert torch.isclose(torch.sum(grad * v), directional, rtol=1e-12)
