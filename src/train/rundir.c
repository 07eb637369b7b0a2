#include "rundir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/atomicfile.h"
#include "core/sha256.h"
#include "core/textfile.h"
#include "reducer/shard_gather.h"
#include "train/manifest.h"

int rundir_mkdirs(const char *dir, RkError *err) {
    char buf[RUNDIR_PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) return rk_error(err, "%s: path too long", dir);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char saved = *p;
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) return rk_error(err, "%s: %s", buf, strerror(errno));
            *p = saved;
            if (saved == '\0') break;
        }
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) return rk_error(err, "%s: not a directory", dir);
    return 0;
}

void rundir_gen_path(const char *run, int gen, bool tmp, char *buf, size_t cap) {
    snprintf(buf, cap, "%s/gen-%04d%s", run, gen, tmp ? ".tmp" : "");
}

int rundir_latest(const char *run, RkError *err) {
    char path[RUNDIR_PATH_MAX];
    snprintf(path, sizeof path, "%s/LATEST", run);
    if (access(path, F_OK) != 0) return -1;
    char *text = rk_read_file(path, 256, NULL, err);
    if (text == NULL) return -2;
    int gen = -1, used = 0;
    if (sscanf(text, "gen-%d%n", &gen, &used) != 1 || gen < 0 || (text[used] != '\n' && text[used] != '\0')) {
        rk_error(err, "%s: malformed (expected 'gen-NNNN')", path);
        free(text);
        return -2;
    }
    free(text);
    return gen;
}

/* Opens dir for listing without following a symlink (ELOOP/ENOTDIR: it is
 * not a real directory); the stream owns the descriptor. */
static DIR *open_dir_nofollow(const char *dir) {
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return NULL;
    DIR *d = fdopendir(fd);
    if (d == NULL) close(fd);
    return d;
}

/* Removes a generation directory of the run: its files (by unlinkat inside
 * it: a symlink among them is removed, not its target), then itself. A
 * symlink or a file at the directory's name is removed as a name, never
 * followed (a link planted at gen-NNNN.tmp used to empty the directory it
 * pointed to). A subdirectory is an error (generations hold files only). */
static int remove_tree(const char *dir, RkError *err) {
    struct stat st;
    if (lstat(dir, &st) != 0) return errno == ENOENT ? 0 : rk_error(err, "%s: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode)) return unlink(dir) == 0 ? 0 : rk_error(err, "%s: %s", dir, strerror(errno));
    DIR *d = open_dir_nofollow(dir);
    if (d == NULL) return rk_error(err, "%s: %s", dir, strerror(errno));
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (unlinkat(dirfd(d), e->d_name, 0) != 0) {
            int code = errno;
            closedir(d);
            return rk_error(err, "%s/%s: %s", dir, e->d_name, strerror(code));
        }
    }
    closedir(d);
    if (rmdir(dir) != 0) return rk_error(err, "%s: %s", dir, strerror(errno));
    return 0;
}

int rundir_discard_generation(const char *run, int gen, RkError *err) {
    char tmp[RUNDIR_PATH_MAX];
    rundir_gen_path(run, gen, true, tmp, sizeof tmp);
    return remove_tree(tmp, err);
}

int rundir_begin_generation(const char *run, int gen, RkError *err) {
    char tmp[RUNDIR_PATH_MAX];
    rundir_gen_path(run, gen, true, tmp, sizeof tmp);
    if (rundir_discard_generation(run, gen, err) != 0) return -1;
    if (mkdir(tmp, 0777) != 0) return rk_error(err, "%s: %s", tmp, strerror(errno));
    return 0;
}

int rundir_describe_files(const char *run, int gen, RunFile *files, int nfiles, RkError *err) {
    char dir[RUNDIR_PATH_MAX], path[RUNDIR_PATH_MAX + 80];
    rundir_gen_path(run, gen, true, dir, sizeof dir);
    for (int i = 0; i < nfiles; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
        struct stat st;
        if (stat(path, &st) != 0) return rk_error(err, "%s: %s", path, strerror(errno));
        files[i].bytes = (uint64_t)st.st_size;
        if (sha256_file(path, files[i].sha256, err) != 0) return -1;
    }
    return 0;
}

/* Rebuilds RUN/metrics.csv from the header and every gen-NNNN/metrics-row.csv
 * up to `last`. */
static int rebuild_metrics(const char *run, int last, const char *header, RkError *err) {
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    if (buf == NULL) return rk_error(err, "out of memory");
    len = (size_t)snprintf(buf, cap, "%s\n", header);
    char path[RUNDIR_PATH_MAX + 80], dir[RUNDIR_PATH_MAX];
    for (int g = 1; g <= last; g++) {
        rundir_gen_path(run, g, false, dir, sizeof dir);
        snprintf(path, sizeof path, "%s/metrics-row.csv", dir);
        size_t n = 0;
        RkError ignore;
        char *row = rk_read_file(path, 1 << 16, &n, &ignore);
        if (row == NULL) continue; /* generation 0 and foreign directories have none */
        while (len + n + 2 > cap) {
            cap *= 2;
            char *nb = realloc(buf, cap);
            if (nb == NULL) {
                free(row);
                free(buf);
                return rk_error(err, "out of memory");
            }
            buf = nb;
        }
        memcpy(buf + len, row, n);
        len += n;
        if (n == 0 || row[n - 1] != '\n') buf[len++] = '\n';
        free(row);
    }
    snprintf(path, sizeof path, "%s/metrics.csv", run);
    int rc = rk_write_file_atomic(path, buf, len, err);
    free(buf);
    return rc;
}

int rundir_commit_generation(const char *run, int gen, const char *manifest_json, const char *metrics_header,
                             const char *metrics_row, RkError *err) {
    char tmp[RUNDIR_PATH_MAX], final[RUNDIR_PATH_MAX], path[RUNDIR_PATH_MAX + 80];
    rundir_gen_path(run, gen, true, tmp, sizeof tmp);
    rundir_gen_path(run, gen, false, final, sizeof final);
    snprintf(path, sizeof path, "%s/manifest.json", tmp);
    if (rk_write_file_atomic(path, manifest_json, strlen(manifest_json), err) != 0) return -1;
    if (metrics_row != NULL) {
        snprintf(path, sizeof path, "%s/metrics-row.csv", tmp);
        if (rk_write_file_atomic(path, metrics_row, strlen(metrics_row), err) != 0) return -1;
    }
    if (rk_fsync_dir(tmp, err) != 0) return -1;
    /* a complete directory of the same number can only be left by a crash
     * after the rename and before LATEST moved on: it is replaced */
    if (access(final, F_OK) == 0 && remove_tree(final, err) != 0) return -1;
    if (rename(tmp, final) != 0) return rk_error(err, "%s: rename: %s", final, strerror(errno));
    if (rk_fsync_dir(run, err) != 0) return -1;
    char latest[64];
    int n = snprintf(latest, sizeof latest, "gen-%04d\n", gen);
    snprintf(path, sizeof path, "%s/LATEST", run);
    if (rk_write_file_atomic(path, latest, (size_t)n, err) != 0) return -1;
    /* the generation is committed: a metrics.csv that cannot be rebuilt is only a warning
     * (the rows stay in each generation, and the next commit rebuilds the file) */
    RkError merr;
    if (metrics_header != NULL && rebuild_metrics(run, gen, metrics_header, &merr) != 0)
        fprintf(stderr, "rookery: warning: gen-%04d is complete, but %s/metrics.csv was not rebuilt: %s\n", gen, run,
                merr.msg);
    return 0;
}

/* Is name one of the manifest's listed[0..n), or a file every generation has? */
static bool expected_file(const char *name, char (*listed)[64], int n) {
    if (strcmp(name, "manifest.json") == 0 || strcmp(name, "metrics-row.csv") == 0) return true;
    for (int i = 0; i < n; i++)
        if (strcmp(listed[i], name) == 0) return true;
    return false;
}

/* A generation directory holds nothing its manifest does not list (a shard
 * copied in would be trained on); with shards_only, no unlisted shard. */
static int no_extra_files(const char *dir, const char *manifest, char (*listed)[64], int n, bool shards_only,
                          RkError *err) {
    DIR *d = open_dir_nofollow(dir);
    if (d == NULL) return rk_error(err, "%s: %s", dir, strerror(errno));
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (shards_only && !rundir_is_shard_name(e->d_name)) continue;
        if (!expected_file(e->d_name, listed, n))
            rc = rk_error(err, "%s/%s: not listed in %s (a file added to a complete generation)", dir, e->d_name,
                          manifest);
    }
    closedir(d);
    return rc;
}

#define VERIFY_MAX_FILES (SHARD_GATHER_MAX_FILES + 16) /* the shards and a generation's other files */

/* rundir_verify_generation, or with shards_only its shards alone (the other
 * files of an older generation may be pruned). */
static int verify(const char *run, int gen, bool shards_only, RkError *err) {
    char dir[RUNDIR_PATH_MAX], path[RUNDIR_PATH_MAX + 80];
    rundir_gen_path(run, gen, false, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    json_t *m = manifest_load(path, err);
    if (m == NULL) return -1;
    char (*listed)[64] = malloc(VERIFY_MAX_FILES * sizeof *listed);
    if (listed == NULL) {
        json_decref(m);
        return rk_error(err, "out of memory");
    }
    /* "files": {NAME: {"bytes": N, "sha256": HEX}, ...} */
    json_t *files = json_object_get(m, "files"), *entry;
    const char *name;
    int checked = 0, rc = 0;
    if (files != NULL && !json_is_object(files)) rc = rk_error(err, "%s: \"files\" is not an object", path);
    json_object_foreach(json_is_object(files) ? files : NULL, name, entry) {
        json_t *b = json_object_get(entry, "bytes");
        const char *want = json_string_value(json_object_get(entry, "sha256"));
        if (!json_is_integer(b) || json_integer_value(b) < 0) rc = rk_error(err, "%s: %s has no byte count", path, name);
        else if (want == NULL || strlen(want) != 64) rc = rk_error(err, "%s: %s has no sha256", path, name);
        else if (strlen(name) >= sizeof listed[0] || !rundir_plain_name(name))
            rc = rk_error(err, "%s: file entry '%s' is not a plain file name", path, name);
        if (rc != 0) break;
        unsigned long long bytes = (unsigned long long)json_integer_value(b);
        char fpath[RUNDIR_PATH_MAX + 80], got[65];
        snprintf(fpath, sizeof fpath, "%s/%s", dir, name);
        struct stat st;
        if (shards_only && !rundir_is_shard_name(name)) { /* not checked: may be pruned */
        } else if (lstat(fpath, &st) != 0) rc = rk_error(err, "%s: missing (listed in %s)", fpath, path);
        else if (!S_ISREG(st.st_mode)) rc = rk_error(err, "%s: not a regular file (listed in %s)", fpath, path);
        else if ((unsigned long long)st.st_size != bytes)
            rc = rk_error(err, "%s: %lld bytes, manifest says %llu", fpath, (long long)st.st_size, bytes);
        else if (sha256_file(fpath, got, err) != 0) rc = -1;
        else if (strcmp(got, want) != 0) rc = rk_error(err, "%s: sha256 mismatch (corrupt file)", fpath);
        if (rc != 0) break;
        if (checked < VERIFY_MAX_FILES) snprintf(listed[checked], sizeof listed[checked], "%s", name);
        checked++;
    }
    json_decref(m);
    if (rc == 0 && checked == 0) rc = rk_error(err, "%s: lists no files", path);
    if (rc == 0 && checked > VERIFY_MAX_FILES) rc = rk_error(err, "%s: lists %d files, more than any generation", path, checked);
    if (rc == 0) rc = no_extra_files(dir, path, listed, checked, shards_only, err);
    free(listed);
    return rc;
}

int rundir_verify_generation(const char *run, int gen, RkError *err) { return verify(run, gen, false, err); }

int rundir_verify_shards(const char *run, int gen, RkError *err) { return verify(run, gen, true, err); }

RunLockStatus rundir_lock(const char *run, RunLock *lk, char *stale, size_t cap, RkError *err) {
    lk->fd = -1;
    if (cap) stale[0] = '\0';
    char path[RUNDIR_PATH_MAX + 8];
    snprintf(path, sizeof path, "%s/.lock", run);
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
    if (fd < 0) {
        rk_error(err, "%s: %s", path, strerror(errno));
        return RUNDIR_LOCK_ERROR;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        rk_error(err, "%s: not a regular file", path);
        return RUNDIR_LOCK_ERROR;
    }
    char holder[256];
    ssize_t n = pread(fd, holder, sizeof holder - 1, 0);
    holder[n > 0 ? n : 0] = '\0';
    holder[strcspn(holder, "\n")] = '\0';
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        close(fd);
        if (e == EWOULDBLOCK) {
            rk_error(err, "%s is in use by another rookery train (%s); two runs on one directory would mix their "
                          "generations: wait for it, or stop it first",
                     run, holder[0] ? holder : "holder unknown");
            return RUNDIR_LOCK_BUSY;
        }
        rk_error(err, "%s: cannot lock (%s): this file system has no flock (Lustre without -o flock, NFS without "
                      "a lock manager?); nothing stops a second run on this directory",
                 path, strerror(e));
        return e == ENOLCK || e == EOPNOTSUPP || e == ENOSYS || e == EINVAL ? RUNDIR_LOCK_UNSUPPORTED
                                                                            : RUNDIR_LOCK_ERROR;
    }
    if (cap) snprintf(stale, cap, "%s", holder);
    char host[128] = "unknown", line[256];
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    time_t now = time(NULL);
    struct tm tm;
    char when[32] = "";
    if (gmtime_r(&now, &tm) != NULL) strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
    int len = snprintf(line, sizeof line, "host %s pid %ld since %s\n", host, (long)getpid(), when);
    if (ftruncate(fd, 0) != 0 || pwrite(fd, line, (size_t)len, 0) != len) {
        int e = errno;
        close(fd);
        rk_error(err, "%s: %s", path, strerror(e));
        return RUNDIR_LOCK_ERROR;
    }
    fsync(fd);
    lk->fd = fd;
    return RUNDIR_LOCKED;
}

void rundir_unlock(RunLock *lk) {
    if (lk->fd < 0) return;
    if (ftruncate(lk->fd, 0) == 0) fsync(lk->fd); /* a clean exit: no holder left to take over */
    close(lk->fd);
    lk->fd = -1;
}

bool rundir_plain_name(const char *name) {
    return name[0] != '\0' && strchr(name, '/') == NULL && strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

bool rundir_is_shard_name(const char *name) {
    size_t len = strlen(name);
    return strncmp(name, "shard-", 6) == 0 && len > 9 && strcmp(name + len - 3, ".h5") == 0;
}

/* A file that retention may remove: a snapshot's tables, model or shards. */
static bool prunable(const char *name, bool *is_shard, bool *is_model) {
    *is_shard = rundir_is_shard_name(name);
    *is_model = strcmp(name, "model.h5") == 0;
    return *is_shard || *is_model || strcmp(name, "leaves.klv2") == 0 || strcmp(name, "racks.req") == 0 ||
           strcmp(name, "positional.spv") == 0;
}

int rundir_prune(const char *run, int latest, const RunKeep *keep, int *files, uint64_t *bytes, RkError *err) {
    if (keep->newest < 1) return rk_error(err, "rundir_prune: the newest generation is always kept (newest = %d)",
                                          keep->newest);
    char dir[RUNDIR_PATH_MAX], path[RUNDIR_PATH_MAX * 2];
    for (int g = 0; g <= latest - keep->newest; g++) {
        if (keep->every > 0 && g > 0 && g % keep->every == 0) continue;
        rundir_gen_path(run, g, false, dir, sizeof dir);
        DIR *d = open_dir_nofollow(dir);
        if (d == NULL) {
            if (errno == ENOENT) continue; /* removed by hand: nothing to prune */
            if (errno == ELOOP || errno == ENOTDIR) { /* not the run's own: never pruned through */
                fprintf(stderr, "rookery: warning: %s is not a directory of the run (a symlink?): not pruned\n", dir);
                continue;
            }
            return rk_error(err, "%s: %s", dir, strerror(errno));
        }
        struct dirent *e;
        int rc = 0;
        while (rc == 0 && (e = readdir(d)) != NULL) {
            bool shard, model;
            if (!prunable(e->d_name, &shard, &model)) continue;
            if ((shard && g >= keep->shards_from) || (model && g == keep->model_gen)) continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            struct stat st;
            uint64_t size = fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? (uint64_t)st.st_size : 0;
            if (unlinkat(dirfd(d), e->d_name, 0) != 0) {
                rc = rk_error(err, "%s: cannot remove (run.keep): %s", path, strerror(errno));
                break;
            }
            if (files) (*files)++;
            if (bytes) *bytes += size;
        }
        closedir(d);
        if (rc != 0) return rc;
    }
    return 0;
}
