NAME = "reverse"


def encode(text):
    return text[::-1]
