#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
#
# Packs the C++ filter test (built with CUDA) and the VTK libraries it links into .filtertest/
# (ignored by git), so that the filters' CUDA path can run end to end on a GPU machine that has
# no ParaView: the test needs only VTK's Common libraries (about 50 MB with what they pull in),
# found through LD_LIBRARY_PATH. On the build machine:
#
#   cmake -S . -B build-fgpu -G Ninja -DEMST_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
#     -DEMST_BUILD_PLUGIN=ON && cmake --build build-fgpu --target TestEMSTFilter
#   Testing/Filters/prepare_gpu_filter_test.sh build-fgpu
#
# then copy .filtertest/ to the GPU machine and run there:
#   cd .filtertest && LD_LIBRARY_PATH=$PWD/lib ./TestEMSTFilter &&
#     LD_LIBRARY_PATH=$PWD/lib compute-sanitizer --tool memcheck --error-exitcode 9 ./TestEMSTFilter
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR}
repo=$(cd "$(dirname "$0")/../.." && pwd)
test=$build/Testing/Filters/TestEMSTFilter
[ -x "$test" ] || { echo "no $test: build the target TestEMSTFilter first" >&2; exit 1; }
out=$repo/.filtertest
rm -rf "$out"
mkdir -p "$out/lib"
cp "$test" "$out/"
# Everything it links but the C library itself, which the GPU machine has.
ldd "$test" | awk '{print $3}' | grep -v '^$' | while read -r lib; do
  case "$lib" in */libc.so.6 | */libm.so.6) ;; *) cp -L "$lib" "$out/lib/" ;; esac
done
du -sh "$out"
