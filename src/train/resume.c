/* resume.c - the run directory's rules: the lock (a second training on a
 * run exits 2), the configuration on record (what a resume may change),
 * what a resume verifies before anything is played, --check's room check,
 * and the cleanup of a new run that failed before its gen-0000. */
#include <dirent.h>
#include <jansson.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "core/textfile.h"
#include "manifest.h"
#include "trainer.h"

/* --check: the run directory (or, for a new run, its nearest existing
 * parent) is writable and its file system has room for a generation: the
 * last one's size, or for a new run the tables (~45 MB for English) and
 * ~160 bytes a shard sample (25 a game), twice over for the temporary
 * copy. 0, or an error naming the directory and the numbers. */
int train_check_room(const Trainer *t, int latest, RkError *err) {
    char dir[RUNDIR_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", t->cfg.output);
    while (access(dir, F_OK) != 0) { /* the nearest existing parent */
        char *slash = strrchr(dir, '/');
        if (slash == NULL) {
            snprintf(dir, sizeof dir, ".");
            break;
        }
        if (slash == dir) slash[1] = '\0';
        else *slash = '\0';
        if (slash == dir) break;
    }
    if (access(dir, W_OK) != 0) return rk_error(err, "%s: not writable (%s)", dir, strerror(errno));
    uint64_t need = 0;
    if (latest >= 0) {
        char gen[RUNDIR_PATH_MAX];
        rundir_gen_path(t->cfg.output, latest, false, gen, sizeof gen);
        DIR *d = opendir(gen);
        struct dirent *e;
        while (d != NULL && (e = readdir(d)) != NULL) {
            char path[RUNDIR_PATH_MAX * 2];
            struct stat st;
            snprintf(path, sizeof path, "%s/%s", gen, e->d_name);
            if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) need += (uint64_t)st.st_size;
        }
        if (d != NULL) closedir(d);
    } else {
        need = 45u << 20;
        if (t->cfg.nn_shards) need += t->cfg.games_per_generation * 25u * 160u;
    }
    need *= 2;
    struct statvfs vfs;
    if (statvfs(dir, &vfs) != 0) return rk_error(err, "%s: %s", dir, strerror(errno));
    uint64_t avail = (uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize;
    if (avail < need)
        return rk_error(err, "%s: %.0f MB free, a generation needs about %.0f MB (with its temporary copy)", dir,
                        (double)avail / 1048576.0, (double)need / 1048576.0);
    return 0;
}

/* Rank 0 takes the run directory's lock (created if new) before anything in
 * it is written (the configuration was read before, and a resume's changes
 * are recorded once setup has verified the run): a second training on the
 * directory exits 2 naming the holder. --check only tries it (on an
 * existing directory) and lets go. Returns 0 or an exit code, on every
 * rank. */
int train_lock_run(Trainer *t) {
    int status = 0;
    if (t->comm.rank == 0) {
        RkError err;
        char stale[256];
        const char *run = t->cfg.output;
        bool exists = access(run, F_OK) == 0;
        t->created_run = !exists && !t->check_only;
        if (t->created_run && rundir_mkdirs(run, &err) != 0) {
            fprintf(stderr, "rookery: %s\n", err.msg);
            status = 2;
        } else if (exists || !t->check_only) {
            switch (rundir_lock(run, &t->run_lock, stale, sizeof stale, &err)) {
            case RUNDIR_LOCKED:
                if (stale[0])
                    SAY(t, "%s/.lock: took over the lock of a run that ended without letting go (%s)", run, stale);
                if (t->check_only) {
                    rundir_unlock(&t->run_lock);
                    SAY(t, "check: %s is not in use by another run", run);
                    if (t->config_changed) SAY(t, "check: would record in config.ini: %s", t->config_changes);
                }
                break;
            case RUNDIR_LOCK_UNSUPPORTED:
                fprintf(stderr, "rookery: warning: %s\n", err.msg);
                break;
            default:
                fprintf(stderr, "rookery: %s\n", err.msg);
                status = 2;
            }
        }
    }
    return agree(t, status) != 0 ? 2 : 0;
}

/* The lexicon in force is the one generation gen was made with: its sha256
 * against the manifest's (generations made before manifests kept it pass). */
static int same_lexicon(const Trainer *t, int gen, RkError *err) {
    char dir[RUNDIR_PATH_MAX], path[RUNDIR_PATH_MAX + 64];
    rundir_gen_path(t->cfg.output, gen, false, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    json_t *m = manifest_load(path, err);
    if (m == NULL) return -1;
    const char *h = manifest_string(m, "lexicon_sha256");
    int rc = 0;
    if (h != NULL && strcmp(h, t->lexicon_sha256) != 0)
        rc = rk_error(err, "the lexicon %s (sha256 %.12s...) is not the one the run was made with (sha256 %.12s... in "
                           "%s): a changed or damaged word list",
                      t->engine.lexicon_path, t->lexicon_sha256, h, path);
    json_decref(m);
    return rc;
}

/* The shards the trainer will read besides the last generation's (the older
 * generations of nn.window) are verified before anything is played: a
 * damaged one used to be found only after a whole generation. */
static int window_shards_ok(const Trainer *t, int latest, RkError *err) {
    if (!t->cfg.nn_train) return 0;
    for (int g = latest - 1; g >= 1 && g > latest - t->cfg.nn_window; g--) {
        char dir[RUNDIR_PATH_MAX];
        rundir_gen_path(t->cfg.output, g, false, dir, sizeof dir);
        if (access(dir, F_OK) == 0 && rundir_verify_shards(t->cfg.output, g, err) != 0) return -1;
    }
    return 0;
}

int train_verify_resume(const Trainer *t, int latest, RkError *err) {
    if (rundir_verify_generation(t->cfg.output, latest, err) != 0) return -1;
    if (same_lexicon(t, latest, err) != 0) return -1;
    return window_shards_ok(t, latest, err);
}

/* Where key's new value came from, for the message. */
static const char *source_of(const char *key, const char *config_path, const char *const *sets, int nsets, char *buf,
                             size_t cap) {
    size_t n = strlen(key);
    for (int i = 0; i < nsets; i++)
        if (strncmp(sets[i], key, n) == 0 && sets[i][n] == '=') return "--set";
    if (config_path != NULL) {
        snprintf(buf, cap, "--config %s", config_path);
        return buf;
    }
    return "config.ini (edited?)";
}

/* The configuration in force (t->cfg, with --config already loaded and
 * run.output set): a new run's is --config (or the embedded default) plus
 * --set. A run that exists resumes only with its configuration on record:
 * RUN/config.ini is required; the candidate (--config FILE if given, else
 * RUN/config.ini, plus --set) is compared with the record (the last
 * generation's config.ini, or RUN/config.ini for runs made before
 * generations kept one): a key that cannot change mid-run
 * (train_config_differences) that differs is refused, naming it and where
 * the new value came from; keys that may change are applied, and
 * RUN/config.ini is rewritten once the run holds its lock. Returns 0 or 2. */
int train_run_config(Trainer *t, const char *config_path, const char *const *sets, int nsets, RkError *err) {
    const char *run = t->cfg.output;
    char ini[RUNDIR_PATH_MAX + 16], rec_path[RUNDIR_PATH_MAX + 64], dir[RUNDIR_PATH_MAX];
    snprintf(ini, sizeof ini, "%s/config.ini", run);
    RkError ignore;
    int latest = rundir_latest(run, &ignore);
    bool have_ini = access(ini, F_OK) == 0;
    if (latest == -1) { /* a new run (a config.ini without LATEST: a start that failed, overwritten) */
        for (int i = 0; i < nsets; i++)
            if (train_config_assign(&t->cfg, sets[i], err) != 0) return 2;
        return 0;
    }
    if (!have_ini) {
        rk_error(err, "%s holds generations but no config.ini: a run resumes only with its configuration on record "
                      "(restore it: each generation keeps the one it was made with, gen-NNNN/config.ini)", run);
        return 2;
    }
    snprintf(rec_path, sizeof rec_path, "%s", ini);
    if (latest >= 0) {
        rundir_gen_path(run, latest, false, dir, sizeof dir);
        char gen_ini[RUNDIR_PATH_MAX + 64];
        snprintf(gen_ini, sizeof gen_ini, "%s/config.ini", dir);
        if (access(gen_ini, F_OK) == 0) snprintf(rec_path, sizeof rec_path, "%s", gen_ini);
    }
    char output[TRAIN_PATH_MAX];
    snprintf(output, sizeof output, "%s", run);
    TrainConfig *rec = malloc(sizeof *rec);
    if (rec == NULL) {
        rk_error(err, "out of memory");
        return 2;
    }
    train_config_defaults(rec);
    int rc = train_config_load(rec, rec_path, err) != 0 ? 2 : 0;
    if (rc == 0 && config_path == NULL) {
        train_config_defaults(&t->cfg);
        if (train_config_load(&t->cfg, ini, err) != 0) rc = 2;
    }
    snprintf(t->cfg.output, sizeof t->cfg.output, "%s", output);
    snprintf(rec->output, sizeof rec->output, "%s", output);
    for (int i = 0; rc == 0 && i < nsets; i++)
        if (train_config_assign(&t->cfg, sets[i], err) != 0) rc = 2;
    int nd = rc == 0 ? train_config_differences(rec, &t->cfg, NULL, 0) : 0; /* how many */
    TrainConfigDiff *diff = nd > 0 ? malloc((size_t)nd * sizeof *diff) : NULL;
    if (nd < 0 || (nd > 0 && diff == NULL)) {
        rk_error(err, "%s: the configuration cannot be compared (too long, or out of memory)", run);
        rc = 2;
    } else if (nd > 0) {
        train_config_differences(rec, &t->cfg, diff, nd);
    }
    char from[TRAIN_PATH_MAX + 16];
    size_t off = 0;
    t->config_changes[0] = '\0';
    for (int i = 0; rc == 0 && i < nd; i++) {
        const TrainConfigDiff *d = &diff[i];
        if (!d->may_change) {
            rk_error(err, "%s: %s = %s in the run's record (%s), %s from %s: it cannot change mid-run (the seed, "
                          "player, lexicon, starting points, network shape and held-out split make the run); start "
                          "a new run from this one instead (leaves.initial, nn.initial)",
                     run, d->key, d->from, rec_path, d->to, source_of(d->key, config_path, sets, nsets, from, sizeof from));
            rc = 2;
            break;
        }
        if (strcmp(d->key, "run.output") == 0) continue; /* the directory's own name is not recorded as a change */
        t->config_changed = true;
        off += (size_t)snprintf(t->config_changes + off, sizeof t->config_changes - off, "%s%s %s -> %s",
                                off ? "; " : "", d->key, d->from, d->to);
        if (off >= sizeof t->config_changes) off = sizeof t->config_changes - 1;
    }
    free(diff);
    free(rec);
    return rc;
}


void train_discard_failed_start(Trainer *t) {
    if (!t->created_run || t->run_lock.fd < 0) return;
    /* what gen-0000 left half-written, then the lock, still held while its
     * name goes, then the directory if nothing else is in it */
    char path[RUNDIR_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/LATEST", t->cfg.output);
    if (access(path, F_OK) == 0) return;
    RkError ignore;
    rundir_discard_generation(t->cfg.output, 0, &ignore);
    snprintf(path, sizeof path, "%s/config.ini", t->cfg.output);
    unlink(path);
    snprintf(path, sizeof path, "%s/.lock", t->cfg.output);
    unlink(path);
    rundir_unlock(&t->run_lock);
    rmdir(t->cfg.output); /* only if empty */
}
