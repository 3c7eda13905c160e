NAME = "rot13"


def _shift(char, base):
    return chr((ord(char) - base + 13) % 26 + base)


def encode(text):
    out = []
    for char in text:
        if "a" <= char <= "z":
            out.append(_shift(char, ord("a")))
        elif "A" <= char <= "Z":
            out.append(_shift(char, ord("A")))
        else:
            out.append(char)
    return "".join(out)
