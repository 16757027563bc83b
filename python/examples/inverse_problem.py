# SPDX-License-Identifier: MIT
"""An inverse problem with torch.optim: which masses make a particle cloud's SPH density equal
a target profile? Adam fits the masses through sphad's reverse-mode Density.

Run: python examples/inverse_problem.py   (after `pip install ./python`)
"""
import math

import torch

import sphad
import sphad.torch as st

side = 24
n, dx = side * side, 1.0 / side
g = (torch.arange(side, dtype=torch.float64) + 0.5) * dx
x = torch.stack(torch.meshgrid(g, g, indexing="ij"), -1).reshape(n, 2)   # fixed positions
h = torch.full((n,), 3 * dx, dtype=torch.float64)                           # kernel radius
kinds = torch.zeros(n, dtype=torch.int32)
box = sphad.Domain([0.0, 0.0], [1.0, 1.0], [True, True])
neighbors = sphad.neighbor_list(x, h, box)

target = 1.0 + 0.3 * torch.sin(2 * math.pi * x[:, 0]) * torch.cos(2 * math.pi * x[:, 1])
log_m = torch.full((n,), math.log(1.0 / n), dtype=torch.float64, requires_grad=True)
optimizer = torch.optim.Adam([log_m], lr=0.05)
for step in range(301):
    optimizer.zero_grad()
    rho = st.density(x, h, log_m.exp(), kinds, neighbors, box)   # masses stay positive
    loss = ((rho - target) ** 2).mean()
    loss.backward()                                             # sphad's VJP in the masses
    optimizer.step()
    if step % 100 == 0:
        print(f"step {step:3d}: mean squared density error {loss.item():.3e}")
print(f"final relative error {((rho - target).abs().max() / target.max()).item():.2e}")
