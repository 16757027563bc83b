# SPDX-License-Identifier: MIT
"""Python's results are the C++ API's bits: a small C++ program, compiled with the compiler and
flags the module was built with (its _build.json) against the headers installed with it, calls
`build_neighbor_list`, `apply_into` and `record` + `backward` for a Gradient on the same inputs
(read from a file) and writes its outputs; NumPy and torch give the same bytes."""
import json
import pathlib
import subprocess

import numpy as np
import pytest

import sphad

PROGRAM = r"""
#include <sphad/sphad.hpp>
#include <cstdio>
#include <vector>
using namespace sphad;
int main(int, char** argv) {
  const int n = 64;
  std::vector<double> raw(5 * n);
  FILE* in = std::fopen(argv[1], "rb");
  if (std::fread(raw.data(), sizeof(double), raw.size(), in) != raw.size()) return 1;
  std::fclose(in);
  std::vector<Vec<double, 2>> x(n);
  std::vector<double> h(n), m(n), rho(n), f(n);
  for (int i = 0; i < n; ++i) {
    x[i] = {raw[2 * i], raw[2 * i + 1]};
    h[i] = raw[2 * n + i]; m[i] = raw[3 * n + i]; rho[i] = raw[4 * n + i];
  }
  for (int i = 0; i < n; ++i) f[i] = x[i][0] * x[i][0] - 0.5 * x[i][1];
  std::vector<std::int32_t> kinds(n, 0);
  Domain<2, double> d{};
  d.min = {0, 0}; d.max = {1, 1}; d.periodic = {true, true};
  const exec::host ex;
  const auto set = ParticleSet<2, double>{Span<const Vec<double, 2>>(x), Span<const double>(h),
                                          Span<const double>(m), Span<const std::int32_t>(kinds)}
                       .with_densities(Span<const double>(rho));
  const auto list = build_neighbor_list<SupportScheme::Scatter>(
      ex, SearchPoints<2, double>{set.positions, set.supports},
      SearchPoints<2, double>{set.positions, set.supports}, d);
  using Op = ops::Gradient<kernels::QuinticSpline, GradientScheme::Difference, SupportScheme::Scatter>;
  std::vector<Vec<double, 2>> grad(n);
  apply_into<Op>(ex, set, set, d, list, Span<const double>(f), Span<const double>(f),
                 Span<Vec<double, 2>>(grad));
  Tape<exec::host> tape(ex);
  const Variable<Vec<double, 2>> vx{Span<const Vec<double, 2>>(x)};
  const auto out = record<Op>(tape, set.with_positions(vx), set.with_positions(vx), d, list,
                              Span<const double>(f), Span<const double>(f));
  std::vector<Vec<double, 2>> seed(n, Vec<double, 2>{1.0, -2.0}), gx(n);
  tape.backward(out, Span<const Vec<double, 2>>(seed));
  tape.copy_gradient(vx, Span<Vec<double, 2>>(gx));
  FILE* o = std::fopen(argv[2], "wb");
  std::fwrite(grad.data(), sizeof(double), 2 * n, o);
  std::fwrite(gx.data(), sizeof(double), 2 * n, o);
  std::fclose(o);
}
"""


def test_results_equal_the_cpp_call_bitwise(tmp_path):
    torch = pytest.importorskip("torch")
    import sphad.torch as st
    package = pathlib.Path(sphad.__file__).parent
    config = json.loads((package / "_build.json").read_text())
    source, program = tmp_path / "gradient.cpp", tmp_path / "gradient"
    source.write_text(PROGRAM)
    built = subprocess.run([config["compiler"], "-std=c++17", *config["flags"], "-I",
                            str(package / "include"), str(source), "-o", str(program)],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    n, rng = 64, np.random.default_rng(5)
    x = rng.random((n, 2))
    h = 0.25 + 0.05 * rng.random(n)
    m = np.full(n, 1.0 / n) * (1 + 0.1 * rng.random(n))
    rho = 1 + 0.1 * rng.random(n)
    np.concatenate([x.ravel(), h, m, rho]).tofile(tmp_path / "in.bin")
    ran = subprocess.run([str(program), str(tmp_path / "in.bin"), str(tmp_path / "out.bin")],
                         capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    cpp = np.fromfile(tmp_path / "out.bin").reshape(2, n, 2)
    f = x[:, 0] ** 2 - 0.5 * x[:, 1]
    domain = sphad.Domain([0, 0], [1, 1], [True, True])
    neighbors = sphad.neighbor_list(x, h, domain, support=sphad.SupportScheme.Scatter)
    kinds = np.zeros(n, np.int32)
    choice = dict(kernel=sphad.Kernel.QuinticSpline, support=sphad.SupportScheme.Scatter,
                  scheme=sphad.GradientScheme.Difference)
    grad = sphad.gradient(x, h, m, kinds, rho, f, neighbors, domain, **choice)
    assert grad.tobytes() == cpp[0].tobytes()
    xt = torch.from_numpy(x).requires_grad_(True)
    t = lambda a: torch.from_numpy(a)  # noqa: E731
    out = st.gradient(xt, t(h), t(m), t(kinds), t(rho), t(f), neighbors, domain, **choice)
    assert out.detach().numpy().tobytes() == cpp[0].tobytes()
    out.backward(torch.tensor([1.0, -2.0], dtype=torch.float64).expand(n, 2))
    assert xt.grad.numpy().tobytes() == cpp[1].tobytes()
