#include <stdio.h>
#include "adler32.h"

int main(void) {
    unsigned char buf[4096];
    uint32_t adler = 1;
    size_t n;
    /* Checksum standard input in blocks. */
    while ((n = fread(buf, 1, sizeof buf, stdin)) == sizeof buf) {
        adler = adler32_update(adler, buf, n);
    }
    printf("%08x\n", (unsigned)adler);
    return ferror(stdin) ? 1 : 0;
}
