#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
#
# The whole GPU check in one run, on any Linux machine with an NVIDIA GPU, its driver and the CUDA
# toolkit (nvcc, cmake; ninja and compute-sanitizer when installed). No ParaView, no network.
# Steps, and the file in OUTDIR that each one writes:
#   env        nvidia-smi, nvcc and tool versions                           -> build.log
#   build      configure + build (Release, sm_90, CUDA on, no plugin)       -> build.log
#   tests      the whole engine test binary, CPU and CUDA parameters        -> tests.log
#   lean       the CUDA tests again in the memory-lean layout, which a run takes when only
#              that fits the GPU's memory (EMST_CUDA_LAYOUT=lean), with round one's searches
#              bottom-up at any size (EMST_SEARCH=first: the path of sets of 2^17 points or
#              more, which the small test clouds do not take by default) and the searchers
#              listed from round two (EMST_LIST_FROM=2: 3D sets of 7*2^16 points or more, 2D
#              of 2^22)                                                      -> lean.log
#   soak       the random-cloud sweep (Engine.SoakRandomClouds, bit for bit against the contract
#              reference) on the CUDA backend over EMST_SOAK_CLOUDS clouds (default 1500) three
#              times, each from seeds of its own: with the defaults; with the paths of the large
#              runs that small clouds do not take by default (the searchers listed from round
#              two, leaf by leaf from round four, the components' minima a thread a leaf from
#              round three, round one's searches bottom-up, the labels frozen from round three,
#              no replayed rounds, the library's sorts and the output's keyed sort); and with
#              those in the lean layout                                      -> soak.log
#   memcheck   compute-sanitizer memcheck on the small CUDA tests, each buffer an allocation of
#              its own (EMST_CUDA_ARENA=0: pieces of a run's one block would hide an overrun
#              into the next piece from the tool)                          -> memcheck.log
#   racecheck  compute-sanitizer racecheck on the small CUDA tests          -> racecheck.log
#   cut        run_benchmarks.sh --cut-only (CUDA): emst_benchmark --cut, TreeCutter re-cuts of
#              the tree of uniform_1e7_3d, cosmo_1e7_3d and every data set    -> cut.md (+ its log)
#   bench      Testing/Benchmarks/run_benchmarks.sh (CUDA backend)          -> bench.md, bench.log
#              (without the cut when the cut step runs too)
# then a summary (status and duration of each step), printed last and saved to summary.txt.
# A failing step does not stop the later ones; the exit status is 1 when any step failed.
# Scratch files (generated benchmark sets, run folders) stay outside OUTDIR.
#
# usage: Testing/gpu_check.sh OUTDIR [--quick] [--steps env,build,tests,lean,soak,memcheck,racecheck,cut,bench]
#                                    [--gtest-source DIR] [--shared-dir DIR]
#   --quick          benchmarks on the 1e5/1e6 synthetic sets and the data sets only (the cut on 1e6)
#   --steps          run only these steps (build is still needed once per fresh build folder)
#   --gtest-source   GoogleTest sources to build when the machine has no GoogleTest installed
#                    (same as EMST_GTEST_SOURCE_DIR)
#   --shared-dir     the folder holding data/ (the data sets and their references) and tools/
#                    (gen_points) (same as EMST_SHARED_DIR)
#
# Typical use, on the GPU machine, from a copy of the repository:
#   bash Testing/gpu_check.sh gpu-check-results
# When that machine has neither GoogleTest nor the shared data, Testing/prepare_device_tree.sh
# copies both into ignored folders of the working tree (.gtest-src, .device-data) beforehand;
# this script finds them there without options. With --binaries, prepare_device_tree.sh also
# packs binaries built elsewhere (.device-build), for EMST_BUILD_DIR=.device-build: no build step
# on the GPU machine.
#
# Environment:
#   EMST_BUILD_DIR        use this (already built) build folder and skip the build step when it
#                         holds the test binary; otherwise the build goes to build-gpu
#   EMST_GTEST_SOURCE_DIR GoogleTest sources (default .gtest-src in the tree when present; else
#                         CMake looks for an installed GoogleTest)
#   EMST_SHARED_DIR       data/ + tools/ folder (default .device-data in the tree when present,
#                         else ../shared beside the repository)
#   EMST_CHECK_BUDGET     seconds for the whole run (default 560, a check that fits in ten
#                         minutes); steps are cut short so that the summary is always written
#   EMST_SANITIZER_FILTER gtest filter for the sanitizer steps (default '*.Small*/Cuda')
#   EMST_SOAK_CLOUDS      random clouds each of the soak's three sweeps (default 1500, about
#                         10 s a sweep on an H200)
#   EMST_BENCH_DATA       cache of generated benchmark sets (default BUILD/bench-data)
set -u
set -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)

usage() { sed -n '5,/^set -u$/p' "$0" | sed '$d' >&2; exit 2; }
if [ $# -lt 1 ] || [ "${1#-}" != "$1" ]; then
  usage
fi
out=$1
shift
quick=0
steps="env,build,tests,lean,soak,memcheck,racecheck,cut,bench"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --steps) [ $# -ge 2 ] || { echo "gpu_check.sh: --steps needs a list" >&2; exit 2; }; steps=$2; shift ;;
    --steps=*) steps=${1#*=} ;;
    --gtest-source) [ $# -ge 2 ] || usage; EMST_GTEST_SOURCE_DIR=$2; shift ;;
    --gtest-source=*) EMST_GTEST_SOURCE_DIR=${1#*=} ;;
    --shared-dir) [ $# -ge 2 ] || usage; EMST_SHARED_DIR=$2; shift ;;
    --shared-dir=*) EMST_SHARED_DIR=${1#*=} ;;
    *) echo "gpu_check.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)

start=$(date +%s)
budget=${EMST_CHECK_BUDGET:-560}
deadline=$((start + budget))
filter=${EMST_SANITIZER_FILTER:-'*.Small*/Cuda'}

# Tools that may be installed off the PATH.
for dir in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do
  [ -d "$dir" ] && case ":$PATH:" in *":$dir:"*) ;; *) PATH="$PATH:$dir" ;; esac
done
export PATH
sanitizer=$(command -v compute-sanitizer 2>/dev/null || true)
if [ -z "$sanitizer" ]; then
  for c in /usr/local/cuda*/compute-sanitizer/compute-sanitizer /opt/nvidia/*/compute-sanitizer /usr/local/cuda*/bin/compute-sanitizer; do
    [ -x "$c" ] && { sanitizer=$c; break; }
  done
fi

# Optional inputs: given, else the copies prepare_device_tree.sh leaves in the tree, else the
# usual places.
gtest_source=${EMST_GTEST_SOURCE_DIR:-}
if [ -z "$gtest_source" ] && [ -f "$repo/.gtest-src/CMakeLists.txt" ]; then
  gtest_source="$repo/.gtest-src"
fi
[ -z "$gtest_source" ] || gtest_source=$(cd "$gtest_source" && pwd) || exit 2
shared=${EMST_SHARED_DIR:-}
if [ -z "$shared" ]; then
  if [ -d "$repo/.device-data/data" ]; then
    shared="$repo/.device-data"
  elif [ -d "$repo/../shared/data" ]; then
    shared=$(cd "$repo/../shared" && pwd)
  else
    shared="$repo/.device-data"
  fi
fi
[ -d "$shared" ] && shared=$(cd "$shared" && pwd) # CMake reads a relative one from the source tree
export EMST_SHARED_DIR="$shared"

prebuilt=0
if [ -n "${EMST_BUILD_DIR:-}" ] && [ -x "$EMST_BUILD_DIR/Testing/Engine/emst_engine_tests" ]; then
  build=$(cd "$EMST_BUILD_DIR" && pwd)
  prebuilt=1
else
  build=${EMST_BUILD_DIR:-$repo/build-gpu}
fi
tests_bin="$build/Testing/Engine/emst_engine_tests"
jobs=$(nproc 2>/dev/null || echo 4)

summary="$out/summary.txt"
declare -a rows=()
failed=0

log_line() { echo "[gpu_check $(date +%H:%M:%S) +$(( $(date +%s) - start ))s] $*"; }

write_summary() {
  {
    echo "EMST GPU check, $(date -u '+%Y-%m-%d %H:%M UTC'), host $(uname -n), commit $(git -C "$repo" describe --always --dirty --abbrev=7 2>/dev/null || echo '?')"
    echo "build: $build$([ $prebuilt = 1 ] && echo ' (prebuilt)'), shared: $shared, budget ${budget}s"
    [ -f "$build/BUILD_INFO" ] && echo "binaries: $(head -1 "$build/BUILD_INFO")"
    printf '%-10s %-14s %8s  %-13s %s\n' step status seconds log note
    for r in "${rows[@]}"; do
      echo "$r"
    done
    printf '%-10s %-14s %8s\n' overall "$([ $failed = 0 ] && echo PASS || echo FAIL)" $(( $(date +%s) - start ))
  } >"$summary"
}

record() { # step status seconds log note
  rows+=("$(printf '%-10s %-14s %8s  %-13s %s' "$1" "$2" "$3" "$4" "$5")")
  case "$2" in PASS*|SKIP*) ;; *) failed=1 ;; esac
  write_summary
}

wanted() { case ",$steps," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

# run_step NAME MAX_SECONDS LOGFILE APPEND(0/1) COMMAND...: runs with a time limit cut to the
# budget; sets step_status and step_seconds.
run_step() {
  local name=$1 max=$2 logfile=$3 append=$4
  shift 4
  local left=$(( deadline - $(date +%s) - 15 ))
  local limit=$max
  [ "$left" -lt "$limit" ] && limit=$left
  if [ "$limit" -lt 20 ]; then
    step_status="SKIP(no time)"
    step_seconds=0
    echo "== $name: skipped, ${left}s left of the budget" >>"$logfile"
    return
  fi
  log_line "$name: start (limit ${limit}s) -> $(basename "$logfile")"
  local t0=$(date +%s)
  [ "$append" = 1 ] || : >"$logfile"
  echo "== $name: $* (limit ${limit}s)" >>"$logfile"
  if command -v timeout >/dev/null 2>&1; then
    timeout -k 10 "$limit" "$@" >>"$logfile" 2>&1
  else
    "$@" >>"$logfile" 2>&1
  fi
  local rc=$?
  step_seconds=$(( $(date +%s) - t0 ))
  case $rc in
    0) step_status=PASS ;;
    124|137) step_status="TIMEOUT(${limit}s)" ;;
    *) step_status="FAIL(rc=$rc)" ;;
  esac
  echo "== $name: $step_status after ${step_seconds}s" >>"$logfile"
  log_line "$name: $step_status after ${step_seconds}s"
}

gtest_counts() { # summary of a gtest log
  local f=$1
  local passed failed skipped
  passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$f" | tail -1)
  failed=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$f" | tail -1)
  skipped=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$f" | tail -1)
  echo "passed ${passed:-?}, failed ${failed:-0}, skipped ${skipped:-0}"
}

buildlog="$out/build.log"
: >"$buildlog"

# ---- env ----------------------------------------------------------------------------------------
if wanted env; then
  t0=$(date +%s)
  {
    echo "== env"
    date -u
    uname -a
    echo "-- nvidia-smi"; nvidia-smi 2>&1 || echo "nvidia-smi failed"
    echo "-- nvcc"; nvcc --version 2>&1 || echo "nvcc not found"
    echo "-- cmake"; cmake --version 2>&1 | head -1 || echo "cmake not found"
    echo "-- ninja"; ninja --version 2>&1 || echo "ninja not found"
    echo "-- c++"; c++ --version 2>&1 | head -1 || echo "c++ not found"
    echo "-- compute-sanitizer: ${sanitizer:-not found}"; [ -n "$sanitizer" ] && "$sanitizer" --version 2>&1 | tail -2
    echo "-- cores: $jobs"; free -g 2>&1 | head -2; df -h "$repo" 2>&1 | tail -1
    echo "-- shared: $shared"; ls -la "$shared/data" 2>&1 | head -40
    echo "-- googletest sources: ${gtest_source:-none given (an installed GoogleTest is needed)}"
  } >>"$buildlog" 2>&1
  echo "---- GPU and compiler ----"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 || echo "nvidia-smi failed"
  nvcc --version 2>&1 | tail -2 || echo "nvcc not found"
  echo "compute-sanitizer: ${sanitizer:-not found}"
  gpu_ok=PASS
  nvidia-smi -L >/dev/null 2>&1 || gpu_ok="FAIL(no GPU)"
  record env "$gpu_ok" $(( $(date +%s) - t0 )) build.log "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
fi

# ---- build --------------------------------------------------------------------------------------
if wanted build; then
  if [ $prebuilt = 1 ]; then
    record build "SKIP(prebuilt)" 0 build.log "$build"
  else
    generator=()
    command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
    if [ -f "$build/CMakeCache.txt" ]; then
      generator=() # keep the generator the folder was configured with
    fi
    gtest_src=()
    [ -n "$gtest_source" ] && gtest_src=(-DEMST_GTEST_SOURCE_DIR="$gtest_source")
    nvcc_path=$(command -v nvcc 2>/dev/null || true)
    cuda_compiler=()
    [ -n "$nvcc_path" ] && cuda_compiler=(-DCMAKE_CUDA_COMPILER="$nvcc_path")
    run_step configure 240 "$buildlog" 1 cmake -S "$repo" -B "$build" "${generator[@]}" \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DEMST_ENABLE_CUDA=ON \
      -DEMST_BUILD_PLUGIN=OFF -DBUILD_TESTING=ON -DEMST_SHARED_DIR="$shared" \
      "${gtest_src[@]}" "${cuda_compiler[@]}"
    configure_status=$step_status
    configure_seconds=$step_seconds
    if [ "$configure_status" = PASS ]; then
      run_step build 420 "$buildlog" 1 cmake --build "$build" -j "$jobs" --target emst_engine_tests emst_cli emst_benchmark emst_distributed
      record build "$step_status" $((configure_seconds + step_seconds)) build.log "configure ${configure_seconds}s, -j$jobs"
    else
      record build "$configure_status" "$configure_seconds" build.log "configure failed"
    fi
  fi
fi

# ---- tests, and the lean layout -----------------------------------------------------------------
# test_step NAME LIMIT [GTEST ARGS...]: the engine test binary, CUDA required -> NAME.log
test_step() {
  local name=$1 limit=$2
  shift 2
  if [ -x "$tests_bin" ]; then
    EMST_REQUIRE_CUDA=1 run_step $name $limit "$out/$name.log" 0 "$tests_bin" --gtest_color=no "$@"
    record $name "$step_status" "$step_seconds" $name.log "$(gtest_counts "$out/$name.log")"
  else
    echo "no test binary at $tests_bin" >"$out/$name.log"
    record $name "FAIL(no binary)" 0 $name.log "$tests_bin missing"
  fi
}
wanted tests && test_step tests 300
wanted lean && EMST_CUDA_LAYOUT=lean EMST_SEARCH=first EMST_LIST_FROM=2 test_step lean 240 '--gtest_filter=*Cuda*'

# ---- soak: many random clouds on the CUDA backend, under the defaults and the large runs' paths --
if wanted soak; then
  soak_clouds=${EMST_SOAK_CLOUDS:-1500}
  soak_filter='--gtest_filter=Backends/Engine.SoakRandomClouds/Cuda'
  soak_large=(EMST_REPLAY_ROUNDS=0 EMST_LIST_FROM=2 EMST_LEAF_LIST_FROM=4 EMST_LEAF_MINIMA_FROM=3
    EMST_SEARCH=first EMST_FREEZE_LABELS=3 EMST_CUDA_SMALL_SORT=0 EMST_CUDA_SMALL_MERGE=0
    EMST_OUTPUT_MERGE_BELOW=0)
  soak_log="$out/soak.log"
  : >"$soak_log"
  soak_status=PASS
  soak_seconds=0
  soak_note=""
  for variant in defaults large lean; do
    settings=(EMST_SOAK_CLOUDS=$soak_clouds)
    case $variant in
      defaults) settings+=(EMST_SOAK_SEED=3000000) ;;
      large) settings+=(EMST_SOAK_SEED=4000000 "${soak_large[@]}") ;;
      lean) settings+=(EMST_SOAK_SEED=5000000 EMST_CUDA_LAYOUT=lean "${soak_large[@]}") ;;
    esac
    echo "== soak, $variant: ${settings[*]}" >>"$soak_log"
    if [ -x "$tests_bin" ]; then
      run_step soak 200 "$out/soak-$variant.log" 0 env "${settings[@]}" EMST_REQUIRE_CUDA=1 \
        "$tests_bin" --gtest_color=no "$soak_filter"
      # A filter that matches nothing passes too: the one test must have run.
      if [ "$step_status" = PASS ] && ! grep -q '^\[  PASSED  \] 1 test' "$out/soak-$variant.log"; then
        step_status="FAIL(not run)"
      fi
      cat "$out/soak-$variant.log" >>"$soak_log"
      rm -f "$out/soak-$variant.log"
    else
      step_status="FAIL(no binary)"
      step_seconds=0
    fi
    [ "$step_status" = PASS ] || soak_status=$step_status
    soak_seconds=$((soak_seconds + step_seconds))
    soak_note="$soak_note${soak_note:+; }$variant $step_status"
  done
  record soak "$soak_status" "$soak_seconds" soak.log "$soak_clouds clouds each: $soak_note"
fi

# ---- compute-sanitizer --------------------------------------------------------------------------
for tool in memcheck racecheck; do
  wanted $tool || continue
  logfile="$out/$tool.log"
  if [ -z "$sanitizer" ]; then
    echo "compute-sanitizer not found" >"$logfile"
    record $tool "FAIL(no tool)" 0 "$tool.log" "compute-sanitizer not found"
    continue
  fi
  if [ ! -x "$tests_bin" ]; then
    echo "no test binary at $tests_bin" >"$logfile"
    record $tool "FAIL(no binary)" 0 "$tool.log" ""
    continue
  fi
  extra=()
  [ $tool = memcheck ] && extra=(--leak-check no)
  limit=180
  [ $tool = racecheck ] && limit=300 # about 180 s for the 33 small tests of ba07fd3
  EMST_CUDA_ARENA=0 EMST_REQUIRE_CUDA=1 run_step $tool $limit "$logfile" 0 "$sanitizer" --tool $tool --error-exitcode 99 \
    --print-limit 50 "${extra[@]}" "$tests_bin" --gtest_color=no "--gtest_filter=$filter"
  note="$(gtest_counts "$logfile"); $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logfile" | tail -1)"
  record $tool "$step_status" "$step_seconds" "$tool.log" "$note"
done

bench_bin="$build/Testing/Benchmarks/emst_benchmark"

new_scratch() { # NAME: a new empty folder for one step's run_benchmarks.sh output
  local folder
  folder=$(mktemp -d 2>/dev/null || echo "/tmp/emst-$1-$$")
  mkdir -p "$folder"
  echo "$folder"
}

# benchmark_step NAME MAX_SECONDS LOGFILE FOLDER [OPTIONS...]: run_step of run_benchmarks.sh
# FOLDER on the CUDA backend, with --quick when this check has it.
benchmark_step() {
  local name=$1 max=$2 logfile=$3 folder=$4
  shift 4
  local quick_flag=()
  [ $quick = 1 ] && quick_flag=(--quick)
  EMST_BUILD_DIR="$build" EMST_BENCH_DATA="${EMST_BENCH_DATA:-$build/bench-data}" \
    EMST_BENCH_DEADLINE=$((deadline - 20)) \
    run_step "$name" "$max" "$logfile" 0 bash "$repo/Testing/Benchmarks/run_benchmarks.sh" \
    "$folder" "${quick_flag[@]}" "$@" --backend cuda
}

# ---- the single-linkage cut (before the long benchmark, so that the budget keeps it) -------------
if wanted cut; then
  cutmd="$out/cut.md"
  if [ -x "$bench_bin" ]; then
    scratch=$(new_scratch cut)
    cutlog="$scratch/cut-step.log"
    benchmark_step cut 240 "$cutlog" "$scratch" --cut-only
    {
      if [ -f "$scratch/results.md" ]; then
        cat "$scratch/results.md"
      else
        echo "no results (see the log below)"
      fi
      echo
      echo "## Log"
      echo
      echo '```'
      cat "$cutlog"
      [ -f "$scratch/benchmark.log" ] && cat "$scratch/benchmark.log"
      echo '```'
    } >"$cutmd"
    cut_table=$(sed '/^## Log/,$d' "$cutmd") # the rows, not their copies in the log
    cut_rows_done=$(echo "$cut_table" | grep -cE '^\| [a-z].* \| (t50|t99|k=10) \|')
    cut_failing=$(echo "$cut_table" | grep -E '^\| [a-z]' | grep -cE '\| (MISMATCH|ERROR|FAILED|skipped)[^|]*\|$')
    # The largest median cut time over the 1e7-point rows (the aim: at most 10 ms).
    cut_1e7=$(echo "$cut_table" | awk -F'|' '$3 + 0 >= 10000000 && $14 + 0 > max { max = $14 + 0 } END { if (max != "") printf "%.3f", max }')
    record cut "$step_status" "$step_seconds" cut.md "${cut_rows_done:-0} cuts, ${cut_failing:-0} failing or skipped${cut_1e7:+, 1e7 cut <= ${cut_1e7} ms (aim 10)}$([ $quick = 1 ] && echo ', quick')"
    rm -rf "$scratch"
  else
    echo "no benchmark binary at $bench_bin" >"$cutmd"
    record cut "FAIL(no binary)" 0 cut.md ""
  fi
fi

# ---- benchmarks ---------------------------------------------------------------------------------
if wanted bench; then
  if [ -x "$bench_bin" ]; then
    scratch=$(new_scratch bench)
    no_cut=()
    wanted cut && no_cut=(--no-cut) # the cut step has timed it already
    benchmark_step bench 600 "$out/bench.log" "$scratch" "${no_cut[@]}"
    [ -f "$scratch/benchmark.log" ] && cat "$scratch/benchmark.log" >>"$out/bench.log"
    if [ -f "$scratch/results.md" ]; then
      cp "$scratch/results.md" "$out/bench.md"
    else
      echo "no results (see bench.log)" >"$out/bench.md"
    fi
    rows_done=$(grep -c '^| [a-z]' "$out/bench.md" 2>/dev/null)
    rows_done=$(( ${rows_done:-0} > 0 ? ${rows_done:-0} - 1 : 0 )) # minus the header row
    if grep -q '^| set | n | dim | backend | device | cut |' "$out/bench.md"; then
      rows_done=$(( rows_done > 0 ? rows_done - 1 : 0 )) # and the cut table's header
    fi
    mismatches=$(grep -cE '\| (MISMATCH|ERROR|FAILED|skipped)' "$out/bench.md" 2>/dev/null)
    record bench "$step_status" "$step_seconds" bench.md "$rows_done rows, ${mismatches:-0} failing or skipped$([ $quick = 1 ] && echo ', quick')"
    rm -rf "$scratch"
  else
    echo "no benchmark binary at $bench_bin" >"$out/bench.log"
    record bench "FAIL(no binary)" 0 bench.log ""
  fi
fi

# ---- what failed, then the summary last -------------------------------------------------------
# (Short: the end of the output is what a reader of a remote or CI run sees first.)
echo
for f in build tests lean memcheck racecheck cut bench; do
  logfile="$out/$f.log"
  [ $f = cut ] && logfile="$out/cut.md" # the cut step's log is inside cut.md
  [ -f "$logfile" ] || continue
  if grep -qE '== [a-z]+: (FAIL|TIMEOUT)' "$logfile"; then
    echo "---- from $f.log ----"
    case $f in
      tests|lean)
        grep -E -A3 '(Failure|Skipped)$' "$logfile" | grep -vE '^(--|Expected|  Actual|Value of)' | cut -c1-300 | head -30
        sed -n '/tests, listed below:/,$p' "$logfile" | grep '^\[  FAILED' | head -20 ;;
      memcheck|racecheck)
        grep -E 'FAILED|Failure|=+ (ERROR|Invalid|Error|Race|Hazard|Address|Saved host backtrace)|SUMMARY' "$logfile" | cut -c1-300 | head -30 ;;
      *) tail -25 "$logfile" | cut -c1-300 ;;
    esac
  fi
done
if [ -f "$out/cut.md" ]; then
  echo "---- cut.md (set, n, backend, cut, kept, groups, cut ms, min, download ms, status) ----"
  sed '/^## Log/,$d' "$out/cut.md" | grep -E '^\| ([a-z]|set )' | cut -d'|' -f2,3,5,7,9,10,14,15,16,20 | cut -c1-220
fi
if [ -f "$out/bench.md" ]; then
  echo "---- bench.md (cut; the file has all columns) ----"
  grep '^|' "$out/bench.md" | cut -d'|' -f2-17 | cut -c1-220
fi
write_summary
echo
echo "==== summary ($summary) ===="
cat "$summary"
[ $failed = 0 ]
