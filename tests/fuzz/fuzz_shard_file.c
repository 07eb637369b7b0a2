/*
 * fuzz_shard_file.c - libFuzzer target for the HDF5 readers: training shards
 * (shard_read) and model files (nn_model_peek, nn_model_load).
 *
 * The input is written to a temporary file in /tmp (removed afterwards) and
 * read as a shard (English distribution, board side 15; once for the header
 * alone, once with its samples), then peeked at and loaded as a model. Any
 * of them may refuse the file, with a one-line error naming it; none may
 * crash or leak. A refused shard adds nothing to the set. A shard that is
 * read must hold only valid positions, agree with its header, and come back
 * the same after shard_write + shard_read. A model that loads has a valid
 * architecture for this distribution and board.
 *
 * Most mutations of a valid file are refused by HDF5's own metadata
 * checksums; tests/fuzz/shard_file.dict helps the fuzzer build structures
 * (pass -dict=tests/fuzz/shard_file.dict).
 */
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nn/afterstate_net.h"
#include "nn/model_io.h"
#include "nn/shard.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* LeakSanitizer suppressions, as in tests/unit/testutil.c: HDF5 1.10 loses
 * an object header (from its free lists, so allocated anywhere in libhdf5)
 * when it fails to read a damaged one. Allocations of our own code never
 * pass through libhdf5 and are still checked. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libhdf5\n"; }

static bool same_sample(const ShardSet *a, size_t i, const ShardSet *b, size_t j) {
    const ShardSample *x = &a->s[i], *y = &b->s[j];
    if (x->pos.dim != y->pos.dim || memcmp(x->pos.board, y->pos.board, sizeof x->pos.board) != 0 ||
        !rack_equal(&x->pos.rack, &y->pos.rack) || x->pos.score_self != y->pos.score_self ||
        x->pos.score_opp != y->pos.score_opp || x->pos.bag != y->pos.bag || x->pos.opp_tiles != y->pos.opp_tiles ||
        x->pos.zeros != y->pos.zeros)
        return false;
    if (x->game != y->game || x->generation != y->generation || x->turn != y->turn ||
        x->final_spread != y->final_spread || x->result != y->result || x->opp_leave_known != y->opp_leave_known ||
        !rack_equal(&x->opp_leave, &y->opp_leave) || !packed_equal(&x->played, &y->played) ||
        x->policy_count != y->policy_count)
        return false;
    if (isnan(x->search_spread) ? !isnan(y->search_spread) : x->search_spread != y->search_spread) return false;
    for (uint32_t k = 0; k < x->policy_count; k++)
        if (!packed_equal(&a->pmove[x->policy_start + k], &b->pmove[y->policy_start + k]) ||
            a->pprob[x->policy_start + k] != b->pprob[y->policy_start + k])
            return false;
    return true;
}

/* One line, naming the file. */
static void check_error(const RkError *err, const char *path) {
    if (err->msg[0] == '\0' || strchr(err->msg, '\n') != NULL || strstr(err->msg, path) == NULL) {
        fprintf(stderr, "bad error message: '%s'\n", err->msg);
        abort();
    }
}

static void check_shard(const char *path, const LetterDist *ld) {
    RkError err;
    ShardInfo info;
    /* the header alone, as `rookery` lists shards */
    if (shard_read(path, NULL, &info, NULL, 0, &err) != 0) check_error(&err, path);

    ShardSet set;
    shardset_init(&set);
    if (shard_read(path, &set, &info, ld, 15, &err) != 0) {
        check_error(&err, path);
        if (set.n != 0 || set.np != 0) abort(); /* nothing kept from a refused file */
        shardset_free(&set);
        return;
    }
    if (info.schema_version < 1 || info.schema_version > SHARD_SCHEMA_VERSION || info.dim != 15 || info.letters != ld->size ||
        info.samples != set.n || info.policy_entries != set.np)
        abort();
    for (size_t i = 0; i < set.n; i++) {
        const ShardSample *s = &set.s[i];
        if (position_check(&s->pos, ld, 15, &err) != 0) abort();
        if (s->result < -1 || s->result > 1 || s->opp_leave_known > 1) abort();
        if (s->policy_start + s->policy_count > set.np) abort();
        if (!shard_spread_estimate_ok(s->search_spread)) abort();
        if (info.schema_version < 2 && !isnan(s->search_spread)) abort(); /* version 1 has no estimates */
    }
    /* written back and read again: the same samples */
    char again[] = "/tmp/fuzz_shard_file-w-XXXXXX";
    int fd = mkstemp(again);
    if (fd < 0) abort();
    close(fd);
    ShardSet back;
    shardset_init(&back);
    if (shard_write(again, &set, 0, set.n, ld, 15, info.generation, &err) != 0 ||
        shard_read(again, &back, NULL, ld, 15, &err) != 0) {
        fprintf(stderr, "a shard that was read does not write back: %s\n", err.msg);
        abort();
    }
    if (back.n != set.n) abort();
    for (size_t i = 0; i < set.n; i++)
        if (!same_sample(&set, i, &back, i)) abort();
    unlink(again);
    shardset_free(&back);
    shardset_free(&set);
}

static void check_model(const char *path, const LetterDist *ld) {
    RkError err;
    NnModelInfo info;
    if (nn_model_peek(path, &info, &err) != 0) {
        check_error(&err, path);
    } else {
        if (!info.is_model || info.dim < 1 || info.dim > RK_MAX_DIM || info.letters < 2 ||
            info.letters > RK_MAX_LETTERS || info.train_step < 0 ||
            memchr(info.distribution, '\0', sizeof info.distribution) == NULL)
            abort();
    }
    NnModel m;
    if (nn_model_load(&m, path, ld, 15, &err) != 0) {
        check_error(&err, path);
        nn_model_free(&m); /* harmless after a failure */
        return;
    }
    if (nn_arch_check(&m.arch, &err) != 0 || m.fs.dim != 15 || m.params.w == NULL) abort();
    nn_model_free(&m);
}

/* An afterstate network that loads is whole: its parameters for this distribution's shape. */
static void check_afterstate(const char *path, const LetterDist *ld) {
    RkError err;
    AftNet n;
    if (aft_net_load(&n, path, ld, 0, &err) != 0) {
        check_error(&err, path);
        return;
    }
    AftShape s = aft_shape(ld, n.shape.dim);
    if (n.params.w == NULL || n.train_step < 0 || n.l1.in != s.total || n.shape.dim < 1 || n.shape.dim > RK_MAX_DIM)
        abort();
    for (size_t i = 0; i < n.params.total; i++)
        if (!isfinite(n.params.w[i])) abort();
    aft_net_free(&n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static LetterDist *ld = NULL;
    if (ld == NULL) {
        H5dont_atexit(); /* as the command line does */
        ld = malloc(sizeof *ld);
        if (ld == NULL) abort();
        ld_english(ld);
    }
    if (size > (1u << 20)) return 0;
    char path[] = "/tmp/fuzz_shard_file-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) abort();
    size_t done = 0;
    while (done < size) {
        ssize_t w = write(fd, data + done, size - done);
        if (w <= 0) abort();
        done += (size_t)w;
    }
    close(fd);
    check_shard(path, ld);
    check_model(path, ld);
    check_afterstate(path, ld);
    unlink(path);
    return 0;
}
