#!/bin/bash
# Harbor verifier: 1 when the invoice checks pass, else 0.
cd /app
if PYTHONDONTWRITEBYTECODE=1 python3 /tests/test_invoice.py; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
