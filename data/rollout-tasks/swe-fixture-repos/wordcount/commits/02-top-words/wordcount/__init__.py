from .count import count_words, frequencies

__all__ = ["count_words", "frequencies"]
