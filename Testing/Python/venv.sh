#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
#
# The project's one virtual environment for the tests that need packages from PyPI (scikit-learn,
# the hdbscan package, ...), created once in the build tree and reused while its requirements do
# not change. ctest runs it as the fixture `pypi.venv` (Testing/CMakeLists.txt); every test that
# needs it requires that fixture and runs VENV/bin/python.
#
#   Testing/Python/venv.sh VENV REQUIREMENTS [OPTIONAL_REQUIREMENTS]
#   Testing/Python/venv.sh --run VENV SCRIPT [ARGS...]    (a test: VENV's python runs SCRIPT)
#
# REQUIREMENTS must all install; OPTIONAL_REQUIREMENTS are tried one line at a time, and what does
# not install (no wheel for this Python, say) is left out with a note: the tests using it say what
# they do without it. Exit 0: VENV/bin/python is ready. Exit 77 (ctest's skip): no `python3 -m
# venv` (Debian: apt-get install python3-venv) or PyPI unreachable; the tests that need the
# environment then skip too. Environment: EMST_PYTHON (default python3), and pip's own
# (PIP_INDEX_URL for a mirror, ...).
set -u
if [ "${1:-}" = --run ]; then
  if [ $# -lt 3 ]; then
    echo "usage: venv.sh --run VENV SCRIPT [ARGS...]" >&2
    exit 2
  fi
  if [ ! -x "$2/bin/python" ]; then
    echo "venv.sh: no virtual environment in $2 (the test pypi.venv skipped or did not run): skipped"
    exit 77
  fi
  venv=$2
  shift 2
  exec "$venv/bin/python" "$@"
fi
if [ $# -lt 2 ]; then
  echo "usage: venv.sh VENV REQUIREMENTS [OPTIONAL_REQUIREMENTS]" >&2
  exit 2
fi
venv=$1
required=$2
optional=${3:-}
python=${EMST_PYTHON:-python3}

stamp="$venv/.emst-requirements"
want=$(cat "$required" ${optional:+"$optional"} | sha256sum | cut -d' ' -f1)
if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  echo "venv.sh: $venv is up to date"
  exit 0
fi

rm -rf "$venv"
if ! "$python" -m venv "$venv"; then
  echo "venv.sh: '$python -m venv' failed (Debian: apt-get install python3-venv): the PyPI tests are skipped"
  rm -rf "$venv"
  exit 77
fi
pip=("$venv/bin/python" -m pip --disable-pip-version-check install --timeout 30 --retries 2 -q)
if ! "${pip[@]}" -r "$required"; then
  echo "venv.sh: could not install $required from PyPI (offline?): the PyPI tests are skipped"
  rm -rf "$venv"
  exit 77
fi
if [ -n "$optional" ]; then
  while read -r line; do
    line=${line%%#*}
    line=$(echo "$line" | xargs)
    if [ -n "$line" ] && ! "${pip[@]}" "$line"; then
      echo "venv.sh: note: the optional '$line' did not install; the tests go on without it"
    fi
  done <"$optional"
fi
echo "$want" >"$stamp"
echo "venv.sh: $venv ready:"
"$venv/bin/python" -m pip --disable-pip-version-check list 2>/dev/null | grep -i -E -v "^(pip|setuptools|package|-)" | tr -s ' ' | sed 's/^/  /'
