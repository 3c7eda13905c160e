#ifndef ADLER32_H
#define ADLER32_H
#include <stddef.h>
#include <stdint.h>

/* Adler-32 (RFC 1950) of len bytes, continuing from adler (start with 1). */
uint32_t adler32_update(uint32_t adler, const unsigned char *data, size_t len);

#endif
