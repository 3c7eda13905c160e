#include "adler32.h"

/* The largest prime below 2^16. */
#define ADLER_MOD 65520u

uint32_t adler32_update(uint32_t adler, const unsigned char *data, size_t len) {
    uint32_t a = adler & 0xffffu;
    uint32_t b = adler >> 16;
    for (size_t i = 0; i < len; i++) {
        a = (a + data[i]) % ADLER_MOD;
        b = (b + a) % ADLER_MOD;
    }
    return (b << 16) | a;
}
