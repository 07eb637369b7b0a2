#include "atomicfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void release(RkAtomicFile *af) {
    free(af->path);
    free(af->tmp);
    af->path = af->tmp = NULL;
    af->fd = -1;
}

int rk_atomic_open(RkAtomicFile *af, const char *path, RkError *err) {
    size_t plen = strlen(path);
    af->fd = -1;
    af->error = 0;
    af->path = malloc(plen + 1);
    af->tmp = malloc(plen + 5);
    if (af->path == NULL || af->tmp == NULL) {
        release(af);
        return rk_error(err, "%s: out of memory", path);
    }
    memcpy(af->path, path, plen + 1);
    memcpy(af->tmp, path, plen);
    memcpy(af->tmp + plen, ".tmp", 5);
    /* a stale temporary (a crash) is removed by name, never written through: were it a
     * symlink, O_TRUNC would truncate its target and the rename would put the link in place */
    if (unlink(af->tmp) != 0 && errno != ENOENT) {
        rk_error(err, "%s: cannot remove the stale temporary: %s", af->tmp, strerror(errno));
        release(af);
        return -1;
    }
    af->fd = open(af->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (af->fd < 0) {
        rk_error(err, "%s: %s", af->tmp, strerror(errno));
        release(af);
        return -1;
    }
    return 0;
}

int rk_atomic_write(RkAtomicFile *af, const void *data, size_t len) {
    const char *p = data;
    while (af->error == 0 && len > 0) {
        ssize_t w = write(af->fd, p, len);
        if (w < 0) {
            if (errno != EINTR) af->error = errno;
            continue;
        }
        if (w == 0) {
            af->error = EIO;
            continue;
        }
        p += w;
        len -= (size_t)w;
    }
    return af->error == 0 ? 0 : -1;
}

void rk_atomic_abort(RkAtomicFile *af) {
    if (af->fd >= 0) close(af->fd);
    if (af->tmp != NULL) unlink(af->tmp);
    release(af);
}

/* The directory holding path ("." for a bare name), malloc'ed. */
static char *parent_dir(const char *path) {
    const char *slash = strrchr(path, '/');
    if (slash == NULL) return strdup(".");
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    char *dir = malloc(n + 1);
    if (dir == NULL) return NULL;
    memcpy(dir, path, n);
    dir[n] = '\0';
    return dir;
}

int rk_atomic_commit(RkAtomicFile *af, RkError *err) {
    int e = af->error;
    if (e == 0 && fsync(af->fd) != 0) e = errno;
    int rc = close(af->fd);
    af->fd = -1;
    if (rc != 0 && e == 0) e = errno;
    if (e != 0) {
        rk_error(err, "%s: write failed: %s", af->tmp, strerror(e));
        rk_atomic_abort(af);
        return -1;
    }
    if (rename(af->tmp, af->path) != 0) {
        e = errno;
        rk_error(err, "%s: cannot rename %s into place: %s", af->path, af->tmp, strerror(e));
        rk_atomic_abort(af);
        return -1;
    }
    char *dir = parent_dir(af->path);
    if (dir == NULL) rc = rk_error(err, "%s: out of memory", af->path);
    else rc = rk_fsync_dir(dir, err);
    free(dir);
    release(af);
    return rc;
}

int rk_write_file_atomic(const char *path, const void *data, size_t len, RkError *err) {
    RkAtomicFile af;
    if (rk_atomic_open(&af, path, err) != 0) return -1;
    rk_atomic_write(&af, data, len);
    return rk_atomic_commit(&af, err);
}

int rk_fsync_dir(const char *dir, RkError *err) {
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0) return rk_error(err, "%s: %s", dir, strerror(errno));
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    if (rc != 0 && e != EINVAL) return rk_error(err, "%s: fsync: %s", dir, strerror(e));
    return 0;
}
