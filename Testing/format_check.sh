#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
#
# Checks that every C, C++ and CUDA source of the repository is formatted by clang-format with the
# repository's .clang-format (exit 1 and the files' names otherwise).
#   Testing/format_check.sh [--fix] [SOURCE_DIR]
#     --fix   reformat the files in place instead of checking
# The files are git's tracked ones when SOURCE_DIR is a git checkout, else every source below it.
# CLANG_FORMAT names the program (default clang-format). Exit 77 (a skip) when it is missing.
set -u
fix=0
if [ "${1:-}" = --fix ]; then
  fix=1
  shift
fi
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
tool=${CLANG_FORMAT:-clang-format}
if ! command -v "$tool" >/dev/null 2>&1; then
  echo "format_check.sh: $tool not found: the formatting check is skipped (Debian: apt-get install clang-format)"
  exit 77
fi
cd "$root" || exit 2
patterns=('*.c' '*.h' '*.cxx' '*.cu' '*.cuh')
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files -- "${patterns[@]}")
else
  mapfile -t files < <(find . -path ./build -prune -o \( -name '*.c' -o -name '*.h' -o -name '*.cxx' \
    -o -name '*.cu' -o -name '*.cuh' \) -print | sed 's|^\./||' | sort)
fi
if [ "${#files[@]}" -eq 0 ]; then
  echo "format_check.sh: no sources found in $root" >&2
  exit 2
fi
if [ $fix = 1 ]; then
  "$tool" -i "${files[@]}"
  echo "reformatted ${#files[@]} files"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  if ! "$tool" --dry-run --Werror "$f" >/dev/null 2>&1; then
    bad+=("$f")
  fi
done
if [ "${#bad[@]}" -gt 0 ]; then
  echo "Not formatted as .clang-format says (fix with Testing/format_check.sh --fix):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "all ${#files[@]} sources formatted ($("$tool" --version | head -1))"
