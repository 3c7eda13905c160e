#!/bin/bash
set -euo pipefail
sed -i 's/return len(words) - 1/return len(words)/' /app/wc.py
