/*
 * model.c - the P/V/H network's parameters (see model.h); the forward and
 * backward passes are in model_forward.c and model_train.c.
 */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int nn_arch_check(const NnArch *a, RkError *err) {
    if (a->channels < 1 || a->channels > 512) return rk_error(err, "nn: channels %d out of 1..512", a->channels);
    if (a->blocks < 0 || a->blocks > 40) return rk_error(err, "nn: blocks %d out of 0..40", a->blocks);
    if (a->embed < 1 || a->embed > 4096) return rk_error(err, "nn: embed %d out of 1..4096", a->embed);
    if (a->head_hidden < 1 || a->head_hidden > 4096)
        return rk_error(err, "nn: head_hidden %d out of 1..4096", a->head_hidden);
    if (a->h_tiles < 1 || a->h_tiles > 2) return rk_error(err, "nn: h_tiles %d is not 1 or 2", a->h_tiles);
    if (a->prior_equity < 0 || a->prior_equity > 1)
        return rk_error(err, "nn: prior_equity %d is not 0 or 1", a->prior_equity);
    if (a->h_pool_prior < 0 || a->h_pool_prior > 1)
        return rk_error(err, "nn: h_pool_prior %d is not 0 or 1", a->h_pool_prior);
    if (a->feature_version != 0 &&
        (a->feature_version < NN_FEATURE_VERSION_MIN || a->feature_version > NN_FEATURE_VERSION))
        return rk_error(err, "nn: feature version %d, this build computes %d..%d", a->feature_version,
                        NN_FEATURE_VERSION_MIN, NN_FEATURE_VERSION);
    return 0;
}

int nn_model_init(NnModel *m, const NnArch *arch, const LetterDist *ld, int dim, uint64_t seed, RkError *err) {
    memset(m, 0, sizeof *m);
    if (nn_arch_check(arch, err) != 0) return -1;
    if (dim < 1 || dim > RK_MAX_DIM) return rk_error(err, "nn: board side %d", dim);
    m->arch = *arch;
    if (m->arch.feature_version == 0) m->arch.feature_version = NN_FEATURE_VERSION_DEFAULT;
    m->fs = nn_feature_shape(ld, dim, m->arch.feature_version);
    m->ps = nn_policy_shape(ld, dim);
    int L = m->fs.letters, C = arch->channels, E = arch->embed, Hh = arch->head_hidden, S = m->fs.scalars;
    m->h_outputs = arch->h_tiles == 1 ? L + 1 : (L + 1) * (L + 1);
    NnParams *ps = &m->params;
    nnp_init(ps);
    nn_conv3_declare(&m->stem, ps, "trunk.stem", dim, m->fs.planes, C);
    nn_dense_declare(&m->scalar_in, ps, "trunk.scalars", S, C);
    if (arch->blocks > 0) {
        m->block = calloc((size_t)arch->blocks, sizeof *m->block);
        if (!m->block) return rk_error(err, "nn: out of memory");
    }
    for (int i = 0; i < arch->blocks; i++) {
        char name[32];
        snprintf(name, sizeof name, "trunk.block%d", i);
        nn_resblock_declare(&m->block[i], ps, name, dim, C);
    }
    nn_dense_declare(&m->embed, ps, "embed", C + S, E);
    nn_dense_declare(&m->v_hidden, ps, "value.hidden", E, Hh);
    nn_dense_declare(&m->v_out, ps, "value.out", Hh, 4);
    nn_dense_declare(&m->sub_sq, ps, "policy.submove_square", C, 2 * RK_RACK_SIZE);
    nn_dense_declare(&m->sub_glob, ps, "policy.submove_global", E, RK_RACK_SIZE + 1);
    nn_dense_declare(&m->step_hidden, ps, "policy.step_hidden", E + C + NN_STEP_CONTEXT(L), Hh);
    nn_dense_declare(&m->step_out, ps, "policy.step_out", Hh, m->ps.tokens);
    nn_dense_declare(&m->h_hidden, ps, "hidden.hidden", E + NN_H_CONTEXT(L), Hh);
    nn_dense_declare(&m->h_out, ps, "hidden.out", Hh, m->h_outputs);
    int two[1] = {2};
    m->score_prior = nnp_declare(ps, "policy.score_prior", 1, two, false);
    if (nnp_alloc(ps) != 0) {
        nn_model_free(m);
        return rk_error(err, "nn: out of memory for %zu parameters", ps->total);
    }
    Rng rng;
    rng_seed(&rng, seed);
    nn_conv3_init(&m->stem, ps, 1.0f, &rng);
    nn_dense_init(&m->scalar_in, ps, 1.0f, &rng);
    for (int i = 0; i < arch->blocks; i++) nn_resblock_init(&m->block[i], ps, &rng);
    nn_dense_init(&m->embed, ps, 1.0f, &rng);
    nn_dense_init(&m->v_hidden, ps, 1.0f, &rng);
    nn_dense_init(&m->v_out, ps, 0.1f, &rng);
    nn_dense_init(&m->sub_sq, ps, 0.1f, &rng);
    nn_dense_init(&m->sub_glob, ps, 0.1f, &rng);
    nn_dense_init(&m->step_hidden, ps, 1.0f, &rng);
    nn_dense_init(&m->step_out, ps, 0.1f, &rng);
    nn_dense_init(&m->h_hidden, ps, 1.0f, &rng);
    nn_dense_init(&m->h_out, ps, 0.1f, &rng);
    nnp_w(ps, m->score_prior)[0] = nnp_w(ps, m->score_prior)[1] = 5.0f;
    return 0;
}

void nn_model_free(NnModel *m) {
    nnp_free(&m->params);
    free(m->block);
    m->block = NULL;
}
