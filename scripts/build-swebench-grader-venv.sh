#!/bin/sh
# A Python venv holding swebench 5.0.2's grader for the rollout kind's `grader: swebench` (issue 34):
# the package installed with --no-deps (its top-level import pulls docker, modal and datasets: a
# 390 MB venv and 5 s per import; grading needs none of them) plus unidiff, the one third-party
# module swebench.harness.grading's imports reach (../shared/reference/field-integrations.md §1).
# The grader (experiments/rollout/tasks/swebench_grade.py) imports grading narrowly (46 ms).
# Idempotent: an existing venv at the pinned versions is kept. Prints the venv's directory.
# Usage: scripts/build-swebench-grader-venv.sh [DIR]   (default $SANDBENCH_HOME/swebench-grader-5.0.2)
set -eu
dir=${1:-${SANDBENCH_HOME:-$HOME/.cache/sandbench}/swebench-grader-5.0.2}
python=${PYTHON:-python3}
if [ -x "$dir/bin/python" ] && "$dir/bin/python" -c 'import unidiff, importlib.metadata as m; assert m.version("swebench") == "5.0.2"' 2>/dev/null; then
  echo "$dir"
  exit 0
fi
rm -rf "$dir"
"$python" -m venv "$dir"
"$dir/bin/pip" install --quiet --disable-pip-version-check --no-deps swebench==5.0.2 >&2
"$dir/bin/pip" install --quiet --disable-pip-version-check --no-warn-conflicts unidiff==0.7.5 >&2
echo "$dir"
