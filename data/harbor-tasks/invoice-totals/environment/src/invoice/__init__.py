"""Invoice totals from an orders CSV (item, unit_price in currency units, quantity)."""
