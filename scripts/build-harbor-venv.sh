#!/bin/sh
# A Python 3.12 venv holding Harbor 0.25.0 (PyPI `harbor`, the Terminal-Bench 2 harness) and
# sandbench's Harbor environment provider (integrations/harbor, installed editable), for
# `harbor run -e sandbench_harbor:SandbenchEnvironment` (docs/harbor.md). Harbor needs Python >= 3.12;
# Debian bookworm has 3.11, so PYTHON defaults to the first python3.12/python3.13 on PATH.
# uv resolves the ~90 packages (pip's resolver is slow on litellm's tree); it is installed into the
# venv first from PyPI, so the only network this needs is the package registry.
# Idempotent: an existing venv at the pinned version with the provider importable is kept.
# Prints the venv's directory. Usage: scripts/build-harbor-venv.sh [DIR]
#   (default $SANDBENCH_HOME/harbor-0.25.0)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-${SANDBENCH_HOME:-$HOME/.cache/sandbench}/harbor-0.25.0}
# the first interpreter >= 3.12 that runs (a pyenv shim on PATH may name a version that is not active)
find_python() {
  for candidate in python3.12 python3.13 "$(pyenv root 2>/dev/null)"/versions/3.1[23]*/bin/python3 python3; do
    if "$candidate" -c 'import sys; assert sys.version_info >= (3, 12)' 2>/dev/null; then echo "$candidate"; return; fi
  done
  echo "build-harbor-venv: Harbor 0.25.0 needs Python >= 3.12 and none was found; set PYTHON=/path/to/python3.12" >&2
  exit 2
}
python=${PYTHON:-$(find_python)}
check='import importlib.metadata as m, sandbench_harbor; assert m.version("harbor") == "0.25.0"'
if [ -x "$dir/bin/python" ] && "$dir/bin/python" -c "$check" 2>/dev/null; then
  echo "$dir"
  exit 0
fi
rm -rf "$dir"
"$python" -m venv "$dir"
"$dir/bin/pip" install --quiet --disable-pip-version-check uv==0.13.8 >&2
"$dir/bin/uv" pip install --quiet --python "$dir/bin/python" harbor==0.25.0 >&2
"$dir/bin/uv" pip install --quiet --python "$dir/bin/python" --no-deps -e "$here/integrations/harbor" >&2
"$dir/bin/python" -c "$check"
echo "$dir"
