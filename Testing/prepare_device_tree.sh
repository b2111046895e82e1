#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
#
# Run on the development machine before a GPU check: copies what the device machine lacks into
# the working tree, in folders that .gitignore ignores and that travel as `carry` paths:
#   .gtest-src    googletest sources (default /usr/src/googletest; GTEST_SOURCE overrides)
#   .device-data  ../shared/data and ../shared/tools (EMST_SHARED_DIR overrides ../shared)
# Then: run(command="bash Testing/gpu_check.sh $OUT", carry=[".gtest-src", ".device-data"])
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
gtest=${GTEST_SOURCE:-/usr/src/googletest}
shared=${EMST_SHARED_DIR:-$repo/../shared}

[ -f "$gtest/CMakeLists.txt" ] || { echo "prepare_device_tree.sh: no googletest sources in $gtest" >&2; exit 1; }
[ -d "$shared/data" ] || { echo "prepare_device_tree.sh: no $shared/data" >&2; exit 1; }
[ -d "$shared/tools" ] || { echo "prepare_device_tree.sh: no $shared/tools" >&2; exit 1; }

cd "$repo"
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
# What travels: tracked + untracked-not-ignored files + the carried folders (limit 64 MiB).
tree_kib=$( (git ls-files -z --cached --others --exclude-standard | xargs -0 du -ck 2>/dev/null | tail -1 | cut -f1) || echo 0)
carry_kib=$(du -sk .gtest-src .device-data | awk '{ s += $1 } END { print s }')
total_mib=$(( (tree_kib + carry_kib) / 1024 ))
echo "working tree ${tree_kib} KiB + carried ${carry_kib} KiB = about ${total_mib} MiB (limit 64 MiB)"
if [ "$total_mib" -ge 60 ]; then
  echo "WARNING: close to or over the 64 MiB transfer limit" >&2
fi
