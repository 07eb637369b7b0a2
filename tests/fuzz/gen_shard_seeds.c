/*
 * gen_shard_seeds.c - writes the seed corpora of fuzz_shard_bytes and
 * fuzz_shard_file from real self-play samples (English, SOWPODS, standard
 * board, seed 11, generation 3), so the seeds can be rebuilt:
 *
 *   gen_shard_seeds SOWPODS.kwg tests/fuzz/corpus
 *
 * writes CORPUS/shard_bytes/{empty, game0_played, game1_open_top8,
 * game1_end_top8, exch_or_pass} (shardset_pack) and
 * CORPUS/shard_file/{game0_top4.h5, model_tiny.h5}. Every file stays small
 * (a few samples, a tiny architecture). Not built by default (the target
 * gen_shard_seeds of a ROOKERY_FUZZ build).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/layout.h"
#include "nn/model_io.h"
#include "nn/shard.h"
#include "worker/samples.h"
#include "worker/selfplay.h"

typedef struct Rec {
    SampleRecorder *r;
} Rec;

static void record(const Game *g, const Move *m, void *vctx) { samples_record(((Rec *)vctx)->r, g, m); }

typedef struct World {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    Game *g;
} World;

/* The samples of game i (temperature 0: the played move only; else a
 * softmax over the top moves), with search estimates on half of them. */
static void game_samples(World *w, uint64_t i, double temperature, int top, ShardSet *out) {
    SelfplayConfig cfg = {.ld = &w->ld, .layout = &w->lay, .kwg = &w->kwg, .seed = 11, .generation = 3};
    SampleRecorder r;
    samples_init(&r, out, temperature, top, NULL, NULL);
    Rec rec = {&r};
    samples_begin_game(&r, i, 3);
    selfplay_game(&cfg, i, w->g, NULL, record, &rec);
    samples_finish_game(&r, w->g);
    samples_free(&r);
    /* a search's estimates (schema 2) on every other sample; the others keep NaN */
    for (size_t k = 0; k < out->n; k += 2) out->s[k].search_spread = (float)out->s[k].final_spread * 0.5f + 3.25f;
}

/* Samples [first, first+count) of src. */
static void slice(const ShardSet *src, size_t first, size_t count, ShardSet *dst) {
    shardset_init(dst);
    for (size_t i = first; i < first + count && i < src->n; i++) {
        const ShardSample *s = &src->s[i];
        shardset_add(dst, s, src->pmove + s->policy_start, src->pprob + s->policy_start, s->policy_count);
    }
}

static void die(const char *what, const RkError *err) {
    fprintf(stderr, "gen_shard_seeds: %s: %s\n", what, err ? err->msg : "failed");
    exit(1);
}

static void write_packed(const char *dir, const char *name, const ShardSet *set) {
    char path[4096];
    snprintf(path, sizeof path, "%s/shard_bytes/%s", dir, name);
    uint8_t *bytes;
    size_t len;
    RkError err;
    if (shardset_pack(set, &bytes, &len, &err) != 0) die(name, &err);
    ShardSet check;
    shardset_init(&check);
    if (shardset_unpack_append(&check, bytes, len, &err) != 0 || check.n != set->n) die(name, &err);
    shardset_free(&check);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(bytes, 1, len, f) != len || fclose(f) != 0) die(path, NULL);
    printf("%s: %zu samples, %zu policy entries, %zu bytes\n", path, set->n, set->np, len);
    free(bytes);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: gen_shard_seeds SOWPODS.kwg CORPUS_DIR\n");
        return 2;
    }
    const char *dir = argv[2];
    World w;
    RkError err;
    ld_english(&w.ld);
    layout_standard15(&w.lay);
    if (kwg_load(&w.kwg, argv[1], (uint32_t)w.ld.size, &err) != 0) die(argv[1], &err);
    w.g = malloc(sizeof *w.g);
    if (!w.g) die("out of memory", NULL);

    ShardSet empty, g0, g1, part;
    shardset_init(&empty);
    shardset_init(&g0);
    shardset_init(&g1);
    write_packed(dir, "empty", &empty);
    game_samples(&w, 0, 0.0, 1, &g0);
    write_packed(dir, "game0_played", &g0);
    game_samples(&w, 1, 10.0, 8, &g1);
    slice(&g1, 0, 6, &part);
    write_packed(dir, "game1_open_top8", &part);
    shardset_free(&part);
    slice(&g1, g1.n > 4 ? g1.n - 4 : 0, 4, &part);
    write_packed(dir, "game1_end_top8", &part);
    shardset_free(&part);
    /* playout cap randomization: every other sample without a P target (a
     * fast search's), as bytes and as a file */
    ShardSet fast;
    shardset_init(&fast);
    for (size_t k = 0; k < 6 && k < g1.n; k++) {
        const ShardSample *s = &g1.s[k];
        shardset_add(&fast, s, g1.pmove + s->policy_start, g1.pprob + s->policy_start, k % 2 ? 0 : s->policy_count);
        if (k % 2) fast.s[fast.n - 1].search_spread = NAN;
    }
    write_packed(dir, "game1_fast", &fast);
    char fast_path[4096];
    snprintf(fast_path, sizeof fast_path, "%s/shard_file/game1_fast.h5", dir);
    if (shard_write(fast_path, &fast, 0, fast.n, &w.ld, 15, 3, &err) != 0) die(fast_path, &err);
    printf("%s: %zu samples, %zu policy entries\n", fast_path, fast.n, fast.np);
    shardset_free(&fast);

    /* a sample whose played move or policy holds an exchange or a pass, from
     * the first games that have one */
    bool found = false;
    for (uint64_t i = 2; i < 40 && !found; i++) {
        ShardSet gi;
        shardset_init(&gi);
        game_samples(&w, i, 10.0, 8, &gi);
        for (size_t k = 0; k < gi.n && !found; k++) {
            const ShardSample *s = &gi.s[k];
            bool other = s->played.kind != MOVE_PLACE;
            for (uint32_t j = 0; j < s->policy_count; j++) other |= gi.pmove[s->policy_start + j].kind != MOVE_PLACE;
            if (other) {
                slice(&gi, k, 1, &part);
                write_packed(dir, "exch_or_pass", &part);
                shardset_free(&part);
                found = true;
            }
        }
        shardset_free(&gi);
    }
    if (!found) fprintf(stderr, "gen_shard_seeds: no exchange or pass in games 2..39 (seed skipped)\n");

    /* one small shard: the first 4 samples of game 0 with top-4 targets */
    char path[4096];
    ShardSet g0t;
    shardset_init(&g0t);
    game_samples(&w, 0, 10.0, 4, &g0t);
    slice(&g0t, 0, 4, &part);
    snprintf(path, sizeof path, "%s/shard_file/game0_top4.h5", dir);
    if (shard_write(path, &part, 0, part.n, &w.ld, 15, 3, &err) != 0) die(path, &err);
    printf("%s: %zu samples\n", path, part.n);
    shardset_free(&part);
    shardset_free(&g0t);

    /* a model of the smallest architecture */
    NnArch arch = {.channels = 1, .blocks = 0, .embed = 1, .head_hidden = 1, .h_tiles = 1};
    NnModel m;
    if (nn_model_init(&m, &arch, &w.ld, 15, 5, &err) != 0) die("nn_model_init", &err);
    snprintf(path, sizeof path, "%s/shard_file/model_tiny.h5", dir);
    if (nn_model_save(&m, path, &w.ld, &err) != 0) die(path, &err);
    printf("%s: %d tensors\n", path, m.params.count);
    nn_model_free(&m);

    shardset_free(&g0);
    shardset_free(&g1);
    kwg_free(&w.kwg);
    free(w.g);
    return 0;
}
