#include "textfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int rk_open_regular(const char *path, RkError *err) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return rk_error(err, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return rk_error(err, "%s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return rk_error(err, "%s: not a regular file", path);
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        int e = errno;
        close(fd);
        return rk_error(err, "%s: %s", path, strerror(e));
    }
    return fd;
}

int rk_check_regular(const char *path, RkError *err) {
    int fd = rk_open_regular(path, err);
    if (fd < 0) return -1;
    close(fd);
    return 0;
}

/* fopen for reading through rk_open_regular. */
static FILE *open_read(const char *path, RkError *err) {
    int fd = rk_open_regular(path, err);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "rb");
    if (f == NULL) {
        rk_error(err, "%s: %s", path, strerror(errno));
        close(fd);
    }
    return f;
}

char *rk_read_file(const char *path, size_t max_bytes, size_t *len, RkError *err) {
    FILE *f = open_read(path, err);
    if (f == NULL) return NULL;
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

void *rk_read_regular_file(const char *path, uint64_t max_bytes, const char *what, size_t *len,
                           RkError *err) {
    FILE *f = open_read(path, err);
    if (f == NULL) return NULL;
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        int e = errno;
        fclose(f);
        rk_error(err, "%s: %s", path, strerror(e));
        return NULL;
    }
    uint64_t size = (uint64_t)st.st_size;
    if (size > max_bytes || size > SIZE_MAX) {
        fclose(f);
        rk_error(err, "%s: %llu bytes is too large for %s", path, (unsigned long long)size, what);
        return NULL;
    }
    void *data = malloc(size ? (size_t)size : 1);
    if (data == NULL) {
        fclose(f);
        rk_error(err, "%s: out of memory for %llu bytes", path, (unsigned long long)size);
        return NULL;
    }
    size_t got = fread(data, 1, (size_t)size, f);
    int e = ferror(f) ? (errno ? errno : EIO) : 0;
    fclose(f);
    if (e != 0 || got != (size_t)size) {
        free(data);
        if (e != 0) rk_error(err, "%s: read error: %s", path, strerror(e));
        else
            rk_error(err, "%s: file shrank while reading (read %zu of %llu bytes)", path, got,
                     (unsigned long long)size);
        return NULL;
    }
    *len = got;
    return data;
}
