# Kept from the first version of rotkit; superseded by rot13.py.
NAME = "rot13"


def encode(text):
    return "".join(chr((ord(c) - 97 + 12) % 26 + 97) if "a" <= c <= "z" else c for c in text)
