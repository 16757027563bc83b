#!/usr/bin/env python3
"""Generate float64 reference outputs from warpSPHCore (PyPI: warpsphcore) for sphad's C++ tests.

Run through generate.sh (which creates the venv). Writes plain-text files into
tests/data/reference/ (relative to the repository root, or to the directory
given as the first argument).
"""
import os
import sys

# Precision must be configured BEFORE warpSPHCore is imported: the package reads
# it once in warpSPHCore/type_config.py (env var `warpSPHCore_PRECISION`, or the
# pre-import module `warpSPHCore_config.configure(precision=...)`), and bakes it
# into every compiled Warp kernel.
os.environ["warpSPHCore_PRECISION"] = "float64"
import warpSPHCore_config  # noqa: E402
warpSPHCore_config.configure(precision="float64")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import warp as wp  # noqa: E402

wp.config.quiet = True
wp.init()

import warpSPHCore as sph  # noqa: E402
from warpSPHCore import (  # noqa: E402
    ParticleState, OperationProperties, DomainDescription,
    WarpOperation, KernelFunctions, GradientScheme, SupportScheme,
    LaplacianScheme, OperationDirection, radiusSearchCompactHashMap,
)
from warpSPHCore.type_config import get_precision  # noqa: E402

assert get_precision() == wp.float64, f"precision is {get_precision()}, expected float64"

HERE = os.path.dirname(os.path.abspath(__file__))
OUTDIR = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "tests", "data", "reference")
OUTDIR = os.path.abspath(OUTDIR)
os.makedirs(OUTDIR, exist_ok=True)

DEVICE = "cpu"
DT = torch.float64
FMT = "%.17g"

VERSIONS = {
    "warpsphcore": sph.__version__,
    "warp-lang": wp.config.version,
    "torch": torch.__version__,
    "numpy": np.__version__,
    "python": sys.version.split()[0],
}

# ----------------------------------------------------------------------------
# The particle set (numpy float64)
# ----------------------------------------------------------------------------
N1 = 8
dx = 0.25
N = N1 * N1
idx = np.arange(N)
lat = -1.0 + dx / 2 + np.arange(N1) * dx
x = np.empty((N, 2), dtype=np.float64)
x[:, 0] = lat[idx % N1]       # x varies fastest
x[:, 1] = lat[idx // N1]
for a in range(2):
    x[:, a] += 0.03 * np.sin(1.7 * idx + 0.3 * a)
h = 0.6 * (1.0 + 0.1 * np.cos(0.9 * idx))
m = dx * dx * (1.0 + 0.05 * np.sin(1.3 * idx))
kinds = np.zeros(N, dtype=np.int32)
f = np.sin(1.1 * x[:, 0]) + 0.5 * x[:, 1] ** 2
v = np.stack([x[:, 0] * x[:, 1], x[:, 0] - 2.0 * x[:, 1]], axis=1)

T = lambda arr: torch.tensor(arr, dtype=DT, device=DEVICE)  # noqa: E731
pos_t, h_t, m_t = T(x), T(h), T(m)
kinds_t = torch.tensor(kinds, dtype=torch.int32, device=DEVICE)
f_t, v_t = T(f), T(v)

domain = DomainDescription(
    min=torch.tensor([-1.0, -1.0], dtype=DT, device=DEVICE),
    max=torch.tensor([1.0, 1.0], dtype=DT, device=DEVICE),
    periodic=torch.tensor([False, False], dtype=torch.bool, device=DEVICE),
    dim=2,
)

particles_nodens = ParticleState(positions=pos_t, supports=h_t, masses=m_t, kinds=kinds_t)
# Neighbour list with the largest (SuperSymmetric) support so every scheme sees full neighbourhoods.
adjacency = radiusSearchCompactHashMap(particles_nodens, domain, mode=SupportScheme.SuperSymmetric)

manifest = []


def write_result(name, header, arr, meta):
    arr = np.asarray(arr, dtype=np.float64).reshape(N, -1)
    path = os.path.join(OUTDIR, name)
    with open(path, "w") as fh:
        fh.write("# " + header + "\n")
        for row in arr:
            fh.write(" ".join(FMT % val for val in row) + "\n")
    manifest.append((name, meta, arr.shape[1]))


def run(kernel, op, support, particles, gradient=GradientScheme.Naive,
        laplacian=LaplacianScheme.Default, values=None, divergenceDotMode=False):
    props = OperationProperties(
        kernel=kernel, operation=op,
        gradientMode=gradient, laplacianMode=laplacian,
        positiveDivergence=False,
        supportMode=support, operationMode=OperationDirection.AllToAll,
        divergenceDotMode=divergenceDotMode,
    )
    out = sph.warpOperation(particles, props, domain,
                            queryValues=values, referenceValues=values,
                            adjacency=adjacency)
    return out.detach().cpu().numpy()


# Densities: the reference's own Density (Gather, Wendland4); used by all other operators.
rho = run(KernelFunctions.Wendland4, WarpOperation.Density, SupportScheme.Gather, particles_nodens)
rho = np.asarray(rho, dtype=np.float64).reshape(N)
particles = ParticleState(positions=pos_t, supports=h_t, masses=m_t, kinds=kinds_t, densities=T(rho))

with open(os.path.join(OUTDIR, "inputs.txt"), "w") as fh:
    fh.write("# x y h m rho f vx vy\n")
    for i in range(N):
        row = [x[i, 0], x[i, 1], h[i], m[i], rho[i], f[i], v[i, 0], v[i, 1]]
        fh.write(" ".join(FMT % val for val in row) + "\n")

SUPPORTS = [SupportScheme.Gather, SupportScheme.Scatter, SupportScheme.MeanSymmetric,
            SupportScheme.KernelMeanSymmetric, SupportScheme.SuperSymmetric]
failures = []


def capture(name, fn):
    """fn()'s result, or None with the failure recorded (the run goes on)."""
    try:
        return fn()
    except Exception as exc:
        failures.append((name, f"{type(exc).__name__}: {exc}"))
        print(f"FAILED {name}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return None


def attempt(name, header, meta, fn):
    result = capture(name, fn)
    if result is not None:
        write_result(name, header, result, meta)


# Every operator for Wendland4 and the Dehnen & Aly comparison kernels HOCT4 (35) and Gaussian
# (36); Density and two gradient schemes for CubicSpline.
for kernel in [KernelFunctions.Wendland4, KernelFunctions.CubicSpline, KernelFunctions.HOCT4,
               KernelFunctions.Gaussian]:
    K = kernel.name
    full = kernel != KernelFunctions.CubicSpline
    for sup in SUPPORTS:
        S = sup.name
        base = dict(kernel=K, support=S, gradient="-", laplacian="-")
        # Density (uses masses only; densities input ignored)
        attempt(f"{K}_Density_{S}.txt", f"Density rho_i, kernel={K} support={S}; cols: rho",
                dict(base, operation="Density", field="-"),
                lambda: run(kernel, WarpOperation.Density, sup, particles_nodens))
        # Gradient of f
        for gs in [GradientScheme.Naive, GradientScheme.Symmetric, GradientScheme.Difference, GradientScheme.Summation]:
            if not full and gs not in (GradientScheme.Naive, GradientScheme.Difference):
                continue
            attempt(f"{K}_Gradient_{gs.name}_{S}.txt",
                    f"Gradient of f, kernel={K} gradient={gs.name} support={S}; cols: df/dx df/dy",
                    dict(base, operation="Gradient", gradient=gs.name, field="f"),
                    lambda gs=gs: run(kernel, WarpOperation.Gradient, sup, particles, gradient=gs, values=f_t))
        if not full:
            continue
        attempt(f"{K}_Interpolate_{S}.txt", f"Interpolate of f, kernel={K} support={S}; cols: f",
                dict(base, operation="Interpolate", field="f"),
                lambda: run(kernel, WarpOperation.Interpolate, sup, particles, values=f_t))
        for gs in [GradientScheme.Naive, GradientScheme.Difference]:
            attempt(f"{K}_Divergence_{gs.name}_{S}.txt",
                    f"Divergence of v (divergenceDotMode=False), kernel={K} gradient={gs.name} support={S}; cols: div v",
                    dict(base, operation="Divergence", gradient=gs.name, field="v"),
                    lambda gs=gs: run(kernel, WarpOperation.Divergence, sup, particles, gradient=gs, values=v_t))
        attempt(f"{K}_Curl_Difference_{S}.txt",
                f"Curl of v, kernel={K} gradient=Difference support={S}; cols: curl_z (2D output shape [N,1])",
                dict(base, operation="Curl", gradient="Difference", field="v"),
                lambda: run(kernel, WarpOperation.Curl, sup, particles, gradient=GradientScheme.Difference, values=v_t))
        for ls in [LaplacianScheme.Naive, LaplacianScheme.Brookshaw, LaplacianScheme.Default]:
            attempt(f"{K}_Laplacian_{ls.name}_{S}.txt",
                    f"Laplacian of f, kernel={K} laplacian={ls.name} gradient=Naive support={S}; cols: lap f",
                    dict(base, operation="Laplacian", gradient="Naive", laplacian=ls.name, field="f"),
                    lambda ls=ls: run(kernel, WarpOperation.Laplacian, sup, particles,
                                      gradient=GradientScheme.Naive, laplacian=ls, values=f_t))
        attempt(f"{K}_Laplacian_Dot_{S}.txt",
                f"Laplacian of v, kernel={K} laplacian=Dot gradient=Naive support={S}; cols: lap v_x lap v_y",
                dict(base, operation="Laplacian", gradient="Naive", laplacian="Dot", field="v"),
                lambda: run(kernel, WarpOperation.Laplacian, sup, particles,
                            gradient=GradientScheme.Naive, laplacian=LaplacianScheme.Dot, values=v_t))
        attempt(f"{K}_Covariance_{S}.txt",
                f"Covariance matrix, kernel={K} support={S}; cols: C00 C01 C10 C11 (row-major)",
                dict(base, operation="Covariance", field="-"),
                lambda: run(kernel, WarpOperation.Covariance, sup, particles))

# ----------------------------------------------------------------------------
# Correction pipelines: CRK factors and renormalization matrices, and the operators they correct.
# Appended after the operator outputs, so those files are unchanged.
# ----------------------------------------------------------------------------
from warpSPHCore import computeCRKFactors, computeRenormalizationMatrices  # noqa: E402


def np64(t):
    return t.detach().cpu().numpy().astype(np.float64)


def run_corrected(kernel, support, gradient, values, **corrections):
    props = OperationProperties(
        kernel=kernel, operation=WarpOperation.Gradient,
        gradientMode=gradient, laplacianMode=LaplacianScheme.Default,
        positiveDivergence=False,
        supportMode=support, operationMode=OperationDirection.AllToAll,
        divergenceDotMode=False,
    )
    out = sph.warpOperation(particles, props, domain,
                            queryValues=values, referenceValues=values,
                            adjacency=adjacency, **corrections)
    return np64(out)


for kernel in [KernelFunctions.Wendland4, KernelFunctions.CubicSpline]:
    K = kernel.name
    none = dict(kernel=K, support="-", gradient="-", laplacian="-", field="-")
    # CRK (computeCRKFactors: apparent volumes Gather, moments and density Scatter).
    crk_outputs = capture(f"{K}_CRK_*", lambda: computeCRKFactors(
        particles, domain, kernel, operationMode=OperationDirection.AllToAll,
        adjacency=adjacency))
    if crk_outputs is not None:
        volumes, crk_density, crk = crk_outputs
        write_result(f"{K}_CRK_volumes.txt",
                     f"CRK apparent volume V_i = 1/sum_j W(x_ij, h_i), kernel={K}; cols: V",
                     np64(volumes), dict(none, operation="CRK_volumes", support="Gather"))
        write_result(f"{K}_CRK_density.txt",
                     f"CRK density sum m_j V_j W^_ij / sum V_j^2 W^_ij, kernel={K}; cols: rho",
                     np64(crk_density), dict(none, operation="CRK_density", support="Scatter"))
        write_result(f"{K}_CRK_A.txt", f"CRK A, kernel={K}; cols: A",
                     np64(crk.A), dict(none, operation="CRK_A", support="Scatter"))
        write_result(f"{K}_CRK_B.txt", f"CRK B, kernel={K}; cols: B_x B_y",
                     np64(crk.B), dict(none, operation="CRK_B", support="Scatter"))
        write_result(f"{K}_CRK_gradA.txt", f"CRK gradA, kernel={K}; cols: dA/dx dA/dy",
                     np64(crk.gradA), dict(none, operation="CRK_gradA", support="Scatter"))
        write_result(f"{K}_CRK_gradB.txt",
                     f"CRK gradB[g][c] = dB_c/dx_g (derivative index first), kernel={K}; "
                     "cols: dBx/dx dBy/dx dBx/dy dBy/dy (row-major [g][c])",
                     np64(crk.gradB), dict(none, operation="CRK_gradB", support="Scatter"))
        V_t = volumes.detach()
        for gs in [GradientScheme.Difference, GradientScheme.Naive]:
            attempt(f"{K}_Gradient_CRK_{gs.name}_Scatter.txt",
                    f"CRK-corrected Gradient of f, volumes = CRK apparent volumes, kernel={K} "
                    f"gradient={gs.name} support=Scatter; cols: df/dx df/dy",
                    dict(none, operation="Gradient_CRK", support="Scatter", gradient=gs.name, field="f"),
                    lambda gs=gs: run_corrected(kernel, SupportScheme.Scatter, gs, f_t,
                                                queryVolumes=V_t, referenceVolumes=V_t, crkState=crk))
    # Renormalization (Covariance with Gather/Difference props, no volumes, no CRK).
    renorm_props = OperationProperties(
        kernel=kernel, operation=WarpOperation.Gradient,
        gradientMode=GradientScheme.Difference, laplacianMode=LaplacianScheme.Default,
        positiveDivergence=False,
        supportMode=SupportScheme.Gather, operationMode=OperationDirection.AllToAll,
        divergenceDotMode=False,
    )
    renorm_outputs = capture(f"{K}_Renorm_*", lambda: computeRenormalizationMatrices(
        particles, renorm_props, domain, adjacency=adjacency))
    if renorm_outputs is not None:
        C, _eig, renorm = renorm_outputs
        assert renorm_props.operation == WarpOperation.Gradient  # the reference must not modify it
        write_result(f"{K}_Renorm_C.txt",
                     f"Renormalization covariance C (after the identity fallback), kernel={K} "
                     "support=Gather; cols: C00 C01 C10 C11 (row-major)",
                     np64(C), dict(none, operation="Renorm_C", support="Gather"))
        write_result(f"{K}_Renorm_L.txt",
                     f"Renormalization matrix L, kernel={K} support=Gather; cols: L00 L01 L10 L11 (row-major)",
                     np64(renorm.renormalizationMatrices),
                     dict(none, operation="Renorm_L", support="Gather"))
        attempt(f"{K}_Gradient_Renorm_Difference_Gather.txt",
                f"Renormalized Gradient of f (L from {K}_Renorm_L.txt), kernel={K} "
                "gradient=Difference support=Gather; cols: df/dx df/dy",
                dict(none, operation="Gradient_Renorm", support="Gather", gradient="Difference", field="f"),
                lambda: run_corrected(kernel, SupportScheme.Gather, GradientScheme.Difference, f_t,
                                      renormalizationState=renorm))

with open(os.path.join(OUTDIR, "MANIFEST.txt"), "w") as fh:
    fh.write("# sphad reference data generated by tools/reference/generate.py\n")
    fh.write("# versions: " + " ".join(f"{k}=={v}" for k, v in VERSIONS.items()) + "\n")
    fh.write("# precision: warpSPHCore_PRECISION=float64 (warpSPHCore.type_config.scalar_t == wp.float64); device=cpu\n")
    fh.write("# direction=AllToAll, no CRK/renormalization/grad-h/volumes/lattice calibration, positiveDivergence=False\n")
    fh.write("# (except the correction files: <K>_CRK_* from computeCRKFactors(particles, domain, kernel, adjacency);\n")
    fh.write("#  <K>_Gradient_CRK_* with the CRK state and volumes = <K>_CRK_volumes for query and reference;\n")
    fh.write("#  <K>_Renorm_C/L from computeRenormalizationMatrices(particles, props(Gradient, Gather, Difference), domain,\n")
    fh.write("#  adjacency) without volumes or CRK; <K>_Gradient_Renorm_* with that state)\n")
    fh.write("# neighbour list: radiusSearchCompactHashMap(particles, domain, mode=SupportScheme.SuperSymmetric)\n")
    fh.write("# inputs.txt: 64 particles, cols x y h m rho f vx vy (rho = Wendland4_Density_Gather)\n")
    fh.write("# file operation kernel support gradient laplacian field ncols\n")
    fh.write("inputs.txt inputs - - - - - 8\n")
    for name, meta, ncols in manifest:
        fh.write(f"{name} {meta['operation']} {meta['kernel']} {meta['support']} "
                 f"{meta['gradient']} {meta['laplacian']} {meta['field']} {ncols}\n")
    for name, err in failures:
        fh.write(f"# FAILED {name}: {err}\n")

print(f"wrote {len(manifest) + 2} files to {OUTDIR}; failures: {len(failures)}")
print("versions:", VERSIONS)
sys.exit(1 if failures else 0)
