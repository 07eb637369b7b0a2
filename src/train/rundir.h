/*
 * rundir.h - the run directory on disk, written by rank 0 only.
 *
 *   RUN/config.ini          the configuration in force (written at creation)
 *   RUN/gen-NNNN/           one complete generation: its files + manifest.json
 *   RUN/LATEST              the name of the last complete generation
 *   RUN/metrics.csv         one line a generation (rebuilt from the generation
 *                           directories, so it always matches them)
 *
 * A generation is built in gen-NNNN.tmp/ and renamed when complete; LATEST is
 * replaced atomically after that. Every file is written to a temporary name,
 * fsync'ed and renamed, and the directories are fsync'ed (core/atomicfile.h),
 * so a crash at any moment leaves either the old or the new generation, never half of one.
 *
 * Retention (run.keep): the bulky files of old generations (leaves.klv2,
 * racks.req, positional.spv, model.h5, shard-*.h5) can be removed once newer
 * generations exist; manifest.json and metrics-row.csv always stay, so
 * metrics.csv and the history survive. Only LATEST is ever verified on
 * resume, and the newest generation is never pruned.
 */
#ifndef ROOKERY_RUNDIR_H
#define ROOKERY_RUNDIR_H

#include "core/common.h"

#define RUNDIR_PATH_MAX 1024

/* Creates dir (and parents) if missing. */
int rundir_mkdirs(const char *dir, RkError *err);

/* The last complete generation number from RUN/LATEST, or -1 if the run has
 * none (new run). Errors (unreadable or malformed LATEST) return -2. */
int rundir_latest(const char *run, RkError *err);
/* RUN/gen-NNNN (or with ".tmp") into buf. */
void rundir_gen_path(const char *run, int gen, bool tmp, char *buf, size_t cap);
/* Removes gen-NNNN.tmp (never through a symlink), if there is one. */
int rundir_discard_generation(const char *run, int gen, RkError *err);
/* Removes a stale RUN/gen-NNNN.tmp/ (from an interrupted generation) and
 * creates it empty. */
int rundir_begin_generation(const char *run, int gen, RkError *err);

/* One file of a generation, for the manifest. */
typedef struct RunFile {
    char name[64];
    uint64_t bytes;
    char sha256[65];
} RunFile;

/* Hashes the named files inside gen-NNNN.tmp/ into files[] (sizes and
 * sha256). */
int rundir_describe_files(const char *run, int gen, RunFile *files, int nfiles, RkError *err);
/* Writes manifest.json (the given JSON text) and metrics-row.csv (one CSV
 * line) into gen-NNNN.tmp/, renames it to gen-NNNN/, updates LATEST and
 * rebuilds metrics.csv with `header` as its first line. Once LATEST has
 * moved the generation is committed: a failure to rebuild metrics.csv is
 * then a warning on stderr, not an error. */
int rundir_commit_generation(const char *run, int gen, const char *manifest_json, const char *metrics_header,
                             const char *metrics_row, RkError *err);
/* Checks every file listed in gen-NNNN/manifest.json against its size and
 * sha256. */
int rundir_verify_generation(const char *run, int gen, RkError *err);
/* The same for the shards alone (shard-*.h5: each listed one against its
 * size and sha256, none unlisted): the trainer's window of older
 * generations, whose other files retention may have pruned. */
int rundir_verify_shards(const char *run, int gen, RkError *err);

/* The run's lock: flock on RUN/.lock, held by rank 0 for the whole run, so
 * that two trainings cannot write one run directory (a Slurm requeue racing
 * a manual resume did: the run ended with the second run's generations and
 * the first run's config). The file says who holds it ("host H pid P since
 * T"); a clean exit empties it, so a lock file with a holder that is not
 * locked was left by a run that died: it is taken over. The kernel drops
 * the lock when its holder dies, however it dies. */
typedef struct RunLock {
    int fd; /* -1: not held */
} RunLock;
typedef enum { RUNDIR_LOCKED = 0, RUNDIR_LOCK_BUSY = 1, RUNDIR_LOCK_UNSUPPORTED = 2, RUNDIR_LOCK_ERROR = 3 } RunLockStatus;
/* Takes the lock of run (an existing directory). LOCKED: held, and
 * stale[0..cap) holds a dead holder's line if there was one (else "").
 * BUSY: err names the holder. UNSUPPORTED: the file system has no flock
 * (Lustre mounted without -o flock, NFS without a lock manager); err says so,
 * nothing is held. ERROR: err says why (a symlink or other non-regular
 * file at RUN/.lock is refused). */
RunLockStatus rundir_lock(const char *run, RunLock *lk, char *stale, size_t cap, RkError *err);
/* Empties the lock file and releases the lock (nothing if not held). */
void rundir_unlock(RunLock *lk);

/* Is name a training shard's file name (shard-*.h5)? */
bool rundir_is_shard_name(const char *name);
/* A name that stays inside its directory: not empty, no '/', not "." or
 * "..". Names read from manifests must be plain. */
bool rundir_plain_name(const char *name);

/* What rundir_prune keeps of the generations before `latest`. */
typedef struct RunKeep {
    int newest;      /* generations latest-newest+1 .. latest keep every file (>= 1) */
    int every;       /* and every generation divisible by this (0 = none) */
    int shards_from; /* shard-*.h5 of generations >= this stay (the trainer's window) */
    int model_gen;   /* this generation's model.h5 stays (the model in force; 0 = none) */
} RunKeep;

/* Removes the prunable files of generations 0 .. latest - keep->newest that
 * keep does not protect. Files of other names are never touched. Adds the
 * files removed and their bytes to *files and *bytes (both may be NULL);
 * stops at the first file it cannot remove. */
int rundir_prune(const char *run, int latest, const RunKeep *keep, int *files, uint64_t *bytes, RkError *err);

#endif
