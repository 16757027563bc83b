# SPDX-License-Identifier: MIT
"""The examples run and reach what they claim: the inverse problem fits the target densities,
the WCSPH rollout's reverse-mode gradient agrees with central differences (it asserts 1e-6)."""
import pathlib
import re
import subprocess
import sys

import pytest

pytest.importorskip("torch")
EXAMPLES = pathlib.Path(__file__).parents[1] / "examples"


def run(name):
    out = subprocess.run([sys.executable, "-P", str(EXAMPLES / name)], capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_the_inverse_problem_fits_the_target():
    out = run("inverse_problem.py")
    assert float(re.search(r"final relative error (\S+)", out).group(1)) < 1e-4


def test_the_wcsph_rollout_gradient_matches_central_differences():
    out = run("wcsph_rollout.py")
    differences = [float(d) for d in re.findall(r"relative difference (\S+)", out)]
    assert len(differences) == 2 and max(differences) < 1e-6
