/* Model files (nn/model_io.h): weights, Adam moments and counters round-trip
 * exactly; the same model gives the same bytes; damaged, truncated,
 * mismatched and edited files (versions, sizes, a NaN, a missing, reshaped or
 * extra tensor) are refused with a message naming the file (and the tensor);
 * peek tells models from shards. */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nn/model_io.h"
#include "nn/shard.h"
#include "testutil.h"

static const NnArch small_arch = {.channels = 4, .blocks = 1, .embed = 8, .head_hidden = 8, .h_tiles = 1};

/* A model whose weights and moments are all random (not the init), with
 * counters set. */
static void make_model(NnModel *m, const NnArch *arch, const LetterDist *ld, uint64_t seed) {
    RkError err;
    CU_ASSERT_EQUAL_FATAL(nn_model_init(m, arch, ld, 15, seed, &err), 0);
    NnParams *ps = &m->params;
    Rng rng;
    rng_seed(&rng, seed * 7919 + 1);
    for (int i = 0; i < ps->count; i++) {
        nnp_fill_normal(ps, i, 0.5f, &rng);
        float *mm = ps->m + ps->p[i].offset, *vv = ps->v + ps->p[i].offset;
        for (size_t k = 0; k < ps->p[i].n; k++) {
            mm[k] = (float)((int64_t)(rng_next(&rng) >> 40) - (1 << 23)) * 0x1.0p-30f;
            vv[k] = (float)(rng_next(&rng) >> 40) * 0x1.0p-40f;
        }
    }
    m->train_step = 123456789012LL;
    m->generation = 42;
}

static bool same_model(const NnModel *a, const NnModel *b) {
    const NnParams *x = &a->params, *y = &b->params;
    if (memcmp(&a->arch, &b->arch, sizeof a->arch) != 0 || a->fs.dim != b->fs.dim || a->fs.letters != b->fs.letters)
        return false;
    if (a->train_step != b->train_step || a->generation != b->generation) return false;
    if (x->count != y->count || x->total != y->total) return false;
    for (int i = 0; i < x->count; i++)
        if (strcmp(x->p[i].name, y->p[i].name) != 0 || x->p[i].ndim != y->p[i].ndim ||
            memcmp(x->p[i].shape, y->p[i].shape, sizeof x->p[i].shape) != 0)
            return false;
    size_t bytes = x->total * sizeof(float);
    return memcmp(x->w, y->w, bytes) == 0 && memcmp(x->m, y->m, bytes) == 0 && memcmp(x->v, y->v, bytes) == 0;
}

/* Loading path fails, with the path and `want` in the message; m is left
 * empty. */
static void expect_refused(const char *path, const LetterDist *ld, int dim, const char *want) {
    NnModel m;
    RkError err;
    CU_ASSERT_EQUAL(nn_model_load(&m, path, ld, dim, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, path));
    if (want && !strstr(err.msg, want)) printf("\n  expected '%s' in: %s\n", want, err.msg);
    if (want) CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
    CU_ASSERT_PTR_NULL(m.params.w);
    CU_ASSERT_PTR_NULL(m.block);
    nn_model_free(&m);
}

static void set_attr_int(const char *path, const char *name, int64_t v) {
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    CU_ASSERT_FATAL(f >= 0);
    hid_t a = H5Aopen(f, name, H5P_DEFAULT);
    CU_ASSERT_FATAL(a >= 0);
    CU_ASSERT(H5Awrite(a, H5T_NATIVE_INT64, &v) >= 0);
    H5Aclose(a);
    H5Fclose(f);
}

static void test_round_trip(void) {
    LetterDist ld;
    ld_english(&ld);
    const NnArch archs[2] = {small_arch,
                             {.channels = 3, .blocks = 2, .embed = 5, .head_hidden = 6, .h_tiles = 2, .prior_equity = 1,
                              .feature_version = 3}};
    char dir[256], path[512];
    tu_tmpdir(dir, sizeof dir);
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/model%d.h5", dir, k);
        NnModel a, b;
        make_model(&a, &archs[k], &ld, 5 + (uint64_t)k);
        RkError err;
        CU_ASSERT_EQUAL_FATAL(nn_model_save(&a, path, &ld, &err), 0);
        char tmp[600];
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        CU_ASSERT_NOT_EQUAL(access(tmp, F_OK), 0); /* renamed */
        CU_ASSERT_EQUAL_FATAL(nn_model_load(&b, path, &ld, 15, &err), 0);
        CU_ASSERT_TRUE(same_model(&a, &b));
        bool zero_grad = true;
        for (size_t i = 0; i < b.params.total; i++) zero_grad &= b.params.g[i] == 0.0f;
        CU_ASSERT_TRUE(zero_grad);
        /* the weights are not the init's: a fresh model of the same seed differs */
        NnModel fresh;
        CU_ASSERT_EQUAL_FATAL(nn_model_init(&fresh, &archs[k], &ld, 15, 5 + (uint64_t)k, &err), 0);
        CU_ASSERT_NOT_EQUAL(memcmp(fresh.params.w, b.params.w, b.params.total * sizeof(float)), 0);
        nn_model_free(&fresh);

        NnModelInfo in;
        CU_ASSERT_EQUAL_FATAL(nn_model_peek(path, &in, &err), 0);
        CU_ASSERT_TRUE(in.is_model);
        CU_ASSERT_EQUAL(in.model_version, NN_MODEL_VERSION);
        /* the feature version as made: the default for an arch that names none */
        int version = archs[k].feature_version ? archs[k].feature_version : NN_FEATURE_VERSION_DEFAULT;
        CU_ASSERT_EQUAL(in.feature_version, version);
        CU_ASSERT_EQUAL(b.fs.version, version);
        NnArch want_arch = archs[k];
        want_arch.feature_version = version;
        CU_ASSERT_EQUAL(memcmp(&in.arch, &want_arch, sizeof in.arch), 0);
        CU_ASSERT_EQUAL(in.dim, 15);
        CU_ASSERT_EQUAL(in.letters, 27);
        CU_ASSERT_STRING_EQUAL(in.distribution, "english");
        CU_ASSERT_EQUAL(in.train_step, 123456789012LL);
        CU_ASSERT_EQUAL(in.generation, 42);
        nn_model_free(&a);
        nn_model_free(&b);
    }
}

/* Saves a model to DIR/a.h5 and returns its bytes. */
static long saved_model(const char *dir, char *path, size_t cap, NnModel *m, const LetterDist *ld,
                        unsigned char **bytes) {
    snprintf(path, cap, "%s/a.h5", dir);
    make_model(m, &small_arch, ld, 9);
    RkError err;
    CU_ASSERT_EQUAL_FATAL(nn_model_save(m, path, ld, &err), 0);
    long n = tu_read_bytes(path, bytes);
    CU_ASSERT_FATAL(n > 0);
    return n;
}

static void test_same_bytes(void) {
    LetterDist ld;
    ld_english(&ld);
    char dir[256], a[512], b[512], c[512];
    tu_tmpdir(dir, sizeof dir);
    NnModel m, back;
    unsigned char *ba, *bb, *bc;
    long na = saved_model(dir, a, sizeof a, &m, &ld, &ba);
    /* the same model a second later: the same bytes (no timestamps) */
    sleep(1);
    snprintf(b, sizeof b, "%s/b.h5", dir);
    RkError err;
    CU_ASSERT_EQUAL_FATAL(nn_model_save(&m, b, &ld, &err), 0);
    long nb = tu_read_bytes(b, &bb);
    CU_ASSERT_TRUE_FATAL(na == nb);
    CU_ASSERT_EQUAL(memcmp(ba, bb, (size_t)na), 0);
    /* and a loaded model saves to the file it came from */
    CU_ASSERT_EQUAL_FATAL(nn_model_load(&back, a, &ld, 15, &err), 0);
    snprintf(c, sizeof c, "%s/c.h5", dir);
    CU_ASSERT_EQUAL_FATAL(nn_model_save(&back, c, &ld, &err), 0);
    long nc = tu_read_bytes(c, &bc);
    CU_ASSERT_TRUE_FATAL(na == nc);
    CU_ASSERT_EQUAL(memcmp(ba, bc, (size_t)na), 0);
    free(ba), free(bb), free(bc);
    nn_model_free(&m);
    nn_model_free(&back);
}

static void test_damaged(void) {
    LetterDist ld;
    ld_english(&ld);
    char dir[256], a[512], bad[512];
    tu_tmpdir(dir, sizeof dir);
    NnModel m, back;
    unsigned char *ba;
    long na = saved_model(dir, a, sizeof a, &m, &ld, &ba);
    snprintf(bad, sizeof bad, "%s/bad.h5", dir);
    RkError err;
    /* flipped bytes: a clean error or, where the byte is unused, the same model */
    int refused = 0, same = 0;
    for (long off = 0; off < na; off += na / 293 + 1) {
        ba[off] ^= 0x5a;
        tu_write_bytes(bad, ba, na);
        ba[off] ^= 0x5a;
        if (nn_model_load(&back, bad, &ld, 15, &err) != 0) {
            CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, bad));
            CU_ASSERT_PTR_NULL(back.params.w);
            refused++;
        } else {
            if (!same_model(&m, &back)) printf("\n  byte %ld flipped: loaded a different model\n", off);
            CU_ASSERT_TRUE(same_model(&m, &back));
            same++;
        }
        nn_model_free(&back);
    }
    printf("(%d refused, %d unchanged) ", refused, same);
    CU_ASSERT_TRUE(refused >= 50);
    /* a byte inside one tensor's chunk: its checksum refuses it, naming the tensor */
    {
        hid_t f0 = H5Fopen(a, H5F_ACC_RDONLY, H5P_DEFAULT);
        hid_t ds = H5Dopen2(f0, "/adam_m/value.hidden.w", H5P_DEFAULT);
        haddr_t addr = 0;
        hsize_t size = 0, coff[2];
        unsigned fmask;
        hid_t space = H5Dget_space(ds);
        CU_ASSERT_FATAL(H5Dget_chunk_info(ds, space, 0, coff, &fmask, &addr, &size) >= 0);
        H5Sclose(space);
        H5Dclose(ds);
        H5Fclose(f0);
        CU_ASSERT_FATAL(size > 8 && (long)(addr + size) <= na);
        ba[addr + size / 2] ^= 0x01;
        tu_write_bytes(bad, ba, na);
        ba[addr + size / 2] ^= 0x01;
        expect_refused(bad, &ld, 15, "'/adam_m/value.hidden.w'");
    }
    /* truncated anywhere */
    const long cut[] = {0, 7, 100, na / 4, na / 2, na - 100, na - 1};
    for (size_t i = 0; i < sizeof cut / sizeof cut[0]; i++) {
        tu_write_bytes(bad, ba, cut[i]);
        expect_refused(bad, &ld, 15, NULL);
    }
    /* a missing file */
    expect_refused("/nonexistent/m.h5", &ld, 15, "No such file");
    /* an unwritable place: a clean error */
    CU_ASSERT_EQUAL(nn_model_save(&m, "/nonexistent/dir/m.h5", &ld, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/nonexistent/dir/m.h5"));
    free(ba);
    nn_model_free(&m);
}

/* Writes a fresh copy of the model to DIR/NAME.h5 (into path). */
static void fresh_copy(const NnModel *m, const LetterDist *ld, const char *dir, const char *name, char *path,
                       size_t cap) {
    snprintf(path, cap, "%s/%s.h5", dir, name);
    RkError err;
    CU_ASSERT_EQUAL_FATAL(nn_model_save(m, path, ld, &err), 0);
}

static void test_mismatched_and_edited(void) {
    LetterDist ld;
    ld_english(&ld);
    char dir[256], a[512], p[512];
    tu_tmpdir(dir, sizeof dir);
    NnModel m;
    unsigned char *ba;
    saved_model(dir, a, sizeof a, &m, &ld, &ba);
    free(ba);
    RkError err;
    /* another board side or distribution */
    expect_refused(a, &ld, 21, "board side 15, expected 21");
    LetterDist tiny;
    tu_tiny_ld(&tiny);
    expect_refused(a, &tiny, 15, "27 letters, the distribution has 6");
    snprintf(p, sizeof p, "%s/tiny.h5", dir);
    CU_ASSERT_EQUAL(nn_model_save(&m, p, &tiny, &err), -1); /* and the model is not saved for it */
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "letters"));
    /* versions: refused by load, still described by peek */
    fresh_copy(&m, &ld, dir, "feature", p, sizeof p);
    set_attr_int(p, "feature_version", 99);
    char want[128];
    snprintf(want, sizeof want, "feature version 99, this build computes %d..%d", NN_FEATURE_VERSION_MIN,
             NN_FEATURE_VERSION);
    expect_refused(p, &ld, 15, want);
    NnModelInfo in;
    CU_ASSERT_EQUAL(nn_model_peek(p, &in, &err), 0);
    CU_ASSERT_EQUAL(in.feature_version, 99);
    fresh_copy(&m, &ld, dir, "version", p, sizeof p);
    set_attr_int(p, "model_version", 2);
    expect_refused(p, &ld, 15, "model version 2");
    /* an invalid architecture */
    fresh_copy(&m, &ld, dir, "arch", p, sizeof p);
    set_attr_int(p, "channels", 0);
    expect_refused(p, &ld, 15, "invalid architecture");
    fresh_copy(&m, &ld, dir, "arch2", p, sizeof p);
    set_attr_int(p, "blocks", 2); /* valid, but the file holds one block's tensors */
    expect_refused(p, &ld, 15, "'/weights/trunk.block1.conv1.w'");
    fresh_copy(&m, &ld, dir, "step", p, sizeof p);
    set_attr_int(p, "train_step", -1);
    expect_refused(p, &ld, 15, "train_step");
    fresh_copy(&m, &ld, dir, "prior", p, sizeof p);
    set_attr_int(p, "prior_equity", 2);
    expect_refused(p, &ld, 15, "'prior_equity' = 2");
    /* a model written before the attribute existed has the score prior */
    fresh_copy(&m, &ld, dir, "noprior", p, sizeof p);
    set_attr_int(p, "prior_equity", 1);
    {
        NnModel back;
        CU_ASSERT_EQUAL_FATAL(nn_model_load(&back, p, &ld, 15, &err), 0);
        CU_ASSERT_EQUAL(back.arch.prior_equity, 1);
        nn_model_free(&back);
        hid_t f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
        CU_ASSERT(H5Adelete(f, "prior_equity") >= 0);
        H5Fclose(f);
        CU_ASSERT_EQUAL_FATAL(nn_model_load(&back, p, &ld, 15, &err), 0);
        CU_ASSERT_EQUAL(back.arch.prior_equity, 0);
        nn_model_free(&back);
    }
    /* a NaN in one weight */
    fresh_copy(&m, &ld, dir, "nan", p, sizeof p);
    {
        int i = nnp_find(&m.params, "value.hidden.w");
        CU_ASSERT_FATAL(i >= 0);
        size_t n = m.params.p[i].n;
        float *w = malloc(n * sizeof *w);
        memcpy(w, nnp_w(&m.params, i), n * sizeof *w);
        w[n / 2] = NAN;
        hid_t f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
        hid_t ds = H5Dopen2(f, "/weights/value.hidden.w", H5P_DEFAULT);
        CU_ASSERT_FATAL(ds >= 0);
        CU_ASSERT(H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, w) >= 0);
        H5Dclose(ds);
        H5Fclose(f);
        free(w);
        expect_refused(p, &ld, 15, "'/weights/value.hidden.w' has a non-finite value");
    }
    /* a missing tensor, one of another shape, one too many */
    fresh_copy(&m, &ld, dir, "missing", p, sizeof p);
    {
        hid_t f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
        CU_ASSERT(H5Ldelete(f, "/adam_v/hidden.out.b", H5P_DEFAULT) >= 0);
        H5Fclose(f);
    }
    expect_refused(p, &ld, 15, "no dataset '/adam_v/hidden.out.b'");
    fresh_copy(&m, &ld, dir, "shape", p, sizeof p);
    {
        hid_t f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
        CU_ASSERT(H5Ldelete(f, "/weights/embed.w", H5P_DEFAULT) >= 0);
        hsize_t dims[2] = {8, 12}; /* embed.w is [C + S, E] = [4 + 64, 8] */
        hid_t space = H5Screate_simple(2, dims, NULL);
        hid_t ds = H5Dcreate2(f, "/weights/embed.w", H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        CU_ASSERT(ds >= 0);
        H5Dclose(ds);
        H5Sclose(space);
        H5Fclose(f);
    }
    expect_refused(p, &ld, 15, "'/weights/embed.w' dimension 0 is 8, expected 68");
    fresh_copy(&m, &ld, dir, "extra", p, sizeof p);
    {
        hid_t f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
        hsize_t one = 1;
        hid_t space = H5Screate_simple(1, &one, NULL);
        hid_t ds = H5Dcreate2(f, "/adam_m/stray.b", H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        CU_ASSERT(ds >= 0);
        H5Dclose(ds);
        H5Sclose(space);
        H5Fclose(f);
    }
    expect_refused(p, &ld, 15, "'/adam_m' has");
    nn_model_free(&m);
}

static void test_peek_tells_shards(void) {
    LetterDist ld;
    ld_english(&ld);
    char dir[256], p[512];
    tu_tmpdir(dir, sizeof dir);
    snprintf(p, sizeof p, "%s/shard.h5", dir);
    ShardSet set;
    shardset_init(&set);
    RkError err;
    CU_ASSERT_EQUAL_FATAL(shard_write(p, &set, 0, 0, &ld, 15, 1, &err), 0);
    NnModelInfo in;
    CU_ASSERT_EQUAL(nn_model_peek(p, &in, &err), -1);
    CU_ASSERT_FALSE(in.is_model);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "not a rookery model"));
    expect_refused(p, &ld, 15, "not a rookery model");
    snprintf(p, sizeof p, "%s/text.h5", dir);
    CU_ASSERT_EQUAL_FATAL(tu_write_file(p, "not hdf5 at all\n"), 0);
    CU_ASSERT_EQUAL(nn_model_peek(p, &in, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "not an HDF5 file"));
    shardset_free(&set);
}

int main(void) {
    H5dont_atexit(); /* as the CLI: no teardown message after the damaged files */
    CU_TestInfo tests[] = {
        {"model round trip: weights, moments, counters, architecture; peek", test_round_trip},
        {"the same model gives the same bytes", test_same_bytes},
        {"damaged and truncated files refused or unchanged, never wrong", test_damaged},
        {"mismatched and edited files refused with the file and tensor named", test_mismatched_and_edited},
        {"peek tells a model from a shard", test_peek_tells_shards},
        CU_TEST_INFO_NULL,
    };
    return tu_run("nn_model_io", tests);
}
