"""Parse `key = value` lines and merge them over the typed defaults in confkit.defaults."""


def parse(text):
    """Raw string values by key; blank lines and `#` comments are skipped."""
    values = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        if not sep:
            raise ValueError("line %d: expected key = value" % number)
        values[key.strip()] = value.strip()
    return values


def _convert(key, raw, default):
    if isinstance(default, bool):
        return bool(raw)
    return type(default)(raw)


def load_with_defaults(text):
    """The defaults with the file's values (converted to each default's type) laid over them."""
    from .defaults import DEFAULTS

    merged = dict(DEFAULTS)
    for key, raw in parse(text).items():
        if key not in DEFAULTS:
            raise KeyError("unknown setting %r" % key)
        merged[key] = _convert(key, raw, DEFAULTS[key])
    return merged
