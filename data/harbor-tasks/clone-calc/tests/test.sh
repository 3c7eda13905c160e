#!/bin/bash
# Harbor verifier: 1 when the calculator's checks pass, else 0.
cd /app/calc
if PYTHONDONTWRITEBYTECODE=1 python3 /tests/test_calc.py; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
