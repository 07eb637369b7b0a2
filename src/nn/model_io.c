/*
 * model_io.c - model.h5: saving, loading and peeking at a model's file (see
 * model_io.h and docs/model.md).
 *
 * Each tensor is one chunk (its whole shape) with shuffle + deflate and a
 * Fletcher-32 checksum, so a damaged weight is a read error naming the
 * tensor, never a silently different network. The loader reads straight
 * into the model's blocks; nothing is kept from a failed load.
 */
#include "model_io.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "h5util.h"
#include "params_io.h"

/* The integer attributes, in the order they are written. */
enum { A_MODEL_VERSION, A_FEATURE_VERSION, A_CHANNELS, A_BLOCKS, A_EMBED, A_HEAD_HIDDEN, A_H_TILES, A_DIM,
       A_LETTERS, A_TRAIN_STEP, A_GENERATION, A_COUNT };
static const char *const attr_name[A_COUNT] = {"model_version", "feature_version", "channels", "blocks",
                                               "embed",         "head_hidden",     "h_tiles",  "dim",
                                               "letters",       "train_step",      "generation"};

int nn_model_save(const NnModel *m, const char *path, const LetterDist *ld, RkError *err) {
    const NnParams *ps = &m->params;
    if (ld->size != m->fs.letters + 1)
        return rk_error(err, "%s: the model is for %d letters, the distribution has %d", path, m->fs.letters + 1,
                        ld->size);
    if (ps->w == NULL) return rk_error(err, "%s: the model has no parameters to save", path);
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) return rk_error(err, "%s: path too long", path);
    hid_t file = h5u_create(tmp, H5F_LIBVER_V110, err);
    if (file < 0) return -1;
    int64_t v[A_COUNT];
    v[A_MODEL_VERSION] = NN_MODEL_VERSION;
    v[A_FEATURE_VERSION] = m->fs.version;
    v[A_CHANNELS] = m->arch.channels;
    v[A_BLOCKS] = m->arch.blocks;
    v[A_EMBED] = m->arch.embed;
    v[A_HEAD_HIDDEN] = m->arch.head_hidden;
    v[A_H_TILES] = m->arch.h_tiles;
    v[A_DIM] = m->fs.dim;
    v[A_LETTERS] = ld->size;
    v[A_TRAIN_STEP] = m->train_step;
    v[A_GENERATION] = m->generation;
    int bad = 0;
    H5E_BEGIN_TRY {
        bad |= h5u_write_attr_str(file, "format", NN_MODEL_FORMAT);
        for (int a = 0; a < A_COUNT; a++) bad |= h5u_write_attr_int(file, attr_name[a], v[a]);
        bad |= h5u_write_attr_str(file, "distribution", ld->name);
        bad |= h5u_write_attr_int(file, "prior_equity", m->arch.prior_equity);
        bad |= h5u_write_attr_int(file, "h_pool_prior", m->arch.h_pool_prior);
        if (!bad) bad |= nn_params_write(file, ps);
        if (H5Fclose(file) < 0) bad = 1;
    }
    H5E_END_TRY;
    if (bad) {
        unlink(tmp);
        return rk_error(err, "%s: writing the model failed (disk full?)", tmp);
    }
    return h5u_commit(tmp, path, err);
}

/* The root attributes of an open file (quiet: the caller is inside
 * H5E_BEGIN_TRY). */
static int read_header(hid_t file, const char *path, NnModelInfo *in, RkError *err) {
    memset(in, 0, sizeof *in);
    char format[32];
    if (h5u_read_attr_str(file, "format", format, sizeof format) != 0 || strcmp(format, NN_MODEL_FORMAT) != 0)
        return rk_error(err, "%s: not a rookery model (no format attribute \"%s\")", path, NN_MODEL_FORMAT);
    in->is_model = true;
    int64_t v[A_COUNT];
    for (int a = 0; a < A_COUNT; a++)
        if (h5u_read_attr_int(file, attr_name[a], &v[a]) != 0)
            return rk_error(err, "%s: model attribute '%s' is missing or not an integer", path, attr_name[a]);
    if (h5u_read_attr_str(file, "distribution", in->distribution, sizeof in->distribution) != 0)
        return rk_error(err, "%s: model attribute 'distribution' is missing or not a short string", path);
    for (int a = A_MODEL_VERSION; a <= A_H_TILES; a++)
        if (v[a] < INT_MIN || v[a] > INT_MAX)
            return rk_error(err, "%s: model attribute '%s' = %lld is out of range", path, attr_name[a], (long long)v[a]);
    if (v[A_DIM] < 1 || v[A_DIM] > RK_MAX_DIM)
        return rk_error(err, "%s: board side %lld is out of 1..%d", path, (long long)v[A_DIM], RK_MAX_DIM);
    if (v[A_LETTERS] < 2 || v[A_LETTERS] > RK_MAX_LETTERS)
        return rk_error(err, "%s: %lld letters is out of 2..%d", path, (long long)v[A_LETTERS], RK_MAX_LETTERS);
    if (v[A_TRAIN_STEP] < 0) return rk_error(err, "%s: train_step %lld is negative", path, (long long)v[A_TRAIN_STEP]);
    if (v[A_GENERATION] < 0 || v[A_GENERATION] > UINT32_MAX)
        return rk_error(err, "%s: generation %lld is out of range", path, (long long)v[A_GENERATION]);
    in->model_version = (int)v[A_MODEL_VERSION];
    in->feature_version = (int)v[A_FEATURE_VERSION];
    in->arch.feature_version = in->feature_version;
    in->arch.channels = (int)v[A_CHANNELS];
    in->arch.blocks = (int)v[A_BLOCKS];
    in->arch.embed = (int)v[A_EMBED];
    in->arch.head_hidden = (int)v[A_HEAD_HIDDEN];
    in->arch.h_tiles = (int)v[A_H_TILES];
    /* optional (models written before it have a score prior) */
    int64_t pe = 0;
    htri_t has = H5Aexists(file, "prior_equity");
    if (has < 0 || (has > 0 && h5u_read_attr_int(file, "prior_equity", &pe) != 0))
        return rk_error(err, "%s: model attribute 'prior_equity' is not an integer", path);
    if (pe < 0 || pe > 1) return rk_error(err, "%s: model attribute 'prior_equity' = %lld is not 0 or 1", path, (long long)pe);
    in->arch.prior_equity = (int)pe;
    int64_t hp = 0; /* optional too (models written before it have no pool prior) */
    has = H5Aexists(file, "h_pool_prior");
    if (has < 0 || (has > 0 && h5u_read_attr_int(file, "h_pool_prior", &hp) != 0))
        return rk_error(err, "%s: model attribute 'h_pool_prior' is not an integer", path);
    if (hp < 0 || hp > 1)
        return rk_error(err, "%s: model attribute 'h_pool_prior' = %lld is not 0 or 1", path, (long long)hp);
    in->arch.h_pool_prior = (int)hp;
    in->dim = (int)v[A_DIM];
    in->letters = (int)v[A_LETTERS];
    in->train_step = v[A_TRAIN_STEP];
    in->generation = (uint32_t)v[A_GENERATION];
    return 0;
}

int nn_model_peek(const char *path, NnModelInfo *info, RkError *err) {
    memset(info, 0, sizeof *info);
    hid_t file = h5u_open_read(path, err);
    if (file < 0) return -1;
    int rc;
    H5E_BEGIN_TRY {
        rc = read_header(file, path, info, err);
        H5Fclose(file);
    }
    H5E_END_TRY;
    return rc;
}

int nn_model_load(NnModel *m, const char *path, const LetterDist *ld, int dim, RkError *err) {
    memset(m, 0, sizeof *m);
    hid_t file = h5u_open_read(path, err);
    if (file < 0) return -1;
    int rc = -1;
    H5E_BEGIN_TRY {
        NnModelInfo in;
        RkError why;
        if (read_header(file, path, &in, err) != 0) goto out;
        if (in.model_version != NN_MODEL_VERSION) {
            rk_error(err, "%s: model version %d, this build reads version %d", path, in.model_version,
                     NN_MODEL_VERSION);
            goto out;
        }
        if (in.feature_version < NN_FEATURE_VERSION_MIN || in.feature_version > NN_FEATURE_VERSION) {
            rk_error(err, "%s: feature version %d, this build computes %d..%d", path, in.feature_version,
                     NN_FEATURE_VERSION_MIN, NN_FEATURE_VERSION);
            goto out;
        }
        if (in.letters != ld->size) {
            rk_error(err, "%s: %d letters, the distribution has %d", path, in.letters, ld->size);
            goto out;
        }
        if (in.dim != dim) {
            rk_error(err, "%s: board side %d, expected %d", path, in.dim, dim);
            goto out;
        }
        if (nn_arch_check(&in.arch, &why) != 0) {
            rk_error(err, "%s: invalid architecture (%s)", path, why.msg);
            goto out;
        }
        if (nn_model_init(m, &in.arch, ld, dim, 0, &why) != 0) {
            rk_error(err, "%s: %s", path, why.msg);
            goto out;
        }
        m->train_step = in.train_step;
        m->generation = in.generation;
        if (nn_params_read(file, &m->params, path, err) != 0) goto out;
        rc = 0;
    out:
        H5Fclose(file);
    }
    H5E_END_TRY;
    if (rc != 0) nn_model_free(m);
    return rc;
}
