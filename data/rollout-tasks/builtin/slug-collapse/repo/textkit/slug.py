"""URL slugs: lower-case words joined by single hyphens."""


def slugify(text):
    """Lower-case `text`, keep letters and digits (any script), join the words with one hyphen."""
    out = []
    for char in text.lower():
        if char.isalnum():
            out.append(char)
        else:
            out.append("-")
    return "".join(out)
