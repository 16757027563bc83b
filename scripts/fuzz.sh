#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the fuzz targets (the `fuzz` preset: clang, libFuzzer, ASan + UBSan) and runs each for
# SECONDS (default 60), all at once, starting from its committed corpus in tests/fuzz/corpus
# (so every past finding is replayed first). New inputs go to build/fuzz/corpus/<target>, the
# input of a finding to build/fuzz/findings/. Exits non-zero when any target finds anything.
# The Python binding's target, `python` (python/fuzz/fuzz_calls.py, atheris), runs after them,
# alone (beside them it slowed a C++ target's slow seed past its timeout), where the Python
# environment of scripts/python-env.sh has the package installed (scripts/test-python.sh
# installs it); its corpus is python/fuzz/corpus.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET ...]
#   (targets: evaluate neighbor_list output tape rollout solver python)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
targets=("$@")
python_env="${SPHAD_PYTHON_ENV:-$HOME/.cache/sphad/venv}"
if [ "${#targets[@]}" -eq 0 ]; then
  targets=(evaluate neighbor_list output tape rollout solver)
  if [ -x "$python_env/bin/python" ] &&
    "$python_env/bin/python" -P -c "import atheris, sphad" >/dev/null 2>&1; then
    targets+=(python)
  else
    echo "== fuzz python: skipped (no environment with atheris and sphad at $python_env)"
  fi
fi
cpp_targets=()
run_python=0
for target in "${targets[@]}"; do
  if [ "$target" = python ]; then run_python=1; else cpp_targets+=("$target"); fi
done
if [ "${#cpp_targets[@]}" -gt 0 ]; then
  bash scripts/install-deps.sh clang libclang-rt-14-dev
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz -j "$(nproc)"
fi

mkdir -p build/fuzz/findings
status=0
collect() { # collect TARGET PID...: waits for each target's run and reports it
  local -a names=("${@:1:$#/2}") ids=("${@:$#/2+1}")
  for i in "${!names[@]}"; do
    local target="${names[$i]}"
    if wait "${ids[$i]}"; then
      echo "== fuzz $target: no finding ($(grep -o 'stat::number_of_executed_units: [0-9]*' \
        "build/fuzz/$target.log" | grep -o '[0-9]*$') executions, $(grep -o 'cov: [0-9]*' \
        "build/fuzz/$target.log" | tail -1))"
    else
      echo "== fuzz $target: FINDING (the log's end; the input is in build/fuzz/findings/)"
      tail -n 60 "build/fuzz/$target.log"
      status=1
    fi
  done
}

# -timeout: an input running 30 s is a hang (the six C++ targets share two cores: the slowest
# seed, rollout's 10⁴ steps, takes 4 s alone and went past 10 s beside the others; the Python
# target's 60 s: it compiles its entries before fuzzing, but a first call may still load one);
# -rss_limit_mb: one using 2 GB (Python with torch: 4 GB) is a leak or an unbounded allocation.
# Both are findings.
pids=()
for target in "${cpp_targets[@]}"; do
  mkdir -p "build/fuzz/corpus/$target"
  build/fuzz/tests/fuzz/sphad_fuzz_"$target" "build/fuzz/corpus/$target" \
    "tests/fuzz/corpus/$target" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 \
    -max_len=4096 -print_final_stats=1 -artifact_prefix="build/fuzz/findings/$target-" \
    >"build/fuzz/$target.log" 2>&1 &
  pids+=($!)
done
if [ "${#cpp_targets[@]}" -gt 0 ]; then
  collect "${cpp_targets[@]}" "${pids[@]}"
fi
if [ "$run_python" -eq 1 ]; then
  mkdir -p build/fuzz/corpus/python
  "$python_env/bin/python" -P python/fuzz/fuzz_calls.py build/fuzz/corpus/python \
    python/fuzz/corpus -max_total_time="$seconds" -timeout=60 -rss_limit_mb=4096 \
    -max_len=4096 -print_final_stats=1 -artifact_prefix=build/fuzz/findings/python- \
    >build/fuzz/python.log 2>&1 &
  collect python $!
fi
exit "$status"
