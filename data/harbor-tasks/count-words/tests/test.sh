#!/bin/bash
# Harbor verifier: writes 1 to /logs/verifier/reward.txt when the tests pass, else 0.
cd /app
if python3 /tests/test_outputs.py; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
