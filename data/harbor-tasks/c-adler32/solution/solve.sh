#!/bin/bash
# The oracle: the right modulus, checksum the last partial block too, then rebuild.
set -euo pipefail
cd /app
sed -i 's/#define ADLER_MOD 65520u/#define ADLER_MOD 65521u/' src/adler32.c
sed -i 's/while ((n = fread(buf, 1, sizeof buf, stdin)) == sizeof buf)/while ((n = fread(buf, 1, sizeof buf, stdin)) > 0)/' src/main.c
gcc -O2 -Wall -o /app/adler32 /app/src/main.c /app/src/adler32.c
