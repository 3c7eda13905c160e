#!/bin/bash
# The oracle: keep the fractional cent until the end, and count every line.
set -euo pipefail
cd /app
sed -i 's/    unit_cents = int(Decimal(unit_price) \* 100)/    unit_cents = Decimal(unit_price) * 100/' invoice/lines.py
sed -i 's/ for row in rows\[:-1\])/ for row in rows)/' invoice/totals.py
