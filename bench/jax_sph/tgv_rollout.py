# SPDX-License-Identifier: MIT
"""JAX-SPH's own 2D Taylor–Green case (transport velocity) as a 50-step rollout and the
gradient of its final kinetic energy with respect to the initial positions, timed for the
side-by-side with sphad's rollouts in docs/performance.md. Not part of the build or the tests.

Setup (CPU JAX; JAX-SPH 0.1.0 declares Python <= 3.11.0, hence --ignore-requires-python):
  python3 -m venv /tmp/jaxenv
  /tmp/jaxenv/bin/pip install --ignore-requires-python --only-binary=:all: \
      "jax-sph==0.1.0" "jax[cpu]==0.4.29" "numpy<2"
  git clone https://github.com/tumaer/jax-sph && git -C jax-sph checkout v0.1.0  # its cases/
Run: /tmp/jaxenv/bin/python bench/jax_sph/tgv_rollout.py jax-sph/cases SIDE float64|float32
Prints one line: particles, dtype, and the best of three (after a compile) of the plain
rollout, the gradient with every state kept, and the gradient with jax.checkpoint per step.
"""
import os
import sys
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")
cases_dir, side, dtype = sys.argv[1], int(sys.argv[2]), sys.argv[3]

import jax  # noqa: E402

jax.config.update("jax_enable_x64", dtype == "float64")

import numpy as np  # noqa: E402
from jax import grad, jit, lax  # noqa: E402
from omegaconf import OmegaConf  # noqa: E402

from jax_sph.case_setup import load_case  # noqa: E402
from jax_sph.defaults import defaults  # noqa: E402
from jax_sph.integrator import si_euler  # noqa: E402
from jax_sph.jax_md.partition import Sparse  # noqa: E402
from jax_sph.partition import neighbor_list  # noqa: E402
from jax_sph.solver import WCSPH  # noqa: E402

STEPS = 50

cfg = OmegaConf.create({"config": os.path.join(cases_dir, "tgv.yaml")})
cfg = OmegaConf.merge(defaults.copy(), OmegaConf.load(cfg.config), cfg)
cfg.case.dx = 1.0 / side
cfg.solver.tvf = 1.0
cfg.dtype = dtype
case = load_case(cases_dir, cfg.case.source)(cfg)
(cfg, box_size, state, g_ext_fn, bc_fn, nw_fn, eos_fn, _, displ_fn, shift_fn) = case.initialize()
solver = WCSPH(
    displ_fn,
    eos_fn,
    g_ext_fn,
    cfg.case.dx,
    cfg.case.dim,
    cfg.solver.dt,
    cfg.case.c_ref,
    cfg.solver.eta_limiter,
    cfg.solver.name,
    cfg.kernel.name,
    cfg.solver.is_bc_trick,
    cfg.solver.density_evolution,
    cfg.solver.artificial_alpha,
    cfg.solver.free_slip,
    cfg.solver.density_renormalize,
    cfg.solver.heat_conduction,
)
n = state["r"].shape[0]
neighbor_fn = neighbor_list(
    displ_fn,
    box_size,
    r_cutoff=solver._kernel_fn.cutoff,
    backend=cfg.nl.backend,
    capacity_multiplier=1.25,
    mask_self=False,
    format=Sparse,
    num_particles_max=n,
    num_partitions=cfg.nl.num_partitions,
    pbc=np.array(cfg.case.pbc),
)
neighbors = neighbor_fn.allocate(state["r"], num_particles=n)
advance = si_euler(cfg.solver.tvf, solver.forward_wrapper(), shift_fn, bc_fn, nw_fn)
state, neighbors = jit(advance)(0.0, state, neighbors)  # the initial rates, as simulate does
dt = cfg.solver.dt


def rollout(s, nb, checkpoint):
    def step(carry, _):
        return advance(dt, *carry), None

    (out, _), _ = lax.scan(jax.checkpoint(step) if checkpoint else step, (s, nb), None, STEPS)
    return out


def energy(r0, s, nb, checkpoint):
    s = dict(s)
    s["r"] = r0
    out = rollout(s, nb, checkpoint)
    return 0.5 * (out["mass"] * (out["u"] ** 2).sum(-1)).sum()


plain = jit(lambda s, nb: rollout(s, nb, False)["u"])
gradient = jit(grad(lambda r0, s, nb: energy(r0, s, nb, False)))
checkpointed = jit(grad(lambda r0, s, nb: energy(r0, s, nb, True)))


def best(fn, *args):
    jax.block_until_ready(fn(*args))  # compile
    times = []
    for _ in range(3):
        start = time.perf_counter()
        jax.block_until_ready(fn(*args))
        times.append(time.perf_counter() - start)
    return 1e3 * min(times)


print(
    f"particles {n} {dtype}: rollout {best(plain, state, neighbors):.0f} ms, "
    f"gradient {best(gradient, state['r'], state, neighbors):.0f} ms, "
    f"checkpointed {best(checkpointed, state['r'], state, neighbors):.0f} ms "
    f"(jax {jax.__version__})"
)
