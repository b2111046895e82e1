#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
#
# The engine tests and the emst program under AddressSanitizer (with LeakSanitizer) and
# UndefinedBehaviorSanitizer, on the CPU backend: configures and builds a second build folder
# (no CUDA, no plugin) with
#   -fsanitize=address,undefined -fno-sanitize-recover=undefined
# then runs a subset of emst_engine_tests that reaches every phase of the engine and of the
# point-file reader, and emst on small files. Any sanitizer report fails. The ctest test
# 'sanitizers' runs it (Testing/Engine/CMakeLists.txt).
#
# usage: run_sanitizers.sh SOURCE_DIR BUILD_DIR [CMAKE_ARGS...]
#   CMAKE_ARGS go to the configure step (generator, compilers, EMST_SHARED_DIR, ...).
# Environment: EMST_SANITIZER_JOBS (build jobs, default: all cores), EMST_SANITIZER_FILTER
# (a gtest filter instead of the subset below).
# Exit status: 0 clean, 1 a build failure, a failing test or a sanitizer report.
set -u
set -o pipefail

[ $# -ge 2 ] || { sed -n '13,17p' "$0" >&2; exit 2; }
source_dir=$1
build_dir=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
jobs=${EMST_SANITIZER_JOBS:-$(nproc 2>/dev/null || echo 2)}

# -O1: the tests run about as fast as they compile (-O0 halves the compile time of the CPU backend
# and slows the runs down more). No -g: it adds a fifth to the build; UBSan's reports carry their
# file and line anyway, ASan's stacks their functions (frame pointers kept). No NDEBUG. The null
# check alone is recoverable, so that the Thrust suppression (ubsan_suppressions.txt) can apply;
# halt_on_error stops at any other null report.
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fsanitize-recover=null"
flags="$flags -fno-omit-frame-pointer"
# exitcode=99: a report is told apart from the programs' own exit statuses (1 and 2).
export ASAN_OPTIONS="exitcode=99:detect_leaks=1"
export UBSAN_OPTIONS="exitcode=99:halt_on_error=1:print_stacktrace=1:suppressions=$here/ubsan_suppressions.txt"

step_start=0
begin() { step_start=$(date +%s); echo "== $*"; }
end() { echo "== $1: $(($(date +%s) - step_start)) s"; }

begin "configure $build_dir"
cmake -S "$source_dir" -B "$build_dir" "$@" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1" \
  "-DCMAKE_CXX_FLAGS=$flags" "-DCMAKE_C_FLAGS=$flags" \
  "-DCMAKE_EXE_LINKER_FLAGS=$flags" "-DCMAKE_SHARED_LINKER_FLAGS=$flags" \
  -DEMST_ENABLE_CUDA=OFF -DEMST_BUILD_PLUGIN=OFF -DBUILD_TESTING=ON -DEMST_SANITIZER_TEST=OFF ||
  exit 1
end configure

begin "build emst_engine_tests emst_cli (-j$jobs)"
cmake --build "$build_dir" -j "$jobs" --target emst_engine_tests emst_cli || exit 1
end build

failures=0

# The subset: the Small* tests (small clouds through every phase: cells, Boruvka rounds, ties,
# duplicates, non-finite points, strides, cancel, progress, invalid input; the cut and the
# hierarchy), larger clouds for the deeper paths (many rounds, dense cells, ties on an FCC
# lattice, degenerate extents, double input, a real 2D set with duplicates and a real 3D set, its
# cut: Testing/Data's, and the shared bunny when it is there), the API, the references' own tests
# and every point-file test (the fuzz test included).
subset="*.Small*:Api.*:ClusterCutApi.*:Reference.*:PointFile.*"
subset="$subset:*/Engine.FaceCentredCubic/Cpu:*/Engine.DegenerateCoplanar/Cpu"
subset="$subset:*/Engine.NonFiniteCoordinates/Cpu:*/Engine.ManyCopiesOfOnePoint/Cpu"
subset="$subset:*/Engine.LargeOffsetFloat64/Cpu:ClusterHierarchy.RandomCloudsMatchKruskal"
subset="$subset:Repo/DataSet.MatchesReference/Cpu_geo_cities1000_europe16k"
subset="$subset:Repo/DataSet.MatchesReference/Cpu_lidar_autzen_tile15k"
subset="$subset:Repo/ClusterDataSet.CountsAtPercentiles/Cpu_lidar_autzen_tile15k"
subset="$subset:Shared/DataSet.MatchesReference/Cpu_scan_bunny36k"
subset="$subset:Shared/ClusterDataSet.CountsAtPercentiles/Cpu_scan_bunny36k"
filter=${EMST_SANITIZER_FILTER:-"$subset-*/Cuda*:*Cuda"}
tests="$build_dir/Testing/Engine/emst_engine_tests"
log="$build_dir/sanitizer-tests.log"
begin "emst_engine_tests under the sanitizers"
"$tests" --gtest_color=no "--gtest_filter=$filter" >"$log" 2>&1
status=$?
grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$log"
ran=$(sed -n 's/^\[==========\] \([0-9]*\) tests\{0,1\} from .* ran.*/\1/p' "$log")
if [ $status -ne 0 ]; then
  echo "FAIL: emst_engine_tests exited with status $status (99: a sanitizer report); its log:"
  grep -E -B2 -A30 'runtime error|ERROR: (Address|Leak)Sanitizer|Failure$' "$log" | head -200
  failures=$((failures + 1))
elif [ "${ran:-0}" -lt 40 ] && [ -z "${EMST_SANITIZER_FILTER:-}" ]; then
  echo "FAIL: only ${ran:-0} tests matched the subset: were tests renamed? Update the filter here."
  failures=$((failures + 1))
fi
end "tests (${ran:-0} tests)"

# expect STATUS REGEX COMMAND...: COMMAND exits with STATUS and its output (kept in $output)
# matches REGEX.
output=
expect() {
  local want=$1 regex=$2 status
  shift 2
  output=$("$@" 2>&1)
  status=$?
  if [ $status -ne "$want" ] || ! grep -Eq -- "$regex" <<<"$output"; then
    echo "FAIL: $* exited with $status (expected $want; 99: a sanitizer report) or its output does not match '$regex':"
    echo "$output" | head -100
    failures=$((failures + 1))
    return 1
  fi
  echo "ok: $*"
}

begin "emst under the sanitizers"
emst="$build_dir/Kernels/emst"
square="$source_dir/Testing/Engine/data/square.xyz"
scratch="$build_dir/sanitizer-scratch"
mkdir -p "$scratch"
printf '# x y z\n1 2 3 junk\n4 5 6\n' >"$scratch/junk.xyz"
expect 0 "total_weight=2.8284271247461903" \
  "$emst" --backend cpu --progress --edges "$scratch/square_edges.txt" "$square"
expect 1 "line 2: bad point" "$emst" --backend cpu "$scratch/junk.xyz"
expect 2 "usage error: --threads" "$emst" --backend cpu --threads 100000 "$square"

# expect_set FILE.f32: emst on a real set gives the point count, dimension and edge count of the
# NAME.ref.json beside it, and its total weight to 1e-12 (relative).
expect_set() {
  local ref=${1%.f32}.ref.json n dim weight got
  n=$(sed -n 's/^ *"n": *\([0-9]*\),$/\1/p' "$ref" | head -1)
  dim=$(sed -n 's/^ *"dim": *\([0-9]*\),$/\1/p' "$ref" | head -1)
  weight=$(sed -n 's/^ *"total_weight": *\([-+0-9.eE]*\),$/\1/p' "$ref" | head -1)
  if [ -z "$n" ] || [ -z "$dim" ] || [ -z "$weight" ]; then
    echo "FAIL: $ref lacks n, dim or emst.total_weight"
    failures=$((failures + 1))
    return
  fi
  expect 0 "points=$n dim=$dim edges=$((n - 1)) total_weight=" "$emst" --backend cpu --threads 2 "$1" ||
    return
  got=$(sed -n 's/.* total_weight=\([-+0-9.eE]*\) .*/\1/p' <<<"$output" | head -1)
  if ! awk -v got="$got" -v want="$weight" \
    'BEGIN { d = got - want; w = want; if (d < 0) d = -d; if (w < 0) w = -w; exit !(d <= 1e-12 * w) }'; then
    echo "FAIL: $1: total_weight=$got, $ref says $weight"
    failures=$((failures + 1))
  fi
}
expect_set "$source_dir/Testing/Data/lidar_autzen_tile15k.f32"
shared=$(sed -n 's/^EMST_SHARED_DIR:STRING=//p' "$build_dir/CMakeCache.txt")
bunny="$source_dir/$shared/data/scan_bunny36k.f32"
case "$shared" in /*) bunny="$shared/data/scan_bunny36k.f32" ;; esac
if [ -f "$bunny" ]; then
  expect_set "$bunny"
else
  echo "(no $bunny: emst runs on Testing/Data only)"
fi
end emst

if [ $failures -gt 0 ]; then
  echo "sanitizers: $failures failure(s)"
  exit 1
fi
echo "sanitizers: clean"
