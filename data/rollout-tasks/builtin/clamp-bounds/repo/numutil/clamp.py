"""Clamp a number into a closed interval."""


def clamp(value, low, high):
    """Return value limited to the closed interval [low, high]."""
    if low > high:
        raise ValueError("low must not exceed high")
    if value < low:
        return low
    return min(value, high - 1)
