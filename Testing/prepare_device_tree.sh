#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
#
# For a GPU machine that has neither GoogleTest nor the shared data sets: copies both into the
# working tree, in folders that .gitignore ignores, so that any copy of the tree made for that
# machine (rsync, scp, a container's bind mount, ...) holds everything Testing/gpu_check.sh needs:
#   .gtest-src    googletest sources (default /usr/src/googletest, Debian's libgtest-dev;
#                 GTEST_SOURCE overrides)
#   .device-data  data/ and tools/ of the shared folder (default ../shared beside the repository;
#                 EMST_SHARED_DIR overrides)
# gpu_check.sh finds both folders by itself. Where the GPU machine has GoogleTest installed and
# the shared folder at hand, this step is not needed: pass --shared-dir to gpu_check.sh instead.
# With --binaries BUILD (a CUDA build folder of this checkout, made where the CUDA toolkit is but
# no GPU need be), also
#   .device-build the engine test binary and the benchmark, stripped, in BUILD's layout, and
#                 BUILD_INFO (the commit and tree state when packed, the build's time; a
#                 warning when sources are newer than the binaries)
# so that the GPU machine skips the build: EMST_BUILD_DIR=.device-build bash
# Testing/gpu_check.sh OUT --steps env,tests,lean,memcheck,racecheck,bench, from a copy of the
# tree at the same path (the test binary holds the path of Testing/Data).
#
# usage: Testing/prepare_device_tree.sh [--binaries BUILD]   (run again to refresh the copies)
set -eu

binaries=
case "${1:-}" in
  --binaries) [ $# -ge 2 ] || { echo "prepare_device_tree.sh: --binaries needs a build folder" >&2; exit 2; }; binaries=$2 ;;
  "") ;;
  *) echo "usage: Testing/prepare_device_tree.sh [--binaries BUILD]" >&2; exit 2 ;;
esac
[ -z "$binaries" ] || binaries=$(cd "$binaries" && pwd)

repo=$(cd "$(dirname "$0")/.." && pwd)
gtest=${GTEST_SOURCE:-/usr/src/googletest}
shared=${EMST_SHARED_DIR:-$repo/../shared}

[ -f "$gtest/CMakeLists.txt" ] || { echo "prepare_device_tree.sh: no googletest sources in $gtest" >&2; exit 1; }
[ -d "$shared/data" ] || { echo "prepare_device_tree.sh: no $shared/data" >&2; exit 1; }
[ -d "$shared/tools" ] || { echo "prepare_device_tree.sh: no $shared/tools" >&2; exit 1; }

cd "$repo"
# Never copy into a folder git would commit.
for dir in .gtest-src .device-data .device-build; do
  if ! git check-ignore -q "$dir/"; then
    echo "prepare_device_tree.sh: $dir is not ignored by git: refusing to create it" >&2
    exit 1
  fi
done

# An empty copy folder (copies made read-only by their sources are removed too).
fresh() {
  if [ -d "$1" ]; then chmod -R u+w "$1" && rm -rf "$1"; fi
  mkdir -p "$1"
}

fresh .gtest-src
cp -R "$gtest/." .gtest-src/
fresh .device-data
cp -R "$shared/data" "$shared/tools" .device-data/
chmod -R u+w .gtest-src .device-data

echo "googletest sources: $(du -sh .gtest-src | cut -f1) in $repo/.gtest-src"
echo "data and tools:     $(du -sh .device-data | cut -f1) in $repo/.device-data"

if [ -n "$binaries" ]; then
  fresh .device-build
  for binary in Testing/Engine/emst_engine_tests Testing/Benchmarks/emst_benchmark; do
    [ -x "$binaries/$binary" ] || { echo "prepare_device_tree.sh: no $binaries/$binary (build it first)" >&2; exit 1; }
    mkdir -p ".device-build/$(dirname "$binary")"
    cp "$binaries/$binary" ".device-build/$binary"
    strip ".device-build/$binary" 2>/dev/null || true
  done
  # The tree's state now, which is the binaries' only if nothing changed since they were built.
  built=$binaries/Testing/Engine/emst_engine_tests
  newer=$(find Kernels Testing/Engine Testing/Benchmarks -newer "$built" -type f \( -name '*.h' -o -name '*.cxx' -o -name '*.cu' -o -name '*.cuh' \) | head -3)
  [ -z "$newer" ] || echo "prepare_device_tree.sh: warning: sources newer than the binaries (rebuild $binaries?): $newer" >&2
  {
    echo "commit $(git describe --always --dirty --abbrev=7 2>/dev/null || echo '?') when packed, built $(date -u -r "$built" '+%Y-%m-%d %H:%M UTC') in $binaries${newer:+ (sources changed since)}"
    grep -E '^CMAKE_CUDA_ARCHITECTURES:|^CMAKE_BUILD_TYPE:' "$binaries/CMakeCache.txt" 2>/dev/null || true
  } >.device-build/BUILD_INFO
  echo "binaries:           $(du -sh .device-build | cut -f1) in $repo/.device-build ($(head -1 .device-build/BUILD_INFO))"
fi
