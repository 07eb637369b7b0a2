#include "textfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *rk_read_file(const char *path, size_t max_bytes, size_t *len, RkError *err) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        rk_error(err, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    if (buf == NULL) {
        fclose(f);
        rk_error(err, "%s: out of memory", path);
        return NULL;
    }
    for (;;) {
        if (n == cap) {
            if (cap >= max_bytes) {
                free(buf);
                fclose(f);
                rk_error(err, "%s: larger than %zu bytes", path, max_bytes);
                return NULL;
            }
            cap *= 2;
            char *nb = realloc(buf, cap + 1);
            if (nb == NULL) {
                free(buf);
                fclose(f);
                rk_error(err, "%s: out of memory", path);
                return NULL;
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        free(buf);
        fclose(f);
        rk_error(err, "%s: read error", path);
        return NULL;
    }
    fclose(f);
    if (n > max_bytes) {
        free(buf);
        rk_error(err, "%s: larger than %zu bytes", path, max_bytes);
        return NULL;
    }
    buf[n] = '\0';
    if (len) *len = n;
    return buf;
}
