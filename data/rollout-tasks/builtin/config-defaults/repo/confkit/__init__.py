from .loader import load_with_defaults, parse

__all__ = ["load_with_defaults", "parse"]
