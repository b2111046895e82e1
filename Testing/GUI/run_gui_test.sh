#!/bin/bash
# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
# The GUI test's driver: ParaView under Xvfb runs gui_emst.py; its log is printed here and its
# exit code is the verdict.  Usage: run_gui_test.sh XVFB_RUN PARAVIEW PLUGIN SAMPLE OUTPUT_DIR
set -u
xvfb_run=$1 paraview=$2
export EMST_GUI_PLUGIN=$3 EMST_GUI_SAMPLE=$4 EMST_GUI_OUTPUT=$5
rm -rf "$EMST_GUI_OUTPUT"
mkdir -p "$EMST_GUI_OUTPUT"
here=$(cd "$(dirname "$0")" && pwd)
"$xvfb_run" -a -s "-screen 0 1280x1024x24" \
  "$paraview" --dr --script="$here/gui_emst.py" >"$EMST_GUI_OUTPUT/paraview_output.txt" 2>&1
rc=$?
cat "$EMST_GUI_OUTPUT/gui_log.txt" 2>/dev/null || { echo "no log: ParaView output follows"; cat "$EMST_GUI_OUTPUT/paraview_output.txt"; }
test -s "$EMST_GUI_OUTPUT/gui_emst.png" || { echo "FAIL: no screenshot"; rc=1; }
echo "paraview exit code: $rc"
exit $rc
