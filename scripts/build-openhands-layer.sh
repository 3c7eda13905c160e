#!/bin/sh
# Builds the OpenHands agent layer into OUT (a fresh directory): a self-contained CPython 3.12 with
# openhands-sdk and openhands-tools VERSION installed by uv, and OUT/bin/openhands, the wrapper the
# in-sandbox runner (experiments/agent/openhands_runner.py) is started with.
# Called by scripts/build-agent-layer.sh (so experiments/agent/layers.ts caches it like every layer).
#
# Why a copied interpreter and not a venv: the SDK needs Python >= 3.12 (the task image is bookworm,
# 3.11), and the layer is seen at a different path on each backend (the cache directory on host,
# /run/sandbench/agent in namespaces and containers, a disk in VMs). A venv's pyvenv.cfg names its
# base interpreter by absolute path; a CPython prefix finds itself from its executable's location.
# Its shared libraries (libssl3, libffi8, libsqlite3, ...) are bookworm's, which the task image has.
#   usage: build-openhands-layer.sh VERSION OUT
#   env:   SANDBENCH_PYTHON312 (a python3.12 whose prefix is copied; default: pyenv's newest 3.12, else python3.12 on PATH)
set -eu
version=$1 out=$2
uv_version=0.13.9
pyenv_312=$(ls -d "$(pyenv root 2> /dev/null || echo "$HOME/.pyenv")"/versions/3.12.*/bin/python3.12 2> /dev/null | sort -V | tail -n 1)
python=${SANDBENCH_PYTHON312:-${pyenv_312:-python3.12}}
prefix=$("$python" -c 'import sys; assert sys.version_info[:2] == (3, 12); print(sys.base_prefix)') \
  || { echo "build-openhands-layer: no Python 3.12 ($python); install one (pyenv install 3.12) or set SANDBENCH_PYTHON312" >&2; exit 3; }
[ -f "$prefix/lib/libpython3.12.so.1.0" ] || { echo "build-openhands-layer: $prefix has no lib/libpython3.12.so.1.0 (a shared-library build is copied)" >&2; exit 3; }
work=$(mktemp -d "${TMPDIR:-/tmp}/sandbench-openhands-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$out/bin"

# The interpreter without what no agent imports: the test suite, IDLE/Tk, the static-link config, its own site-packages.
(cd "$prefix" && tar -cf - --exclude=lib/python3.12/test --exclude=lib/python3.12/idlelib --exclude=lib/python3.12/tkinter \
  --exclude=lib/python3.12/turtledemo --exclude='lib/python3.12/config-3.12-*' --exclude=lib/python3.12/site-packages \
  --exclude=lib/python3.12/ensurepip --exclude='lib/python3.12/lib-dynload/_tkinter*' bin/python3.12 lib include) \
  | (mkdir -p "$out/python" && cd "$out/python" && tar -xf -) \
  || { echo "build-openhands-layer: copying $prefix failed" >&2; exit 3; }
mkdir -p "$out/python/lib/python3.12/site-packages"
py="$out/python/bin/python3.12"
export LD_LIBRARY_PATH="$out/python/lib"

# uv from PyPI (pip gives up resolving openhands after minutes; uv resolves it in seconds: field-integrations.md §2).
"$python" -m venv "$work/uv" && "$work/uv/bin/pip" install --quiet --disable-pip-version-check "uv==$uv_version" \
  || { echo "build-openhands-layer: pip install uv==$uv_version failed" >&2; exit 3; }
"$work/uv/bin/uv" pip install --quiet --python "$py" --break-system-packages \
  "openhands-sdk==$version" "openhands-tools==$version" \
  || { echo "build-openhands-layer: uv pip install openhands-sdk/openhands-tools==$version failed" >&2; exit 3; }
"$work/uv/bin/uv" pip freeze --python "$py" > "$out/requirements.lock"
# Byte code compiled unchecked-hash: the layer is read-only everywhere and copied to VM disks, so no mtime check may matter.
# A few Python-2 leftovers in dependencies (func_timeout/py2_raise.py) never compile; they are never imported either.
"$py" -m compileall -q -j 0 --invalidation-mode unchecked-hash "$out/python/lib/python3.12" > "$work/compileall.txt" 2>&1 \
  || grep '^\*\*\* Error compiling' "$work/compileall.txt" | sed 's/^/build-openhands-layer: (ignored) /' >&2

cat > "$out/bin/openhands" << 'WRAPPER'
#!/bin/sh
# The layer's CPython 3.12 (its libpython beside it); `openhands RUNNER.py ARGS` runs the SDK runner.
d=$(cd "$(dirname "$0")/.." && pwd)
export LD_LIBRARY_PATH="$d/python/lib" PYTHONNOUSERSITE=1 PYTHONDONTWRITEBYTECODE=1
if [ "${1:-}" = --version ]; then
  exec "$d/python/bin/python3.12" -c 'import sys, importlib.metadata as m; print("openhands-sdk", m.version("openhands-sdk"), "openhands-tools", m.version("openhands-tools"), "litellm", m.version("litellm"), "python", sys.version.split()[0])'
fi
exec "$d/python/bin/python3.12" "$@"
WRAPPER
chmod 0755 "$out/bin/openhands"
