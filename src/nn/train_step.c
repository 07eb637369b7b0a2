/*
 * train_step.c - losses and gradients of the P/V/H network on a chunk of
 * samples (see train_step.h; the forward passes are forward.c's).
 */
#include "train_step.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double nn_loss_total(const NnLossSums *s) {
    if (s->samples <= 0) return 0.0;
    return (s->wdl + s->spread + s->sub + s->steps + s->hidden) / s->samples;
}

int nn_grad_scratch_init(NnGradScratch *g, const NnModel *m, int cap, RkError *err) {
    memset(g, 0, sizeof *g);
    g->cap = cap;
    size_t n = (size_t)cap, sq = (size_t)m->fs.squares, C = (size_t)m->arch.channels, E = (size_t)m->arch.embed;
    size_t S = (size_t)m->fs.scalars, Hh = (size_t)m->arch.head_hidden;
    g->dE = malloc(n * E * sizeof(float));
    g->tmpE = malloc(n * E * sizeof(float));
    g->dT = malloc(n * sq * C * sizeof(float));
    g->dT2 = malloc(n * sq * C * sizeof(float));
    g->dsub_sq = malloc(n * (size_t)m->ps.submoves * sizeof(float));
    g->dglob = malloc(n * (RK_RACK_SIZE + 1) * sizeof(float));
    g->dvout = malloc(n * 4 * sizeof(float));
    g->dvh = malloc(n * Hh * sizeof(float));
    g->dpin = malloc(n * (C + S) * sizeof(float));
    g->dsb = malloc(n * C * sizeof(float));
    size_t big = (size_t)m->ps.submoves > (size_t)m->h_outputs ? (size_t)m->ps.submoves : (size_t)m->h_outputs;
    g->onehot = calloc(big, sizeof(float));
    g->lsub = malloc((size_t)m->ps.submoves * sizeof(float));
    if (!g->dE || !g->tmpE || !g->dT || !g->dT2 || !g->dsub_sq || !g->dglob || !g->dvout || !g->dvh || !g->dpin ||
        !g->dsb || !g->onehot || !g->lsub) {
        nn_grad_scratch_free(g);
        return rk_error(err, "nn: out of memory for the gradients of %d samples", cap);
    }
    return 0;
}

void nn_grad_scratch_free(NnGradScratch *g) {
    free(g->dE), free(g->tmpE), free(g->dT), free(g->dT2), free(g->dsub_sq), free(g->dglob), free(g->dvout);
    free(g->dvh), free(g->dpin), free(g->dsb), free(g->onehot), free(g->rdout), free(g->rdhid), free(g->rdin);
    free(g->cand), free(g->lsub);
    memset(g, 0, sizeof *g);
}

static void row_scratch(NnGradScratch *g, const NnModel *m, const NnRows *r) {
    /* sized in floats: the heads' rows differ in width (the step head's
     * T outputs, H's outputs, the hidden width), so a count of rows that
     * fitted one head's rows need not fit another's */
    size_t wide = (size_t)(r->in_dim > r->out_dim ? r->in_dim : r->out_dim);
    if ((size_t)m->arch.head_hidden > wide) wide = (size_t)m->arch.head_hidden;
    size_t need = (size_t)r->n * wide;
    if (need <= g->rcap) return;
    size_t cap = need + need / 2 + 64 * wide;
    free(g->rdout), free(g->rdhid), free(g->rdin);
    g->rdout = malloc(cap * sizeof(float));
    g->rdhid = malloc(cap * sizeof(float));
    g->rdin = malloc(cap * sizeof(float));
    if (!g->rdout || !g->rdhid || !g->rdin) abort();
    g->rcap = cap;
}

/* Backward through a two-layer row head: dE of each row's position gets
 * the embedding part of din; policy rows also give dT at their square. */
static void rows_backward(NnModel *m, NnGradScratch *g, const NnDense *hidden, const NnDense *out, const NnRows *r,
                          bool policy) {
    if (r->n == 0) return;
    NnParams *ps = &m->params;
    size_t Hh = (size_t)m->arch.head_hidden, E = (size_t)m->arch.embed, C = (size_t)m->arch.channels;
    size_t sq = (size_t)m->fs.squares;
    nn_dense_backward(out, ps, r->hid, g->rdout, r->n, g->rdhid);
    nn_relu_backward(r->hid, g->rdhid, (size_t)r->n * Hh, g->rdhid);
    nn_dense_backward(hidden, ps, r->in, g->rdhid, r->n, g->rdin);
    for (int j = 0; j < r->n; j++) {
        const float *din = g->rdin + (size_t)j * (size_t)r->in_dim;
        float *de = g->dE + (size_t)r->pos[j] * E;
        for (size_t e = 0; e < E; e++) de[e] += din[e];
        if (policy && r->square[j] >= 0) {
            float *dt = g->dT + ((size_t)r->pos[j] * sq + (size_t)r->square[j]) * C;
            for (size_t c = 0; c < C; c++) dt[c] += din[E + c];
        }
    }
}

NnLossOptions nn_loss_options_default(void) {
    return (NnLossOptions){.search_weight = 0.0f,
                           .value_weight = 1.0f,
                           .policy_loss = NN_POLICY_LOSS_DIRECT,
                           .product_candidates = 16,
                           .product_temperature = 10.0f};
}

int nn_loss_options_check(const NnLossOptions *o, const NnModel *m, RkError *err) {
    if (!(o->search_weight >= 0.0f && o->search_weight <= 1.0f))
        return rk_error(err, "nn: value_search_weight %g is not within [0, 1]", (double)o->search_weight);
    if (!(o->value_weight > 0.0f && o->value_weight <= 100.0f))
        return rk_error(err, "nn: value_weight %g is not within (0, 100]", (double)o->value_weight);
    if (o->policy_loss != NN_POLICY_LOSS_DIRECT && o->policy_loss != NN_POLICY_LOSS_PRODUCT)
        return rk_error(err, "nn: unknown policy loss %d", (int)o->policy_loss);
    if (o->policy_loss == NN_POLICY_LOSS_DIRECT) return 0;
    if (o->product_candidates < 1 || o->product_candidates > NN_PRODUCT_MAX)
        return rk_error(err, "nn: product_candidates %d is not within [1, %d]", o->product_candidates, NN_PRODUCT_MAX);
    if (!(o->product_temperature > 0.0f) || !isfinite(o->product_temperature))
        return rk_error(err, "nn: product_temperature %g is not > 0", (double)o->product_temperature);
    if (m && !m->arch.prior_equity)
        return rk_error(err, "nn: policy_loss = product needs a model whose prior values moves by static equity "
                             "(nn.prior = equity); this model's values them by score");
    return 0;
}

/* One candidate move of the product loss. */
typedef struct NnCandidate {
    int sample, legal, sub; /* batch position, index in its NnLegal, sub-move */
    int row0, rows;         /* its step rows */
    float target;           /* its share of the target (0 if it has none) */
    double lp;              /* log P */
} NnCandidate;

static NnCandidate *candidate_add(NnGradScratch *g, int sample, int legal) {
    void *p = g->cand;
    if (rk_grow(&p, &g->cand_cap, g->cand_n + 1, sizeof *g->cand) != 0) abort(); /* as the rows' scratch */
    g->cand = p;
    NnCandidate *c = &g->cand[g->cand_n++];
    *c = (NnCandidate){.sample = sample, .legal = legal};
    return c;
}

/* d/dw0 of the sub-move logits' score prior w0 x prior, from position i's
 * sub-move gradient. */
static void submove_prior_grad(NnModel *m, const NnBatch *b, const NnGradScratch *g, int i) {
    size_t per = (size_t)m->ps.submoves;
    const float *d = g->dsub_sq + (size_t)i * per, *prior = b->sub_prior + (size_t)i * per;
    double acc = 0;
    for (size_t k = 0; k < per; k++) acc += (double)d[k] * (double)prior[k];
    nnp_g(&m->params, m->score_prior)[0] += (float)acc;
}

/* The step rows of move pm (sub-move sub) of position i; returns the first. */
static int move_rows_add(NnModel *m, NnBatch *b, int i, const PackedMove *pm, int sub, float weight) {
    NnRows *r = &b->steps;
    int first = r->n;
    uint8_t prefix[RK_RACK_SIZE];
    for (int k = 0; k < pm->n; k++) {
        int row = nn_step_row_add(m, b, i, pm, sub, prefix, k);
        r->target[row] = nn_step_token(&m->ps, pm, k);
        r->weight[row] = weight;
        prefix[k] = (uint8_t)r->target[row];
    }
    return first;
}

/* The direct loss: the sub-move cross-entropy of each sample with a
 * target (its gradient into dsub_sq) and the step rows of its target's
 * moves, weighted by their probability. */
static void direct_submoves(NnModel *m, NnBatch *b, NnGradScratch *g, const ShardSet *set, const size_t *idx, int n,
                            float scale, bool backward, NnLossSums *sums) {
    const NnPolicyShape *pshape = &m->ps;
    size_t per = (size_t)pshape->submoves;
    float *target = g->onehot;
    for (int i = 0; i < n; i++) {
        const ShardSample *s = &set->s[idx[i]];
        const NnLegal *lg = &b->legal[i];
        memset(target, 0, per * sizeof(float));
        double mass = 0;
        for (uint32_t j = 0; j < s->policy_count; j++) {
            const PackedMove *pm = &set->pmove[s->policy_start + j];
            float p = set->pprob[s->policy_start + j];
            if (p <= 0.0f || nn_legal_find(lg, pshape, pm) < 0) continue; /* (always legal in our shards) */
            target[nn_submove_index(pshape, pm)] += p;
            mass += p;
        }
        if (mass <= 0) { /* no target: no sub-move loss or gradient */
            memset(g->dsub_sq + (size_t)i * per, 0, per * sizeof(float));
            continue;
        }
        sums->policy_samples += 1.0;
        for (size_t k = 0; k < per; k++) target[k] = (float)(target[k] / mass);
        sums->sub += nn_xent_masked(b->sub + (size_t)i * per, b->sub_mask + (size_t)i * per, target, (int)per, scale,
                                    g->dsub_sq + (size_t)i * per);
        if (backward) submove_prior_grad(m, b, g, i);
        for (uint32_t j = 0; j < s->policy_count; j++) {
            const PackedMove *pm = &set->pmove[s->policy_start + j];
            float p = set->pprob[s->policy_start + j];
            if (p <= 0.0f || nn_legal_find(lg, pshape, pm) < 0) continue;
            move_rows_add(m, b, i, pm, nn_submove_index(pshape, pm), (float)(p / mass));
        }
    }
}

/* The product loss's candidates of each sample with a target (the
 * target's moves, then the K legal moves of highest equity not among
 * them), with log P's sub-move part, and their step rows. */
static void product_rows(NnModel *m, NnBatch *b, NnGradScratch *g, const ShardSet *set, const size_t *idx, int n,
                         const NnLossOptions *lo) {
    const NnPolicyShape *pshape = &m->ps;
    size_t per = (size_t)pshape->submoves;
    int K = lo->product_candidates, top[NN_PRODUCT_MAX];
    g->cand_n = 0;
    for (int i = 0; i < n; i++) {
        const ShardSample *s = &set->s[idx[i]];
        const NnLegal *lg = &b->legal[i];
        memset(g->dsub_sq + (size_t)i * per, 0, per * sizeof(float));
        size_t first = g->cand_n;
        double mass = 0;
        for (uint32_t j = 0; j < s->policy_count; j++) {
            float p = set->pprob[s->policy_start + j];
            int li = p > 0.0f ? nn_legal_find(lg, pshape, &set->pmove[s->policy_start + j]) : -1;
            if (li < 0) continue;
            size_t c = first;
            while (c < g->cand_n && g->cand[c].legal != li) c++;
            NnCandidate *cd = c < g->cand_n ? &g->cand[c] : candidate_add(g, i, li);
            cd->target += p;
            mass += p;
        }
        if (mass <= 0) { /* no target: no loss, no candidates */
            g->cand_n = first;
            continue;
        }
        size_t targets = g->cand_n;
        for (size_t c = first; c < targets; c++) g->cand[c].target = (float)(g->cand[c].target / mass);
        /* the K highest priors (static equity), the earlier move first on a tie; never a pass (its
         * prior is 0, but the search ranks it below every move: a candidate only where it is a target) */
        int kept = 0, pass = pshape->submoves - 1;
        for (int j = 0; j < lg->n; j++) {
            if (lg->m[j].submove == pass) continue;
            if (kept == K && !(lg->m[j].prior > lg->m[top[K - 1]].prior)) continue;
            int at = kept < K ? kept++ : K - 1;
            while (at > 0 && lg->m[j].prior > lg->m[top[at - 1]].prior) top[at] = top[at - 1], at--;
            top[at] = j;
        }
        for (int k = 0; k < kept; k++) {
            size_t c = first;
            while (c < targets && g->cand[c].legal != top[k]) c++;
            if (c == targets) candidate_add(g, i, top[k]);
        }
        nn_log_softmax_masked(b->sub + (size_t)i * per, b->sub_mask + (size_t)i * per, (int)per, g->lsub);
        for (size_t c = first; c < g->cand_n; c++) {
            NnCandidate *cd = &g->cand[c];
            const PackedMove *pm = &lg->m[cd->legal].pm;
            cd->sub = nn_submove_index(pshape, pm);
            cd->lp = g->lsub[cd->sub];
            cd->row0 = move_rows_add(m, b, i, pm, cd->sub, 0.0f);
            cd->rows = pm->n;
        }
    }
}

/* After the rows' forward pass (each row's weight holds its step's
 * cross-entropy, -log p, and its gradient row the unscaled softmax -
 * onehot): per sample, q = softmax(log P + equity / T) over its
 * candidates, the loss -sum t log q, and the gradients: (q - t) on each
 * candidate's log P, into its sub-move and its step rows. */
static void product_losses(NnModel *m, NnBatch *b, NnGradScratch *g, float scale, const NnLossOptions *lo,
                           bool backward, NnLossSums *sums) {
    NnRows *r = &b->steps;
    size_t per = (size_t)m->ps.submoves, T = (size_t)m->ps.tokens;
    double invT = 1.0 / lo->product_temperature;
    size_t c0 = 0;
    while (c0 < g->cand_n) {
        int i = g->cand[c0].sample;
        size_t c1 = c0;
        while (c1 < g->cand_n && g->cand[c1].sample == i) c1++;
        const NnLegal *lg = &b->legal[i];
        double mx = -INFINITY, z = 0.0;
        for (size_t c = c0; c < c1; c++) {
            NnCandidate *cd = &g->cand[c];
            for (int k = 0; k < cd->rows; k++) cd->lp -= r->weight[cd->row0 + k];
            cd->lp += lg->m[cd->legal].prior * invT; /* now the product's logit */
            if (cd->lp > mx) mx = cd->lp;
        }
        for (size_t c = c0; c < c1; c++) z += exp(g->cand[c].lp - mx);
        double lz = mx + log(z), loss = 0.0;
        float *dsub = g->dsub_sq + (size_t)i * per;
        for (size_t c = c0; c < c1; c++) {
            const NnCandidate *cd = &g->cand[c];
            double q = exp(cd->lp - lz), t = cd->target;
            if (t > 0) loss -= t * (cd->lp - lz);
            dsub[cd->sub] += scale * (float)(q - t);
            float w = scale * (float)(t - q);
            for (int k = 0; k < cd->rows; k++) {
                float *d = g->rdout + (size_t)(cd->row0 + k) * T;
                for (size_t o = 0; o < T; o++) d[o] *= w;
            }
        }
        sums->sub += loss;
        sums->policy_samples += 1.0;
        if (backward) submove_prior_grad(m, b, g, i);
        c0 = c1;
    }
}

float nn_spread_target(const ShardSample *s, float search_weight) {
    double target = s->final_spread;
    if (search_weight > 0.0f && isfinite(s->search_spread))
        target = (1.0 - search_weight) * target + search_weight * s->search_spread;
    return (float)(target / 100.0);
}

/* V: the win/draw/loss cross-entropy and the spread's squared error of each sample, their
 * gradients into dvout. */
static void value_losses(NnBatch *b, NnGradScratch *g, const ShardSet *set, const size_t *idx, int n, float scale,
                         const NnLossOptions *lo, NnLossSums *sums) {
    for (int i = 0; i < n; i++) {
        const ShardSample *s = &set->s[idx[i]];
        float wdl[3] = {s->result > 0, s->result == 0, s->result < 0};
        float spread = nn_spread_target(s, lo->search_weight);
        float vs = scale * lo->value_weight;
        sums->wdl += nn_xent_masked(b->vout + (size_t)i * 4, NULL, wdl, 3, vs, g->dvout + (size_t)i * 4);
        sums->spread += nn_mse(b->vout + (size_t)i * 4 + 3, &spread, 1, vs, g->dvout + (size_t)i * 4 + 3);
        sums->samples += 1.0;
    }
}

/* P: sub-moves, and the step rows of the moves whose log P the loss needs; with backward,
 * the step head's gradients (and its part of dE and dT). */
static void policy_losses(NnModel *m, NnBatch *b, NnGradScratch *g, const ShardSet *set, const size_t *idx, int n,
                          float scale, const NnLossOptions *lo, bool backward, NnLossSums *sums) {
    size_t T = (size_t)m->ps.tokens;
    NnRows *r = &b->steps;
    r->n = 0;
    bool product = lo->policy_loss == NN_POLICY_LOSS_PRODUCT;
    if (product)
        product_rows(m, b, g, set, idx, n, lo);
    else
        direct_submoves(m, b, g, set, idx, n, scale, backward, sums);
    nn_rows_forward(m, &m->step_hidden, &m->step_out, r, nn_score_prior(m)[1]);
    row_scratch(g, m, r);
    float *target = g->onehot;
    for (int j = 0; j < r->n; j++) {
        memset(target, 0, T * sizeof(float));
        target[r->target[j]] = 1.0f;
        /* the product loss scales each row's gradient once q is known */
        float loss = nn_xent_masked(r->out + (size_t)j * T, r->mask + (size_t)j * T, target, (int)T,
                                    product ? 1.0f : scale * r->weight[j], g->rdout + (size_t)j * T);
        r->weight[j] = product ? loss : r->weight[j];
        if (!product) sums->steps += r->weight[j] * loss;
    }
    if (product) product_losses(m, b, g, scale, lo, backward, sums);
    double dprior = 0;
    for (size_t k = 0; k < (size_t)r->n * T; k++) dprior += (double)g->rdout[k] * (double)r->prior[k];
    if (backward) {
        nnp_g(&m->params, m->score_prior)[1] += (float)dprior;
        rows_backward(m, g, &m->step_hidden, &m->step_out, r, true);
    }
}

/* H: the opponent's leave, t tiles a step in ML order (its rows' gradients in rdout). */
static void hidden_losses(NnModel *m, NnBatch *b, NnGradScratch *g, const ShardSet *set, const size_t *idx, int n,
                          float scale, NnLossSums *sums) {
    NnRows *h = &b->hidden;
    h->n = 0;
    for (int i = 0; i < n; i++) {
        const ShardSample *s = &set->s[idx[i]];
        int size = s->opp_leave.total;
        if (!s->opp_leave_known || size == 0) continue;
        int first = h->n, rows = nn_hidden_rows_add(m, b, i, &s->opp_leave);
        if (rows < 0) continue; /* a leave outside the pool (shards are validated against this) */
        for (int row = first; row < first + rows; row++) h->weight[row] = 1.0f / (float)size;
        sums->hidden_samples += 1.0;
    }
    nn_rows_forward(m, &m->h_hidden, &m->h_out, h, nn_hidden_prior_weight(m));
    row_scratch(g, m, h);
    float *target = g->onehot;
    size_t HO = (size_t)h->out_dim;
    for (int j = 0; j < h->n; j++) {
        memset(target, 0, HO * sizeof(float));
        target[h->target[j]] = 1.0f;
        sums->hidden += h->weight[j] * nn_xent_masked(h->out + (size_t)j * HO, h->mask + (size_t)j * HO, target,
                                                      (int)HO, scale * h->weight[j], g->rdout + (size_t)j * HO);
    }
}

/* The value and sub-move heads backward: their parts of dE (the embedding) and dT (the
 * trunk's output). */
static void heads_backward(NnModel *m, NnBatch *b, NnGradScratch *g, int n) {
    NnParams *ps = &m->params;
    const NnPolicyShape *pshape = &m->ps;
    size_t sq = (size_t)m->fs.squares, C = (size_t)m->arch.channels, E = (size_t)m->arch.embed;
    size_t per = (size_t)pshape->submoves;
    int Hh = m->arch.head_hidden;
    /* V backward */
    nn_dense_backward(&m->v_out, ps, b->vh, g->dvout, n, g->dvh);
    nn_relu_backward(b->vh, g->dvh, (size_t)n * (size_t)Hh, g->dvh);
    nn_dense_backward(&m->v_hidden, ps, b->emb, g->dvh, n, g->tmpE);
    for (size_t k = 0; k < (size_t)n * E; k++) g->dE[k] += g->tmpE[k];
    /* sub-moves backward: the per-square part into dT, the global part into dE */
    for (int i = 0; i < n; i++)
        memcpy(g->dglob + (size_t)i * (RK_RACK_SIZE + 1), g->dsub_sq + (size_t)i * per + pshape->placements,
               (RK_RACK_SIZE + 1) * sizeof(float));
    float *T_out = b->act + (size_t)m->arch.blocks * (size_t)b->cap * sq * C;
    /* dsub_sq holds [n, per]; the square part of position i is its first
     * placements floats: compact it to [n*sq, 14] in place */
    for (int i = 1; i < n; i++)
        memmove(g->dsub_sq + (size_t)i * (size_t)pshape->placements, g->dsub_sq + (size_t)i * per,
                (size_t)pshape->placements * sizeof(float));
    nn_dense_backward(&m->sub_sq, ps, T_out, g->dsub_sq, n * (int)sq, g->dT2);
    for (size_t k = 0; k < (size_t)n * sq * C; k++) g->dT[k] += g->dT2[k];
    nn_dense_backward(&m->sub_glob, ps, b->emb, g->dglob, n, g->tmpE);
    for (size_t k = 0; k < (size_t)n * E; k++) g->dE[k] += g->tmpE[k];
}

/* The trunk backward from dE and dT: the embedding and pooling, the residual blocks, the
 * stem. */
static void trunk_backward(NnModel *m, NnBatch *b, NnGradScratch *g, int n) {
    NnParams *ps = &m->params;
    size_t sq = (size_t)m->fs.squares, C = (size_t)m->arch.channels, E = (size_t)m->arch.embed;
    size_t S = (size_t)m->fs.scalars;
    /* embedding backward */
    nn_relu_backward(b->emb, g->dE, (size_t)n * E, g->dE);
    nn_dense_backward(&m->embed, ps, b->pooled_in, g->dE, n, g->dpin);
    float *dpool = g->dsb; /* [n, C] scratch; the scalars' part of dpin needs no use */
    for (int i = 0; i < n; i++) memcpy(dpool + (size_t)i * C, g->dpin + (size_t)i * (C + S), C * sizeof(float));
    nn_avgpool_backward(dpool, n, (int)sq, (int)C, g->dT2);
    for (size_t k = 0; k < (size_t)n * sq * C; k++) g->dT[k] += g->dT2[k];
    /* residual blocks, last first */
    size_t saved = m->arch.blocks ? nn_resblock_saved_floats(&m->block[0], b->cap) : 0;
    float *dy = g->dT, *dx = g->dT2;
    for (int k = m->arch.blocks - 1; k >= 0; k--) {
        float *x = b->act + (size_t)k * (size_t)b->cap * sq * C, *y = x + (size_t)b->cap * sq * C;
        nn_resblock_backward(&m->block[k], ps, x, y, b->saved + (size_t)k * saved, dy, n, dx, b->col);
        float *tmp = dy;
        dy = dx;
        dx = tmp;
    }
    /* stem: relu, the per-channel scalar bias, the convolution */
    float *a0 = b->act;
    nn_relu_backward(a0, dy, (size_t)n * sq * C, dy);
    memset(g->dsb, 0, (size_t)n * C * sizeof(float));
    for (size_t i = 0; i < (size_t)n; i++)
        for (size_t s = 0; s < sq; s++) {
            const float *d = dy + (i * sq + s) * C;
            float *o = g->dsb + i * C;
            for (size_t c = 0; c < C; c++) o[c] += d[c];
        }
    nn_dense_backward(&m->scalar_in, ps, b->scalars, g->dsb, n, NULL);
    nn_conv3_backward(&m->stem, ps, b->planes, dy, n, NULL, b->col);
}

void nn_chunk_losses(NnModel *m, NnBatch *b, NnGradScratch *g, const ShardSet *set, const size_t *idx, int n,
                     float scale, const NnLossOptions *lo, bool backward, NnLossSums *sums) {
    size_t sq = (size_t)m->fs.squares, C = (size_t)m->arch.channels, E = (size_t)m->arch.embed;
    for (int i = 0; i < n; i++) nn_batch_set(b, m, i, &set->s[idx[i]].pos);
    nn_forward_trunk(m, b, n);
    nn_forward_value(m, b, n);
    nn_forward_submoves(m, b, n);
    if (backward) {
        memset(g->dE, 0, (size_t)n * E * sizeof(float));
        memset(g->dT, 0, (size_t)n * sq * C * sizeof(float));
    }
    value_losses(b, g, set, idx, n, scale, lo, sums);
    policy_losses(m, b, g, set, idx, n, scale, lo, backward, sums);
    hidden_losses(m, b, g, set, idx, n, scale, sums);
    if (!backward) return;
    rows_backward(m, g, &m->h_hidden, &m->h_out, &b->hidden, false);
    heads_backward(m, b, g, n);
    trunk_backward(m, b, g, n);
}
