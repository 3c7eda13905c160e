from .registry import codec, duplicates, names

__all__ = ["codec", "duplicates", "names"]
