#!/bin/bash
# Harbor verifier: rebuild the tool from the (fixed) sources, then compare checksums with known values.
cd /app
fail() { echo "FAIL: $*"; echo 0 > /logs/verifier/reward.txt; exit 0; }
gcc -O2 -Wall -o /app/adler32 /app/src/main.c /app/src/adler32.c || fail "the sources do not build"
check() { # input-generator expected
  got=$(eval "$1" | /app/adler32) || fail "adler32 exited non-zero on: $1"
  [ "$got" = "$2" ] || fail "$1: got $got, expected $2"
}
check "printf ''" 00000001
check "printf Wikipedia" 11e60398
check "head -c 100000 /dev/zero | tr '\\0' '\\377'" 149a302c
echo "all passed"
echo 1 > /logs/verifier/reward.txt
