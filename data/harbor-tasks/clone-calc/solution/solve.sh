#!/bin/bash
# The oracle: multi-digit numbers in the tokenizer, left-associative minus in the evaluator.
set -euo pipefail
cd /app/calc
cat > calc/tokenize.py <<'PY'
"""Split an expression into number and operator tokens."""


def tokenize(text):
    tokens = []
    number = ""
    for char in text:
        if char.isdigit():
            number += char
            continue
        if number:
            tokens.append(number)
            number = ""
        if char in "+-*()":
            tokens.append(char)
        elif not char.isspace():
            raise ValueError(f"unexpected character {char!r}")
    if number:
        tokens.append(number)
    return tokens
PY
sed -i 's/        value = value - parse_sum(tokens)/        value = value - parse_product(tokens)/' calc/evaluate.py
