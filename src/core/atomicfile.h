/* atomicfile.h - writing a file so that a crash leaves either the old or the
 * new contents under its name, never half of them: the data go to PATH.tmp,
 * which is fsync'ed and renamed over PATH, and then PATH's directory is
 * fsync'ed. Errors are one line naming the file (PATH.tmp for a failed write,
 * with strerror, so a full disk says "No space left on device"). */
#ifndef ROOKERY_ATOMICFILE_H
#define ROOKERY_ATOMICFILE_H

#include "common.h"

typedef struct RkAtomicFile {
    char *path; /* the final name */
    char *tmp;  /* path + ".tmp" */
    int fd;
    int error; /* errno of the first failed write, 0 if none */
} RkAtomicFile;

/* Creates path.tmp for writing: a stale path.tmp is unlinked first (a
 * symlink there is removed, its target untouched), and the new file is
 * created with O_EXCL | O_NOFOLLOW, so a writer never writes through a
 * link planted at its temporary name (rename replaces a link at path
 * itself, not its target). On failure nothing is left to release. */
int rk_atomic_open(RkAtomicFile *af, const char *path, RkError *err);
/* Appends len bytes. A failure is remembered (later writes do nothing) and
 * reported by rk_atomic_commit; returns -1 once a write has failed. */
int rk_atomic_write(RkAtomicFile *af, const void *data, size_t len);
/* fsync, close, rename over the final name and fsync its directory. On any
 * failure the temporary file is removed. Releases af either way. */
int rk_atomic_commit(RkAtomicFile *af, RkError *err);
/* Closes and removes the temporary file and releases af (the final name is
 * untouched). */
void rk_atomic_abort(RkAtomicFile *af);

/* Open, write data, commit: the whole file at once. */
int rk_write_file_atomic(const char *path, const void *data, size_t len, RkError *err);
/* fsync of a directory, so that renames inside it are durable (EINVAL, from
 * file systems that cannot sync directories, is not an error). */
int rk_fsync_dir(const char *dir, RkError *err);

#endif
