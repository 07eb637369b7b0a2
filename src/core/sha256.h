/* sha256.h - SHA-256 (FIPS 180-4), for the checksums in run manifests. */
#ifndef ROOKERY_SHA256_H
#define ROOKERY_SHA256_H

#include "common.h"

typedef struct Sha256 {
    uint32_t h[8];
    uint64_t length;     /* bytes hashed so far */
    uint8_t block[64];
    size_t fill;
} Sha256;

void sha256_init(Sha256 *s);
void sha256_update(Sha256 *s, const void *data, size_t len);
/* Writes the digest as 64 lowercase hex digits plus NUL into hex[65]. */
void sha256_final_hex(Sha256 *s, char hex[65]);
/* Hashes a whole file; returns -1 (message naming the file) on a read error. */
int sha256_file(const char *path, char hex[65], RkError *err);

#endif
