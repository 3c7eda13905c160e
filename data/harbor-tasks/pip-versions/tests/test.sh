#!/bin/bash
# Harbor verifier: pytest (installed in /app/.deps by the environment's pinned requirements).
cd /app
export PYTHONPATH=/app/.deps:/app PYTHONDONTWRITEBYTECODE=1
if python3 -m pytest -q -p no:cacheprovider /tests/test_releases.py; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
