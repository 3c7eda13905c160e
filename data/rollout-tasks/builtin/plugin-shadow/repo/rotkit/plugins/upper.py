NAME = "upper"


def encode(text):
    return text.upper()
