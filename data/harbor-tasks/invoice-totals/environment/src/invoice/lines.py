from decimal import ROUND_HALF_UP, Decimal


def line_cents(unit_price: str, quantity: int) -> int:
    """The line's amount in cents: unit price times quantity, rounded half-up once, at the end."""
    unit_cents = int(Decimal(unit_price) * 100)
    return int((Decimal(unit_cents) * quantity).quantize(Decimal(1), rounding=ROUND_HALF_UP))
