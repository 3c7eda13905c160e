import sys


def count_words(text):
    words = text.split()
    return len(words) - 1


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as handle:
        print(count_words(handle.read()))
