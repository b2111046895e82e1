#!/bin/bash
# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
# The GUI test's driver: ParaView under Xvfb runs gui_emst.py; its log is printed here and its
# exit code is the verdict.  Usage: run_gui_test.sh PARAVIEW PLUGIN SAMPLE OUTPUT_DIR
set -u
paraview=$1
export EMST_GUI_PLUGIN=$2 EMST_GUI_SAMPLE=$3 EMST_GUI_OUTPUT=$4
rm -rf "$EMST_GUI_OUTPUT"
mkdir -p "$EMST_GUI_OUTPUT"
here=$(cd "$(dirname "$0")" && pwd)
export EMST_GUI_TESTING_DIR="$here/../Python" # emst_testing.py, for gui_emst.py
# The plugin loads at start-up, from PV_PLUGIN_PATH, as build/bin/emst-paraview loads it.
PV_PLUGIN_PATH=$(dirname "$EMST_GUI_PLUGIN") "$here/with_xvfb.sh" "$paraview" --dr --script="$here/gui_emst.py" \
  >"$EMST_GUI_OUTPUT/paraview_output.txt" 2>&1
rc=$?
cat "$EMST_GUI_OUTPUT/gui_log.txt" 2>/dev/null || { echo "no log: ParaView output follows"; cat "$EMST_GUI_OUTPUT/paraview_output.txt"; }
test -s "$EMST_GUI_OUTPUT/gui_emst.png" || { echo "FAIL: no screenshot"; rc=1; }
echo "paraview exit code: $rc"
exit $rc
