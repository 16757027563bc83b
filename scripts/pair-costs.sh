#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The host pair loops' costs under three flag sets, side by side (docs/performance.md):
# builds sphad_bench_pairs with the default flags, -march=x86-64-v3 and -march=native, times
# each at N = 10⁵ on one thread in alternating rounds (medians), and counts instructions per
# pair with callgrind at N = 10⁴ (default and x86-64-v3: valgrind runs no AVX-512, so not the
# native build on machines that have it). Prints one table per measure.
#   scripts/pair-costs.sh [build-dir] [rounds]     (default build/pairs, 5 rounds)
# PAIR_COSTS_FILTER=regex narrows the benchmarks; PAIR_COSTS_CALLGRIND=0 skips the counts.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/pairs}
rounds=${2:-5}
filter=${PAIR_COSTS_FILTER:-BM_}
cmake --preset host -B "$build" -DSPHAD_BENCH_ARCH_VARIANTS=ON > /dev/null
ninja -C "$build" sphad_bench_pairs sphad_bench_pairs_v3 sphad_bench_pairs_native > /dev/null
variants=(sphad_bench_pairs sphad_bench_pairs_v3 sphad_bench_pairs_native)
out=$(mktemp -d)
export OMP_NUM_THREADS=1
for round in $(seq "$rounds"); do
  for v in "${variants[@]}"; do
    "$build/bench/$v" --benchmark_filter="$filter.*/(100000|1000000)(/|$)" \
      --benchmark_format=json > "$out/$v.$round.json" 2> /dev/null
  done
done
[ "${PAIR_COSTS_CALLGRIND:-1}" = 0 ] || for v in sphad_bench_pairs sphad_bench_pairs_v3; do
  (cd "$out" && valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out/$v.cg.%p" \
    "$OLDPWD/$build/bench/$v" --benchmark_filter="$filter.*/10000(/|$)" \
    --benchmark_min_time=0.000001 > /dev/null 2>&1)
done
python3 - "$out" "${variants[@]}" <<'EOF'
import glob, json, re, statistics, sys
out, variants = sys.argv[1], sys.argv[2:]
times = {}  # (benchmark, variant) -> [ms]
for v in variants:
    for f in glob.glob(f"{out}/{v}.*.json"):
        for b in json.load(open(f))["benchmarks"]:
            times.setdefault((b["name"], v), []).append(b["real_time"])
names = sorted({n for n, _ in times}, key=lambda n: (n.split("/")[0], int(n.split("/")[1])))
print("time per call, ms (median of rounds; one thread)")
print("| benchmark | " + " | ".join(variants) + " |")
print("|---|" + "---|" * len(variants))
med = {k: statistics.median(t) for k, t in times.items()}
for n in names:
    print(f"| {n} | " + " | ".join(f"{med.get((n, v), float('nan')):.1f}" for v in variants) + " |")
print()
print("ratios to the plain call / to one Density over the list")
print("| ratio | " + " | ".join(variants) + " |")
print("|---|" + "---|" * len(variants))
for n in names:
    m = re.match(r"BM_pair_cost<(\w+), (\w+)>/(\d+)", n)
    if m and m.group(2) != "plain_call":
        base = f"BM_pair_cost<{m.group(1)}, plain_call>/{m.group(3)}"
    elif n.startswith("BM_build_against_density") and n[-2:] in ("/0", "/2"):
        base = n[:-2] + "/1"
    else:
        continue
    print(f"| {n} | " + " | ".join(
        f"{med[(n, v)] / med[(base, v)]:.2f}" if (n, v) in med and (base, v) in med else "-"
        for v in variants) + " |")
print()
print("instructions per pair (callgrind, one warm call at N = 10^4)")
counts = {}
for f in glob.glob(f"{out}/*.cg.*"):
    v = f.split("/")[-1].split(".cg.")[0]
    text = open(f).read()
    d = re.search(r"^desc: Trigger: Client Request: pair_cost (\S+) pairs=(\d+)", text, re.M)
    s = re.search(r"^totals: (\d+)", text, re.M)
    if d and s:
        counts.setdefault((d.group(1), v), int(s.group(1)) / int(d.group(2)))
cg = [v for v in variants if any(k[1] == v for k in counts)]
print("| call | " + " | ".join(cg) + " |")
print("|---|" + "---|" * len(cg))
for n in sorted({k[0] for k in counts}):
    print(f"| {n} | " + " | ".join(f"{counts[(n, v)]:.1f}" if (n, v) in counts else "-" for v in cg) + " |")
EOF
rm -rf "$out"
