#!/bin/bash
# Rebuilds calc.bundle, the "upstream" repository clone-calc's Dockerfile clones: two commits with
# fixed authors and dates, so the bundle is the same bytes every time. Run from this directory.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null HOME="$work"
export GIT_AUTHOR_NAME=upstream GIT_AUTHOR_EMAIL=upstream@sandbench.invalid GIT_COMMITTER_NAME=upstream GIT_COMMITTER_EMAIL=upstream@sandbench.invalid
cd "$work" && git init -q -b main repo && cd repo
mkdir calc
cat > calc/__init__.py <<'PY'
"""A small integer calculator."""
PY
cat > calc/tokenize.py <<'PY'
"""Split an expression into number and operator tokens."""


def tokenize(text):
    tokens = []
    for char in text:
        if char.isdigit() or char in "+-*()":
            tokens.append(char)
        elif not char.isspace():
            raise ValueError(f"unexpected character {char!r}")
    return tokens
PY
cat > calc/__main__.py <<'PY'
import sys

from calc.evaluate import evaluate

print(evaluate(sys.argv[1]))
PY
git add -A && GIT_AUTHOR_DATE='@1764547200 +0000' GIT_COMMITTER_DATE='@1764547200 +0000' git commit -q -m "calc: tokenizer and entry point"
cat > calc/evaluate.py <<'PY'
"""Recursive-descent evaluation: sum := product (('+'|'-') product)*, product := atom ('*' atom)*."""
from calc.tokenize import tokenize


def parse_atom(tokens):
    token = tokens.pop(0)
    if token == "(":
        value = parse_sum(tokens)
        tokens.pop(0)  # ")"
        return value
    return int(token)


def parse_product(tokens):
    value = parse_atom(tokens)
    while tokens and tokens[0] == "*":
        tokens.pop(0)
        value = value * parse_atom(tokens)
    return value


def parse_sum(tokens):
    value = parse_product(tokens)
    while tokens and tokens[0] in "+-":
        op = tokens.pop(0)
        if op == "+":
            value = value + parse_product(tokens)
        else:
            value = value - parse_sum(tokens)
    return value


def evaluate(text):
    return parse_sum(tokenize(text))
PY
git add -A && GIT_AUTHOR_DATE='@1764550800 +0000' GIT_COMMITTER_DATE='@1764550800 +0000' git commit -q -m "calc: evaluator"
git bundle create -q "$here/calc.bundle" HEAD main
