#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
#
# Where the CUDA engine's time goes, in one run on a machine with an NVIDIA GPU and the CUDA
# toolkit: builds emst_benchmark (CUDA, Release), generates the synthetic sets it needs, then
#   summary.md    emst_benchmark's table over SETS (1 warm-up + --repeat runs: per-phase and
#                 per-round medians, bytes per point, rounds), one per variant, and when Nsight
#                 Compute (ncu) is installed, every kernel of one run of each --ncu SET (name,
#                 launches, total and mean duration): the compute time minus the kernels' total
#                 is the launch and synchronisation overhead. Printed last.
#   ncu-SET.csv   ncu's raw rows
# The benchmark's own files (tables, JSON with the phases, logs) go to BUILD/profile-runs.
#
# usage: Testing/Benchmarks/profile_gpu.sh OUTDIR [--repeat N] [--ncu SET]... [--no-ncu]
#                                         [--variant 'NAME VAR=VALUE...']... [SET...]
#   SET          as emst_benchmark takes it (default: uniform_1e7_3d cosmo_1e7_3d
#                tsp_monalisa100k lidar_lonestar519k)
#   --ncu SET    profile SET's kernels with ncu (default: tsp_monalisa100k and uniform_1e7_3d)
#   --no-ncu     no kernel profile
#   --variant    also run the benchmark with these environment settings (the engine's tuning
#                knobs, e.g. 'topdown EMST_SEARCH=topdown'): bench-NAME.md, phases-NAME.json,
#                one table per variant in the summary, for A/B comparisons on one machine
# Environment: EMST_BENCHMARK (a built emst_benchmark: no build step), EMST_BUILD_DIR (default build-gpu), EMST_SHARED_DIR (data/ and tools/; default
# .device-data in the tree when present, else ../shared), EMST_CUDA_ARCH (default 90),
# EMST_BENCH_DATA (generated sets; default BUILD/bench-data).
set -u
set -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
[ $# -ge 1 ] && [ "${1#-}" = "$1" ] || { sed -n '5,20p' "$0" >&2; exit 2; }
out=$1
shift
repeat=5
ncu_sets=()
sets=()
variants=()
no_ncu=0
while [ $# -gt 0 ]; do
  case "$1" in
    --repeat) repeat=$2; shift ;;
    --ncu) ncu_sets+=("$2"); shift ;;
    --no-ncu) no_ncu=1 ;;
    --variant) variants+=("$2"); shift ;;
    *) sets+=("$1") ;;
  esac
  shift
done
[ ${#sets[@]} -gt 0 ] || sets=(uniform_1e7_3d cosmo_1e7_3d tsp_monalisa100k lidar_lonestar519k)
[ ${#ncu_sets[@]} -gt 0 ] || ncu_sets=(tsp_monalisa100k uniform_1e7_3d)
[ $no_ncu = 0 ] || ncu_sets=()
mkdir -p "$out"
out=$(cd "$out" && pwd)

build=${EMST_BUILD_DIR:-$repo/build-gpu}
if [ -z "${EMST_SHARED_DIR:-}" ]; then
  if [ -d "$repo/.device-data/tools" ]; then
    EMST_SHARED_DIR=$repo/.device-data
  else
    EMST_SHARED_DIR=$repo/../shared
  fi
fi
export EMST_SHARED_DIR
data=${EMST_BENCH_DATA:-$build/bench-data}
export EMST_BENCH_DATA=$data
runs=$build/profile-runs
mkdir -p "$data" "$runs"

bench=${EMST_BENCHMARK:-}
if [ -z "$bench" ]; then
  echo "== build" | tee "$runs/build.log"
  generator=Ninja
  command -v ninja >/dev/null || generator="Unix Makefiles"
  cmake -S "$repo" -B "$build" -G "$generator" -DCMAKE_BUILD_TYPE=Release -DEMST_ENABLE_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES="${EMST_CUDA_ARCH:-90}" -DEMST_BUILD_PLUGIN=OFF -DBUILD_TESTING=OFF \
    >>"$runs/build.log" 2>&1 &&
    cmake --build "$build" -j"$(nproc)" --target emst_benchmark >>"$runs/build.log" 2>&1 ||
    { tail -30 "$runs/build.log"; exit 1; }
  bench=$build/Testing/Benchmarks/emst_benchmark
fi

# The synthetic sets named among SETS and --ncu (NAME = DIST_SIZE_DIMd), from gen_points.
gen=$data/gen_points
[ -x "$gen" ] || g++ -O2 -std=c++17 -o "$gen" "$EMST_SHARED_DIR/tools/gen_points.cpp"
for name in "${sets[@]}" "${ncu_sets[@]}"; do
  case "$name" in
    uniform_*_*d | cosmo_*_*d)
      [ -f "$data/$name.f32" ] && continue
      IFS=_ read -r dist size dim <<<"$name"
      n=$(awk -v s="$size" 'BEGIN { printf "%d", s + 0 }')
      "$gen" "$dist" "$n" "${dim%d}" "$data/$name.f32" >>"$runs/build.log"
      ;;
  esac
done

echo "== benchmark" | tee -a "$runs/build.log"
"$bench" --backend cuda --repeat "$repeat" --json "$runs/phases.json" "${sets[@]}" \
  >"$runs/bench.md" 2>"$runs/bench.err"
status=$?
for variant in "${variants[@]}"; do
  read -r label settings <<<"$variant"
  env $settings "$bench" --backend cuda --repeat "$repeat" --json "$runs/phases-$label.json" \
    "${sets[@]}" >"$runs/bench-$label.md" 2>>"$runs/bench.err" || status=1
done

if command -v ncu >/dev/null; then
  for name in "${ncu_sets[@]}"; do
    # One warm-up and one timed run: the kernels of both are listed (launches count twice).
    ncu --clock-control none --metrics gpu__time_duration.sum --csv --print-units base \
      "$bench" --backend cuda --repeat 1 "$name" >"$out/ncu-$name.csv" 2>"$runs/ncu-$name.err"
  done
fi

{
  echo "# profile_gpu.sh $(date -u +%Y-%m-%dT%H:%MZ) $(git -C "$repo" describe --always --dirty 2>/dev/null)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
  cat "$runs/bench.md"
  for variant in "${variants[@]}"; do
    read -r label settings <<<"$variant"
    echo
    echo "## variant $label: $settings"
    tail -n +3 "$runs/bench-$label.md"
  done
  for name in "${ncu_sets[@]}"; do
    f=$out/ncu-$name.csv
    [ -f "$f" ] || continue
    echo
    echo "## ncu $name (the kernels of 2 runs: warm-up + 1)"
    python3 "$here/ncu_summary.py" "$f" || tail -20 "$runs/ncu-$name.err"
  done
} >"$out/summary.md"
cat "$out/summary.md"
exit $status
