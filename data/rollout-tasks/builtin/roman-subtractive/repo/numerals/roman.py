"""Roman numerals in standard (subtractive) form, 1 to 3999."""

_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def to_roman(number):
    if not isinstance(number, int) or not 0 < number < 4000:
        raise ValueError("roman numerals cover 1 to 3999")
    parts = []
    for symbol, value in (("M", 1000), ("D", 500), ("C", 100), ("L", 50), ("X", 10), ("V", 5), ("I", 1)):
        count, number = divmod(number, value)
        parts.append(symbol * count)
    return "".join(parts)


def from_roman(text):
    total = 0
    previous = 0
    for char in reversed(text.upper()):
        if char not in _VALUES:
            raise ValueError("not a roman numeral: %r" % text)
        value = _VALUES[char]
        if value < previous:
            total -= value
        else:
            total += value
            previous = value
    return total
