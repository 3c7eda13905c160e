from .reader import parse_line
from .writer import format_row

__all__ = ["format_row", "parse_line"]
