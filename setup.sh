#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
#
# Sets up a Debian 12 machine and runs the project. Idempotent: a second run installs nothing and
# rebuilds only what changed.
#
#   bash setup.sh          install (apt), build, run the demo on Data/sample_cloud.vtp
#   bash setup.sh test     install (apt), build, run every test (ctest)
#
# Environment: EMST_BUILD_DIR (default ./build), EMST_JOBS (default: all cores),
# EMST_CMAKE_ARGS (more CMake options, e.g. "-DEMST_ENABLE_CUDA=OFF"),
# EMST_SKIP_APT=1 (install nothing; for machines set up by hand).
set -euo pipefail

mode=${1:-demo}
case "$mode" in
  demo | test) ;;
  *)
    echo "usage: bash setup.sh [demo|test]" >&2
    exit 2
    ;;
esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${EMST_BUILD_DIR:-$root/build}
jobs=${EMST_JOBS:-$(nproc)}

# ---- packages ------------------------------------------------------------------------------
# ParaView 5.11 (its SDK, Python with numpy, GUI, and Mesa's software OpenGL for rendering
# without a GPU), what its CMake package needs for the components the
# plugin uses, Qt Help and xmlpatterns (the plugin's help page), Xvfb to render without a screen,
# OpenMPI's launcher, the Python library that the Catalyst example links (libpython3-dev), and
# the engine's build and test dependencies (Thrust for the CPU backend when there is no CUDA
# toolkit, GoogleTest), clang-format (the test `format`) and python3-venv (the tests' virtual
# environment of PyPI packages, Testing/Python/venv.sh).
packages=(
  build-essential cmake
  paraview paraview-dev python3-paraview python3-numpy python3-scipy libgl1-mesa-dri
  libopenmpi-dev openmpi-bin libdouble-conversion-dev liblz4-dev liblzma-dev zlib1g-dev
  libexpat1-dev libutfcpp-dev
  libpython3-dev
  qtbase5-dev qttools5-dev qttools5-dev-tools qtxmlpatterns5-dev-tools
  xvfb xauth
  libthrust-dev libgtest-dev
  clang-format python3-venv
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [ "${#missing[@]}" -gt 0 ] && [ "${EMST_SKIP_APT:-0}" != 1 ]; then
  sudo=()
  if [ "$(id -u)" != 0 ]; then
    sudo=(sudo)
  fi
  echo "== installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # A mirror can fail now and then: try three times.
  for attempt in 1 2 3; do
    if "${sudo[@]}" apt-get update -q &&
      "${sudo[@]}" apt-get install -y -q --no-install-recommends "${packages[@]}"; then
      break
    fi
    if [ "$attempt" = 3 ]; then
      echo "apt-get failed three times" >&2
      exit 1
    fi
    sleep 10
  done
else
  echo "== packages: all installed"
fi

# ---- build ---------------------------------------------------------------------------------
echo "== configuring and building in $build ($jobs jobs)"
# shellcheck disable=SC2086 # EMST_CMAKE_ARGS is a list of options
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DEMST_BUILD_PLUGIN=ON ${EMST_CMAKE_ARGS:-}
plugin="$build/lib/paraview-5.11/plugins/EMST/EMST.so"

if [ "$mode" = demo ]; then
  # The plugin, the two work-around libraries and the emst program; the tests are built by 'test'.
  cmake --build "$build" -j "$jobs" --target EMST EMSTExpatFix EMSTPvtuFix emst_cli
  out="$build/demo"
  echo "== the demo: EMST of Data/sample_cloud.vtp"
  # -noreset: an X server that resets when its last client leaves can refuse pvpython's second
  # connection (it probes OpenGL first).
  xvfb-run -a -s "-screen 0 1280x1024x24 -noreset" \
    pvpython "$root/Examples/emst_demo.py" --plugin "$plugin" \
    --input "$root/Data/sample_cloud.vtp" --output-dir "$out"
  cat <<EOF
== done
   tree:    $out/sample_cloud_emst.vtp
   picture: $out/sample_cloud_emst.png
   ParaView with the plugin loaded:   $build/bin/emst-paraview
   pvpython with the plugin loaded:   $build/bin/emst-pvpython
EOF
else
  cmake --build "$build" -j "$jobs"
  echo "== running every test"
  ctest --test-dir "$build" --output-on-failure -j "$jobs"
fi
