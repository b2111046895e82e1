#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
#
# Benchmarks the engine on the standard synthetic sets (../shared/tools/gen_points.cpp: uniform
# and cosmo, 1e5 1e6 1e7 3e7 points, 2D and 3D, seed 12345) and on every ../shared/data set.
#
# usage: Testing/Benchmarks/run_benchmarks.sh OUTDIR [--quick] [--backend auto|cuda|cpu]
#                                             [--repeat N] [--threads N]
#   --quick   only the 1e5 and 1e6 synthetic sets, plus the data sets
# Writes OUTDIR/results.md (Markdown table + notes), OUTDIR/results.csv, OUTDIR/benchmark.log.
# Exit status: 0 when every set ran and matched its reference weight, 1 otherwise, 2 usage.
#
# Environment:
#   EMST_SHARED_DIR      folder with data/ and tools/ (default: ../shared beside the repository,
#                        else .device-data inside it)
#   EMST_BUILD_DIR       build folder holding Kernels/emst_benchmark (default: build)
#   EMST_BENCHMARK       the emst_benchmark program itself (overrides EMST_BUILD_DIR)
#   EMST_BENCH_DATA      where generated sets are cached (default: EMST_BUILD_DIR/bench-data);
#                        an existing file of the right size is reused
#   EMST_BENCH_TIMEOUT   seconds allowed per set (default 900)
#   EMST_BENCH_DEADLINE  Unix time after which the remaining sets are skipped (set by gpu_check.sh)
set -u
set -o pipefail

usage() {
  sed -n '8,13p' "$0" >&2
  exit 2
}

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

[ $# -ge 1 ] || usage
out=$1
shift
case "$out" in -*) usage ;; esac
quick=0
backend=auto
repeat=5
threads=0
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --backend) [ $# -ge 2 ] || usage; backend=$2; shift ;;
    --backend=*) backend=${1#*=} ;;
    --repeat) [ $# -ge 2 ] || usage; repeat=$2; shift ;;
    --repeat=*) repeat=${1#*=} ;;
    --threads) [ $# -ge 2 ] || usage; threads=$2; shift ;;
    --threads=*) threads=${1#*=} ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "run_benchmarks.sh: unknown argument '$1'" >&2; usage ;;
  esac
  shift
done

shared=${EMST_SHARED_DIR:-}
if [ -z "$shared" ]; then
  if [ -d "$repo/../shared/tools" ]; then
    shared=$(cd "$repo/../shared" && pwd)
  elif [ -d "$repo/.device-data/tools" ]; then
    shared="$repo/.device-data"
  else
    shared="$repo/../shared"
  fi
fi
build=${EMST_BUILD_DIR:-$repo/build}
bench=${EMST_BENCHMARK:-$build/Kernels/emst_benchmark}
data=${EMST_BENCH_DATA:-$build/bench-data}
per_set_timeout=${EMST_BENCH_TIMEOUT:-900}
deadline=${EMST_BENCH_DEADLINE:-0}

mkdir -p "$out" "$data" || exit 1
out=$(cd "$out" && pwd)
log="$out/benchmark.log"
table="$out/results.md"
csv="$out/results.csv"
rows="$data/.rows.$$"
: >"$log"
: >"$rows"
notes=()
failures=0

say() { echo "[$(date +%H:%M:%S)] $*" | tee -a "$log"; }
note() { notes+=("$*"); say "NOTE: $*"; }

say "run_benchmarks.sh: out=$out quick=$quick backend=$backend repeat=$repeat threads=$threads"
say "shared=$shared build=$build benchmark=$bench data=$data"

if [ ! -x "$bench" ]; then
  say "ERROR: $bench not found or not executable (build the emst_benchmark target, or set EMST_BUILD_DIR / EMST_BENCHMARK)"
  {
    echo "# EMST benchmark results"
    echo
    echo "ERROR: $bench not found: nothing was run."
  } >"$table"
  exit 1
fi

reference="$shared/tools/gen_points_reference.txt"
generator_src="$shared/tools/gen_points.cpp"
generator="$data/gen_points"
have_generator=0
if [ -f "$generator_src" ]; then
  if [ ! -x "$generator" ] || [ "$generator_src" -nt "$generator" ]; then
    say "building gen_points (static, for bit-exact output)"
    if ! g++ -O2 -std=c++17 -static -o "$generator" "$generator_src" >>"$log" 2>&1; then
      note "static link of gen_points failed; built dynamically (output should still match: check the hashes)"
      g++ -O2 -std=c++17 -o "$generator" "$generator_src" >>"$log" 2>&1 || true
    fi
  fi
  [ -x "$generator" ] && have_generator=1
fi
[ $have_generator = 1 ] || note "no gen_points ($generator_src): synthetic sets that are not cached are skipped"
[ -f "$reference" ] || note "no $reference: synthetic sets have no reference weight or hash"

count_of() { # 1e5 -> 100000, 3e7 -> 30000000
  awk -v s="$1" 'BEGIN { printf "%d", s + 0 }'
}

file_size() {
  stat -c %s "$1" 2>/dev/null || wc -c <"$1"
}

time_left() { # seconds before the deadline (large when none)
  if [ "$deadline" -gt 0 ]; then
    echo $((deadline - $(date +%s)))
  else
    echo 999999
  fi
}

sizes="1e5 1e6 1e7 3e7"
[ $quick = 1 ] && sizes="1e5 1e6"

# ---- generate (or reuse) the synthetic sets -----------------------------------------------------
synthetic=()
for size in $sizes; do
  for dist in uniform cosmo; do
    for dim in 2 3; do
      name="${dist}_${size}_${dim}d"
      file="$data/$name.f32"
      n=$(count_of "$size")
      expected_bytes=$((12 + n * dim * 4))
      if [ -f "$file" ] && [ "$(file_size "$file")" = "$expected_bytes" ]; then
        say "$name: reusing $file"
        synthetic+=("$file")
        continue
      fi
      if [ $have_generator = 0 ]; then
        note "$name: skipped (no generator)"
        continue
      fi
      if [ "$(time_left)" -lt 60 ]; then
        note "$name: not generated (time budget)"
        continue
      fi
      say "$name: generating"
      line=$("$generator" "$dist" "$n" "$dim" "$file" 2>>"$log")
      status=$?
      echo "$line" >>"$log"
      if [ $status -ne 0 ] || [ ! -f "$file" ]; then
        note "$name: gen_points failed (status $status)"
        failures=$((failures + 1))
        rm -f "$file"
        continue
      fi
      got=$(echo "$line" | sed -n 's/.*fnv1a64=\([0-9a-f]*\).*/\1/p')
      want=$(awk -v k="$name" '$1 == k { print $5 }' "$reference" 2>/dev/null)
      if [ -n "$want" ] && [ "$want" != "-" ] && [ "$got" != "$want" ]; then
        note "WARNING $name: fnv1a64 $got differs from the reference $want (different file: its reference weight may not apply)"
      elif [ -n "$want" ] && [ "$want" != "-" ]; then
        say "$name: fnv1a64 $got matches the reference"
      fi
      synthetic+=("$file")
    done
  done
done

# ---- run: data sets (small) first, then the synthetic sets by size ----------------------------
sets=()
if [ -d "$shared/data" ]; then
  for f in "$shared"/data/*.f32; do
    [ -f "$f" ] && sets+=("$f")
  done
else
  note "no $shared/data: the real data sets are skipped"
fi
sets+=("${synthetic[@]}")

"$bench" --header-only >"$table.head" 2>>"$log"
: >"$csv.tmp"
first_csv=1
for file in "${sets[@]}"; do
  name=$(basename "$file" .f32)
  left=$(time_left)
  if [ "$left" -lt 30 ]; then
    note "$name: skipped (time budget)"
    echo "| $name | | | | | | | | | | | | | | | skipped: time budget | |" >>"$rows"
    continue
  fi
  limit=$per_set_timeout
  [ "$left" -lt "$limit" ] && limit=$((left - 10))
  say "$name: running (limit ${limit}s)"
  part="$data/.part.$$.csv"
  rm -f "$part"
  cmd=("$bench" --backend "$backend" --repeat "$repeat" --threads "$threads" --reference "$reference"
    --no-header --csv "$part" "$file")
  if command -v timeout >/dev/null 2>&1; then
    timeout -k 10 "$limit" "${cmd[@]}" >"$rows.one" 2>>"$log"
  else
    "${cmd[@]}" >"$rows.one" 2>>"$log"
  fi
  status=$?
  cat "$rows.one" | tee -a "$log" >>"$rows"
  if [ $status -ne 0 ]; then
    failures=$((failures + 1))
    case $status in
      124|137) note "$name: timed out after ${limit}s" ;;
      1) note "$name: failed or reference mismatch (see the row)" ;;
      *) note "$name: emst_benchmark exited with status $status" ;;
    esac
    if [ ! -s "$rows.one" ]; then
      echo "| $name | | | | | | | | | | | | | | | FAILED: exit status $status (see benchmark.log) | |" >>"$rows"
    fi
  fi
  if [ -f "$part" ]; then
    if [ $first_csv = 1 ]; then
      cat "$part" >>"$csv.tmp"
      first_csv=0
    else
      tail -n +2 "$part" >>"$csv.tmp"
    fi
    rm -f "$part"
  fi
done
rm -f "$rows.one"
mv "$csv.tmp" "$csv"

commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$repo" status --porcelain --untracked-files=no 2>/dev/null | head -1)
[ -n "$dirty" ] && commit="$commit (+local changes)"
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
{
  echo "# EMST benchmark results"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "- host: $(uname -n), $(nproc 2>/dev/null || echo '?') CPU cores"
  echo "- GPU: ${gpu:-none found}"
  echo "- commit: $commit"
  echo "- backend asked: $backend, 1 warm-up + $repeat timed runs per set, medians$([ $quick = 1 ] && echo ', --quick')"
  echo
  cat "$table.head"
  cat "$rows"
  echo
  if [ ${#notes[@]} -gt 0 ]; then
    echo "Notes:"
    for n in "${notes[@]}"; do
      echo "- $n"
    done
  fi
} >"$table"
rm -f "$table.head" "$rows"

say "wrote $table and $csv ($failures failing set(s))"
cat "$table"
[ $failures -eq 0 ]
