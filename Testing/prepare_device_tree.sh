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
#
# usage: Testing/prepare_device_tree.sh        (run again to refresh the copies)
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
gtest=${GTEST_SOURCE:-/usr/src/googletest}
shared=${EMST_SHARED_DIR:-$repo/../shared}

[ -f "$gtest/CMakeLists.txt" ] || { echo "prepare_device_tree.sh: no googletest sources in $gtest" >&2; exit 1; }
[ -d "$shared/data" ] || { echo "prepare_device_tree.sh: no $shared/data" >&2; exit 1; }
[ -d "$shared/tools" ] || { echo "prepare_device_tree.sh: no $shared/tools" >&2; exit 1; }

cd "$repo"
# Never copy into a folder git would commit.
for dir in .gtest-src .device-data; do
  if ! git check-ignore -q "$dir/"; then
    echo "prepare_device_tree.sh: $dir is not ignored by git: refusing to create it" >&2
    exit 1
  fi
done

[ -d .gtest-src ] && chmod -R u+w .gtest-src && rm -rf .gtest-src
cp -R "$gtest" .gtest-src
[ -d .device-data ] && chmod -R u+w .device-data && rm -rf .device-data
mkdir -p .device-data
cp -R "$shared/data" "$shared/tools" .device-data/
chmod -R u+w .gtest-src .device-data

echo "googletest sources: $(du -sh .gtest-src | cut -f1) in $repo/.gtest-src"
echo "data and tools:     $(du -sh .device-data | cut -f1) in $repo/.device-data"
