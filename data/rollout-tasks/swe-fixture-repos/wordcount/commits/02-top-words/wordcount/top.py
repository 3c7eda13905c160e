"""The most frequent words."""
from .count import frequencies


def top_words(text, n):
    """The `n` most frequent words as (word, count), most frequent first."""
    ranked = sorted(frequencies(text).items(), key=lambda item: item[1])
    return ranked[:n]
