"""Convert lengths between units."""

# metres per unit
FACTORS = {
    "mm": 0.001,
    "cm": 0.01,
    "m": 1.0,
}


def describe(unit):
    """A unit and its size in metres, for messages."""
    if unit not in FACTORS:
        raise ValueError("unknown unit %s" % unit)
    return "%s (%g m)" % (unit, FACTORS[unit])


def convert(value, source, target):
    """`value` in unit `source`, expressed in unit `target`."""
    try:
        return value * FACTORS[source] / FACTORS[target]
    except KeyError as error:
        raise ValueError("unknown unit %s" % error) from None


def units():
    """Known unit names, smallest first."""
    return sorted(FACTORS, key=FACTORS.get)
