/* rookery info: what a data file holds. For a square placement table
 * (.spv, recognised by its magic "SPV1") the header, the openness
 * multipliers, per-bucket statistics and a heat map of one bucket, as text
 * and optionally as a PNG (core/png.h). For leave values (.klv2) and lexicon
 * graphs (.kwg), recognised by their extension, their counts. For HDF5 files
 * (.h5, or the HDF5 signature), a model (nn/model_io.h, told by its format
 * attribute) or a training shard (nn/shard.h): the header, and what the
 * contents add up to, after validating them as the loader would. For a word
 * map (.wmp, magic RKWM; core/wordmap.h) its header and tables, checked as
 * the loader checks them, and whether it belongs to a lexicon (--lexicon). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli_common.h"
#include "cli_options.h"
#include "commands.h"
#include "core/kwg.h"
#include "core/kwg_index.h"
#include "core/letters.h"
#include "core/png.h"
#include "core/wordmap.h"
#include "eval/klv.h"
#include "eval/spv.h"
#include "nn/model_io.h"
#include "nn/shard.h"
#include "nn/shard_stats.h"

/* Pixels per heat-map cell in the PNG, grid line included. */
#define INFO_CELL_PX 32

static void usage(FILE *out) {
    fprintf(out,
            "usage: rookery info FILE [--bucket N] [--var] [--png OUT.png] [--lexicon NAME.kwg]\n"
            "\n"
            "Describes a data file.\n"
            "  .spv   (magic SPV1) square placement values: the header, the openness\n"
            "         multipliers, min/max/mean of each bucket, and a heat map (rows 1..,\n"
            "         columns A..; points) of the mean table for one tile-value bucket.\n"
            "         A cell is the value of a tile put there by an across move; a down\n"
            "         move's tile uses the transposed square.\n"
            "  .klv2  leave values (english distribution): leaves, graph nodes, value range\n"
            "  .kwg   lexicon graph: nodes, whether it has a GADDAG, words\n"
            "  .wmp   (magic RKWM) word map of a lexicon (docs/wordmap.md): its lexicon's\n"
            "         node count and hash, alphabet, longest word, and per length the\n"
            "         words, classes (multisets), blank1/blank2 keys and table slots;\n"
            "         checked as the loader checks it\n"
            "  .h5    a model (docs/model.md): architecture, feature version, board and\n"
            "         distribution, training step, generation, parameters and tensors;\n"
            "         every tensor is validated as the loader would\n"
            "  .h5    a training shard (docs/shards.md): header, samples, games, targets;\n"
            "         every value is validated as the trainer would\n"
            "\n"
            "options (.spv only):\n"
            "  --bucket N     the bucket to map (default 1, or 0 for a one-bucket table)\n"
            "  --var          map the variance table instead of the mean table\n"
            "  --png OUT.png  also draw the map: %d-pixel cells, blue (negative) - white (0) -\n"
            "                 red (positive), scaled to the largest |value| of the map\n"
            "\n"
            "option (.wmp only):\n"
            "  --lexicon NAME.kwg  also say whether the map was built from that lexicon\n"
            "                      (exit status 1 if not)\n",
            INFO_CELL_PX);
}

typedef struct InfoOptions {
    const char *path, *png, *lexicon;
    int bucket; /* -1: the default */
    bool var;
} InfoOptions;

static bool has_ext(const char *path, const char *ext) {
    size_t n = strlen(path), e = strlen(ext);
    return n > e && strcasecmp(path + n - e, ext) == 0;
}

/* Reads up to 4 bytes of path into magic; returns how many, or -1 (errno
 * set) if the file cannot be opened. */
static int read_magic(const char *path, char magic[4]) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return -1;
    size_t got = fread(magic, 1, 4, f);
    fclose(f);
    return (int)got;
}

/* ---- .spv ---- */

static void print_stats(const char *what, const float *table, const Spv *s) {
    printf("%s by bucket (points):\n  %6s %10s %10s %10s\n", what, "bucket", "min", "max", "mean");
    for (uint32_t b = 0; b < s->num_buckets; b++) {
        double lo = INFINITY, hi = -INFINITY, sum = 0;
        for (uint32_t sq = 0; sq < s->num_squares; sq++) {
            double v = table[(size_t)sq * s->num_buckets + b];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
            sum += v;
        }
        printf("  %6u %+10.3f %+10.3f %+10.3f\n", b, lo, hi, sum / s->num_squares);
    }
}

/* Integer square root of n if n is a perfect square, else -1. */
static int exact_sqrt(uint32_t n) {
    int d = (int)lround(sqrt((double)n));
    for (int c = d - 1 > 0 ? d - 1 : 0; c <= d + 1; c++)
        if ((uint32_t)(c * c) == n) return c;
    return -1;
}

static void print_map(const float *table, const Spv *s, int dim, int bucket) {
    char cell[32];
    int w = 5;
    for (int sq = 0; sq < dim * dim; sq++) {
        int n = snprintf(cell, sizeof cell, "%+.1f", (double)table[(size_t)sq * s->num_buckets + bucket]);
        w = n > w ? n : w;
    }
    printf("   ");
    for (int c = 0; c < dim; c++) printf(" %*c", w, 'A' + c);
    printf("\n");
    for (int r = 0; r < dim; r++) {
        printf("%3d", r + 1);
        for (int c = 0; c < dim; c++)
            printf(" %+*.1f", w, (double)table[(size_t)(r * dim + c) * s->num_buckets + bucket]);
        printf("\n");
    }
}

/* Blue - white - red for t in [-1, 1]. */
static void diverging(double t, uint8_t out[3]) {
    static const double neg[3] = {33, 102, 172}, pos[3] = {178, 24, 43};
    const double *end = t < 0 ? neg : pos;
    double a = fabs(t) > 1 ? 1 : fabs(t);
    for (int i = 0; i < 3; i++) out[i] = (uint8_t)lround(255.0 + a * (end[i] - 255.0));
}

static int draw_map(const char *png, const float *table, const Spv *s, int dim, int bucket, double maxabs) {
    int side = dim * INFO_CELL_PX + 1;
    uint8_t *rgb = malloc((size_t)side * side * 3);
    if (rgb == NULL) {
        fprintf(stderr, "rookery info: %s: out of memory\n", png);
        return 1;
    }
    for (int y = 0; y < side; y++)
        for (int x = 0; x < side; x++) {
            uint8_t *px = rgb + ((size_t)y * side + x) * 3;
            if (x % INFO_CELL_PX == 0 || y % INFO_CELL_PX == 0) {
                px[0] = px[1] = px[2] = 150; /* grid */
                continue;
            }
            int r = y / INFO_CELL_PX, c = x / INFO_CELL_PX;
            double v = table[(size_t)(r * dim + c) * s->num_buckets + bucket];
            diverging(maxabs > 0 ? v / maxabs : 0.0, px);
        }
    RkError err;
    int rc = png_write_rgb(png, side, side, rgb, &err);
    free(rgb);
    if (rc != 0) {
        fprintf(stderr, "rookery info: %s\n", err.msg);
        return 1;
    }
    printf("picture: %s (%dx%d pixels; blue -%.3f, white 0, red +%.3f points)\n", png, side, side, maxabs, maxabs);
    return 0;
}

static int info_spv(const InfoOptions *o) {
    Spv s;
    RkError err;
    if (spv_load(&s, o->path, &err) != 0) {
        fprintf(stderr, "rookery info: %s\n", err.msg);
        return 2;
    }
    int rc = 2;
    int nb = (int)s.num_buckets, dim = exact_sqrt(s.num_squares);
    int bucket = o->bucket >= 0 ? o->bucket : nb > 1 ? 1 : 0;
    if (bucket >= nb) {
        fprintf(stderr, "rookery info: %s: --bucket %d is outside 0..%d (the table has %d buckets)\n", o->path,
                bucket, nb - 1, nb);
        goto done;
    }
    if (o->var && s.var == NULL) {
        fprintf(stderr, "rookery info: %s: --var: the file has no variance table (flags 0x%x)\n", o->path, s.flags);
        goto done;
    }
    if (dim < 0) {
        fprintf(stderr, "rookery info: %s: num_squares %u is not a perfect square; cannot draw a board\n", o->path,
                s.num_squares);
        goto done;
    }
    printf("%s: SPV square placement values\n", o->path);
    printf("  num_squares   %u (%dx%d)\n", s.num_squares, dim, dim);
    printf("  num_buckets   %u\n", s.num_buckets);
    printf("  num_openness  %u\n", s.num_openness);
    printf("  flags         0x%x (variance table: %s)\n", s.flags, s.var ? "yes" : "no");
    printf("  file size     %zu bytes\n", spv_file_size(&s));
    printf("openness multipliers:");
    if (s.num_openness == 0) printf(" none (1 everywhere)");
    for (uint32_t i = 0; i < s.num_openness; i++) printf(" %.3f", (double)s.openness[i]);
    printf("\n");
    print_stats("mean", s.mean, &s);
    if (s.var) print_stats("variance", s.var, &s);

    const float *table = o->var ? s.var : s.mean;
    double maxabs = 0;
    for (int sq = 0; sq < dim * dim; sq++) {
        double a = fabs((double)table[(size_t)sq * nb + bucket]);
        maxabs = a > maxabs ? a : maxabs;
    }
    printf("%s, bucket %d (points; square row*%d+col of an across move, a down move uses the transposed "
           "square):\n",
           o->var ? "variance" : "mean", bucket, dim);
    print_map(table, &s, dim, bucket);
    rc = 0;
    if (o->png) {
        fflush(stdout);
        rc = draw_map(o->png, table, &s, dim, bucket, maxabs);
    }
done:
    spv_free(&s);
    return rc;
}

/* ---- HDF5 training shards ---- */

static int info_shard(const char *path) {
    RkError err;
    ShardInfo in;
    if (shard_read(path, NULL, &in, NULL, 0, &err) != 0) {
        fprintf(stderr, "rookery info: %s\n", err.msg);
        return 2;
    }
    LetterDist ld;
    if (ld_open(&ld, in.distribution, &err) != 0) {
        fprintf(stderr, "rookery info: %s: distribution '%s': %s\n", path, in.distribution, err.msg);
        return 2;
    }
    ShardSet set;
    shardset_init(&set);
    if (shard_read(path, &set, &in, &ld, 0, &err) != 0) {
        fprintf(stderr, "rookery info: %s\n", err.msg);
        shardset_free(&set);
        return 2;
    }
    ShardStats st;
    shard_stats(&set, &st);
    double n = st.samples ? (double)st.samples : 1.0;
    printf("%s: rookery training shard, schema version %d\n", path, in.schema_version);
    printf("  generation      %u\n", in.generation);
    printf("  board           %dx%d, %s distribution (%d letters)\n", in.dim, in.dim, in.distribution, in.letters);
    printf("  samples         %llu from %llu games (turns 0..%llu)\n", (unsigned long long)st.samples,
           (unsigned long long)st.games, (unsigned long long)st.max_turn);
    double np = st.samples > st.no_policy ? (double)(st.samples - st.no_policy) : 1.0;
    printf("  P target        %llu moves, %.1f a sample, %.1f%% single-move; mean top probability %.3f\n",
           (unsigned long long)st.policy_entries, (double)st.policy_entries / np, 100.0 * (double)st.single_move / np,
           st.mean_top_prob);
    if (st.no_policy)
        printf("  P none          %llu of %llu samples have no P target (fast searches: playout cap "
               "randomization); the figures above are over the others\n",
               (unsigned long long)st.no_policy, (unsigned long long)st.samples);
    if (st.policy_entries == 0 && st.samples > 0)
        printf("  P grid          no P targets\n");
    else if (st.grid > 1)
        printf("  P grid          every probability a multiple of 1/%d (a search's visit counts over %d playouts, "
               "or a multiple)\n", st.grid, st.grid);
    else if (st.grid == 1) printf("  P grid          every target a single move\n");
    else printf("  P grid          none up to 1/%d (softmax targets, or visit totals that differ)\n",
                SHARD_STATS_MAX_GRID);
    printf("  V target        win %.1f%% draw %.1f%% loss %.1f%% (player on turn); mean |final spread| %.1f\n",
           100.0 * (double)st.won / n, 100.0 * (double)st.drawn / n, 100.0 * (double)st.lost / n, st.mean_abs_final);
    if (st.estimates)
        printf("  V estimates     the search's expected final spread on %llu of %llu samples; RMS difference from "
               "the final spread %.1f\n",
               (unsigned long long)st.estimates, (unsigned long long)st.samples, st.rms_estimate_error);
    else printf("  V estimates     none (not a search's games%s)\n", in.schema_version < 2 ? ", or schema 1" : "");
    printf("  H target        opponent's leave known in %.1f%% of samples, %.2f tiles on average\n",
           100.0 * (double)st.leave_known / n, st.leave_known ? (double)st.leave_tiles / (double)st.leave_known : 0.0);
    printf("  validated       every sample (positions, moves, targets)\n");
    shardset_free(&set);
    return 0;
}

/* ---- HDF5 models ---- */

/* Prints the header peek read, then loads the model (every tensor checked)
 * for its sizes; a model this build cannot load is still described. */
static int info_model(const char *path, const NnModelInfo *in) {
    const NnArch *a = &in->arch;
    printf("%s: rookery model, model version %d\n", path, in->model_version);
    printf("  architecture    channels %d, blocks %d, embed %d, head_hidden %d, h_tiles %d, prior %s, H prior %s\n",
           a->channels, a->blocks, a->embed, a->head_hidden, a->h_tiles, a->prior_equity ? "equity" : "score",
           a->h_pool_prior ? "pool" : "none");
    printf("  features        version %d%s\n", in->feature_version,
           in->feature_version >= NN_FEATURE_VERSION_MIN && in->feature_version <= NN_FEATURE_VERSION
               ? ""
               : " (this build computes others)");
    printf("  board           %dx%d, %s distribution (%d letters)\n", in->dim, in->dim, in->distribution, in->letters);
    printf("  train step      %lld\n", (long long)in->train_step);
    printf("  generation      %u\n", in->generation);
    fflush(stdout);
    RkError err;
    LetterDist ld;
    if (ld_open(&ld, in->distribution, &err) != 0) {
        fprintf(stderr, "rookery info: %s: distribution '%s': %s\n", path, in->distribution, err.msg);
        return 2;
    }
    NnModel m;
    if (nn_model_load(&m, path, &ld, in->dim, &err) != 0) {
        fprintf(stderr, "rookery info: %s\n", err.msg);
        return 2;
    }
    size_t n = 0;
    for (int i = 0; i < m.params.count; i++) n += m.params.p[i].n;
    printf("  parameters      %zu in %d tensors (each with its two Adam moments)\n", n, m.params.count);
    const float *sp = nn_score_prior(&m); /* learned (new models 0.5): how sharp P's built-in prior is */
    printf("  %s prior  %.4f logit a point (sub-moves), %.4f (steps)\n", a->prior_equity ? "equity" : "score ",
           (double)(sp[0] / NN_SCORE_SCALE), (double)(sp[1] / NN_SCORE_SCALE));
    printf("  validated       every tensor (shape, finite values)\n");
    nn_model_free(&m);
    return 0;
}

/* ---- .wmp ---- */

static int info_wmp(const char *path, const char *lexicon) {
    WordMap wm;
    RkError err;
    if (wordmap_load(&wm, path, NULL, 0, &err) != 0) {
        fprintf(stderr, "rookery info: %s\n", err.msg);
        return 2;
    }
    uint32_t version;
    memcpy(&version, (const uint8_t *)wm.image + 4, 4); /* the loader read the rest of the header */
    printf("%s: word map (.wmp), version %u\n", path, version);
    printf("  file size     %zu bytes (%.1f MB)\n", wm.image_size, (double)wm.image_size / 1e6);
    printf("  lexicon       %u nodes, hash 0x%016llx\n", wm.kwg_nodes, (unsigned long long)wm.kwg_hash);
    printf("  alphabet      %d letters and the blank\n", wm.alphabet - 1);
    printf("  longest word  %d\n", wm.max_len);
    uint64_t words = 0, classes = 0, b1 = 0, b2 = 0, slots = 0;
    if (wm.max_len >= 2)
        printf("  %6s %10s %10s %10s %10s %10s %10s %10s\n", "length", "words", "classes", "blank1", "blank2",
               "w slots", "b1 slots", "b2 slots");
    for (int L = 2; L <= wm.max_len; L++) {
        const WmLength *l = &wm.len[L];
        uint64_t sw = (uint64_t)l->words.mask + 1, s1 = (uint64_t)l->blank1.mask + 1,
                 s2 = (uint64_t)l->blank2.mask + 1;
        printf("  %6d %10u %10u %10u %10u %10llu %10llu %10llu\n", L, l->nwords, l->words.used, l->blank1.used,
               l->blank2.used, (unsigned long long)sw, (unsigned long long)s1, (unsigned long long)s2);
        words += l->nwords;
        classes += l->words.used;
        b1 += l->blank1.used;
        b2 += l->blank2.used;
        slots += sw + s1 + s2;
    }
    printf("  total         %llu words in %llu classes; %llu blank1 and %llu blank2 keys; %llu slots of 8 bytes\n",
           (unsigned long long)words, (unsigned long long)classes, (unsigned long long)b1, (unsigned long long)b2,
           (unsigned long long)slots);
    printf("  validated     header, checksum, every table and class (as the loader does)\n");
    int rc = 0;
    if (lexicon != NULL) {
        Kwg k;
        fflush(stdout);
        if (kwg_load(&k, lexicon, 256, &err) != 0) {
            fprintf(stderr, "rookery info: %s\n", err.msg);
            wordmap_free(&wm);
            return 2;
        }
        bool same = k.n == wm.kwg_nodes && wordmap_kwg_hash(&k) == wm.kwg_hash;
        if (same) printf("  lexicon check matches %s\n", lexicon);
        else
            printf("  lexicon check does not match %s (%u nodes, hash 0x%016llx): built from another lexicon\n",
                   lexicon, k.n, (unsigned long long)wordmap_kwg_hash(&k));
        rc = same ? 0 : 1;
        kwg_free(&k);
    }
    wordmap_free(&wm);
    return rc;
}

/* ---- .klv2 and .kwg ---- */

static int info_klv(const char *path) {
    LetterDist ld;
    ld_english(&ld);
    Klv k;
    RkError err;
    if (klv_load(&k, path, &ld, &err) != 0) {
        fprintf(stderr, "rookery info: %s\n", err.msg);
        return 2;
    }
    double lo = 0, hi = 0;
    for (uint32_t i = 0; i < k.count; i++) {
        double v = k.values[i];
        if (i == 0 || v < lo) lo = v;
        if (i == 0 || v > hi) hi = v;
    }
    printf("%s: KLV2 leave values (english distribution)\n", path);
    printf("  leaves        %u\n", k.count);
    printf("  nodes         %u\n", k.kwg.n);
    if (k.count > 0) printf("  values        %+.3f .. %+.3f points\n", lo, hi);
    klv_free(&k);
    return 0;
}

static int info_kwg(const char *path) {
    Kwg k;
    RkError err;
    if (kwg_load(&k, path, 256, &err) != 0) {
        fprintf(stderr, "rookery info: %s\n", err.msg);
        return 2;
    }
    printf("%s: KWG lexicon graph\n", path);
    printf("  nodes         %u\n", k.n);
    printf("  gaddag        %s\n", kwg_gaddag_root(&k) != 0 ? "yes" : "no (DAWG only)");
    KwgIndex ix;
    if (kwg_index_init(&ix, &k, &err) == 0) {
        printf("  words         %llu\n", (unsigned long long)kwg_index_word_count(&ix));
        kwg_index_free(&ix);
    } else {
        printf("  words         unknown (%s)\n", err.msg);
    }
    kwg_free(&k);
    return 0;
}

int cmd_info(int argc, char **argv) {
    InfoOptions o = {NULL, NULL, NULL, -1, false};
    const char *files[1];
    CliStrings path = {files, 0, 1, NULL};
    const CliOption opts[] = {{"--bucket", CLI_INT, &o.bucket, 0, INT_MAX, NULL},
                              {"--var", CLI_FLAG, &o.var, 0, 0, NULL},
                              {"--png", CLI_STRING, &o.png, 0, 0, NULL},
                              {"--lexicon", CLI_STRING, &o.lexicon, 0, 0, NULL}};
    int parsed = cli_options_parse_args("info", argc, argv, opts, (int)(sizeof opts / sizeof opts[0]), usage, &path);
    if (parsed != 0) return parsed > 0 ? 0 : 2;
    if (path.n == 1) o.path = files[0];
    if (o.path == NULL) {
        fprintf(stderr, "rookery info: give a file (see --help)\n");
        return 2;
    }
    /* a FIFO would block the reads below, a directory reads as nothing */
    struct stat st;
    if (stat(o.path, &st) != 0) {
        fprintf(stderr, "rookery info: %s: %s\n", o.path, strerror(errno));
        return 2;
    }
    if (!S_ISREG(st.st_mode)) {
        fprintf(stderr, "rookery info: %s: not a regular file\n", o.path);
        return 2;
    }
    char magic[4];
    int got = read_magic(o.path, magic);
    if (got < 0) {
        fprintf(stderr, "rookery info: %s: %s\n", o.path, strerror(errno));
        return 2;
    }
    bool wmp = (got == 4 && memcmp(magic, "RKWM", 4) == 0) || has_ext(o.path, ".wmp");
    if (o.lexicon != NULL && !wmp) {
        fprintf(stderr, "rookery info: %s: --lexicon applies to .wmp files only\n", o.path);
        return 2;
    }
    if (wmp) {
        if (o.bucket >= 0 || o.var || o.png) {
            fprintf(stderr, "rookery info: %s: --bucket, --var and --png apply to .spv files only\n", o.path);
            return 2;
        }
        return info_wmp(o.path, o.lexicon);
    }
    if ((got == 4 && memcmp(magic, SPV_MAGIC, 4) == 0) || has_ext(o.path, ".spv")) return info_spv(&o);
    if ((got == 4 && memcmp(magic, "\x89HDF", 4) == 0) || has_ext(o.path, ".h5")) {
        if (o.bucket >= 0 || o.var || o.png) {
            fprintf(stderr, "rookery info: %s: --bucket, --var and --png apply to .spv files only\n", o.path);
            return 2;
        }
        NnModelInfo mi;
        RkError err;
        if (nn_model_peek(o.path, &mi, &err) == 0) return info_model(o.path, &mi);
        if (mi.is_model) { /* a model with a bad header: say so, not "not a shard" */
            fprintf(stderr, "rookery info: %s\n", err.msg);
            return 2;
        }
        return info_shard(o.path);
    }
    bool klv = has_ext(o.path, ".klv2"), kwg = has_ext(o.path, ".kwg");
    if (!klv && !kwg) {
        fprintf(stderr, "rookery info: %s: not a .spv, .klv2, .kwg, .wmp or .h5 file\n", o.path);
        return 2;
    }
    if (o.bucket >= 0 || o.var || o.png) {
        fprintf(stderr, "rookery info: %s: --bucket, --var and --png apply to .spv files only\n", o.path);
        return 2;
    }
    return klv ? info_klv(o.path) : info_kwg(o.path);
}
