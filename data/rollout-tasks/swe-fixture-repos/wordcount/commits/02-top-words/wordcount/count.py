"""Word counts of a text."""


def words(text):
    return [word for word in text.split() if word]


def count_words(text):
    """Number of words in `text` (words are separated by whitespace)."""
    return len(words(text))


def frequencies(text):
    """How often each lower-cased word occurs."""
    counts = {}
    for word in words(text):
        key = word.lower()
        counts[key] = counts.get(key, 0) + 1
    return counts
