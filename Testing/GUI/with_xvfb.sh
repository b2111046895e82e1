#!/bin/bash
# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
# Runs a command with a private Xvfb display:  with_xvfb.sh COMMAND [ARGS...]
# Unlike 'xvfb-run -a', which picks a display number by looking for lock files and can hand the
# same number to two runs started together, Xvfb -displayfd lets the server take a free number
# itself and report it. -noreset: by default an X server resets when its last client leaves, and
# a program that connects again at that moment (pvpython does, right after probing OpenGL) fails
# with "bad X server connection". The server is stopped when the command ends, whatever its exit
# code.
set -u
tmp=$(mktemp -d)
Xvfb -displayfd 3 -screen 0 1280x1024x24 -nolisten tcp -noreset 3>"$tmp/display" 2>"$tmp/xvfb.log" &
server=$!
for _ in $(seq 100); do
  [ -s "$tmp/display" ] && break
  kill -0 "$server" 2>/dev/null || break
  sleep 0.1
done
if [ ! -s "$tmp/display" ]; then
  echo "with_xvfb.sh: Xvfb did not start:" >&2
  cat "$tmp/xvfb.log" >&2
  kill "$server" 2>/dev/null
  rm -rf "$tmp"
  exit 1
fi
export DISPLAY=":$(head -n1 "$tmp/display")"
"$@"
rc=$?
kill "$server" 2>/dev/null
wait "$server" 2>/dev/null
rm -rf "$tmp"
exit $rc
