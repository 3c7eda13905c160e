#!/bin/sh
# A Python venv holding verl 0.9.1's own SandboxFusion client code, for test/services/run-code:
# verl installed with --no-deps (its GPU stack — torch, ray, vLLM — is not needed by the client and
# not installable here) plus the one third-party module that client imports, requests
# (verl/utils/reward_score/sandbox_fusion/utils.py:25). Idempotent: an existing venv with both is kept.
# Usage: scripts/build-verl-client-venv.sh [DIR]   (default $SANDBENCH_HOME/verl-client-0.9.1)
set -eu
dir=${1:-${SANDBENCH_HOME:-$HOME/.cache/sandbench}/verl-client-0.9.1}
python=${PYTHON:-python3}
if [ -x "$dir/bin/python" ] && "$dir/bin/python" -c 'import requests, importlib.metadata as m; assert m.version("verl") == "0.9.1"' 2>/dev/null; then
  echo "$dir"
  exit 0
fi
rm -rf "$dir"
"$python" -m venv "$dir"
"$dir/bin/pip" install --quiet --disable-pip-version-check --no-deps verl==0.9.1 >&2
"$dir/bin/pip" install --quiet --disable-pip-version-check requests==2.32.3 >&2
echo "$dir"
