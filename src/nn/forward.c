/*
 * forward.c - the network's forward passes, policy log-probabilities and
 * sampling, and hidden-leave sampling (see forward.h and model.h).
 */
#include "forward.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/derive.h"

/* ---------------------------------------------------------------- rows */

void nn_rows_init(NnRows *r, int in_dim, int out_dim, int hidden) {
    memset(r, 0, sizeof *r);
    r->in_dim = in_dim;
    r->out_dim = out_dim;
    (void)hidden;
}

void nn_rows_free(NnRows *r) {
    free(r->in), free(r->hid), free(r->out), free(r->mask), free(r->prior), free(r->pos), free(r->square), free(r->target);
    free(r->weight);
    int in = r->in_dim, out = r->out_dim;
    memset(r, 0, sizeof *r);
    r->in_dim = in, r->out_dim = out;
}

static void *regrow(void *p, size_t n, size_t elem) {
    void *q = realloc(p, n * elem);
    if (!q) abort();
    return q;
}

int nn_rows_add(NnRows *r, int more, int hidden) {
    int first = r->n;
    if (r->n + more > r->cap) {
        int cap = r->cap ? r->cap : 64;
        while (cap < r->n + more) cap *= 2;
        r->in = regrow(r->in, (size_t)cap * (size_t)r->in_dim, sizeof(float));
        r->hid = regrow(r->hid, (size_t)cap * (size_t)hidden, sizeof(float));
        r->out = regrow(r->out, (size_t)cap * (size_t)r->out_dim, sizeof(float));
        r->mask = regrow(r->mask, (size_t)cap * (size_t)r->out_dim, 1);
        r->prior = regrow(r->prior, (size_t)cap * (size_t)r->out_dim, sizeof(float));
        r->pos = regrow(r->pos, (size_t)cap, sizeof(int));
        r->square = regrow(r->square, (size_t)cap, sizeof(int));
        r->target = regrow(r->target, (size_t)cap, sizeof(int));
        r->weight = regrow(r->weight, (size_t)cap, sizeof(float));
        r->cap = cap;
    }
    r->n += more;
    return first;
}

/* ---------------------------------------------------------------- batch */

static size_t sq_of(const NnModel *m) { return (size_t)m->fs.squares; }

int nn_batch_init(NnBatch *b, const NnModel *m, const NnFeatureContext *fc, int cap, RkError *err) {
    memset(b, 0, sizeof *b);
    if (m->arch.prior_equity && fc->leave_value == NULL)
        return rk_error(err, "nn: the model's policy values moves by static equity (nn.prior = equity) and needs "
                             "leaves, but none were given");
    b->cap = cap;
    b->fc = fc;
    size_t sq = sq_of(m), P = (size_t)m->fs.planes, S = (size_t)m->fs.scalars, C = (size_t)m->arch.channels;
    size_t E = (size_t)m->arch.embed, Hh = (size_t)m->arch.head_hidden, n = (size_t)cap;
    size_t blocks = (size_t)m->arch.blocks;
    size_t col = nn_conv3_col_floats(&m->stem, cap);
    if (blocks > 0 && nn_conv3_col_floats(&m->block[0].c1, cap) > col) col = nn_conv3_col_floats(&m->block[0].c1, cap);
    size_t saved = blocks ? nn_resblock_saved_floats(&m->block[0], cap) : 0;
    b->planes = malloc(n * sq * P * sizeof(float));
    b->scalars = malloc(n * S * sizeof(float));
    b->act = malloc((blocks + 1) * n * sq * C * sizeof(float));
    b->saved = malloc((blocks * saved + 1) * sizeof(float));
    b->col = malloc(col * sizeof(float));
    b->sbias = malloc(n * C * sizeof(float));
    b->pooled = malloc(n * C * sizeof(float));
    b->pooled_in = malloc(n * (C + S) * sizeof(float));
    b->emb = malloc(n * E * sizeof(float));
    b->vh = malloc(n * Hh * sizeof(float));
    b->vout = malloc(n * 4 * sizeof(float));
    b->sub_sq = malloc(n * sq * 2 * RK_RACK_SIZE * sizeof(float));
    b->sub = malloc(n * (size_t)m->ps.submoves * sizeof(float));
    b->sub_glob = malloc(n * (RK_RACK_SIZE + 1) * sizeof(float));
    b->sub_mask = malloc(n * (size_t)m->ps.submoves);
    b->sub_prior = malloc(n * (size_t)m->ps.submoves * sizeof(float));
    b->pos = calloc(n, sizeof *b->pos);
    b->board = malloc(n * sizeof *b->board);
    b->legal = calloc(n, sizeof *b->legal);
    movelist_init(&b->scratch);
    int L = m->fs.letters;
    nn_rows_init(&b->steps, (int)(E + C) + NN_STEP_CONTEXT(L), m->ps.tokens, (int)Hh);
    nn_rows_init(&b->hidden, (int)E + NN_H_CONTEXT(L), m->h_outputs, (int)Hh);
    if (!b->planes || !b->scalars || !b->act || !b->saved || !b->col || !b->sbias || !b->pooled || !b->pooled_in ||
        !b->emb || !b->vh || !b->vout || !b->sub_sq || !b->sub || !b->sub_glob || !b->sub_mask || !b->sub_prior || !b->pos ||
        !b->board || !b->legal) {
        nn_batch_free(b);
        return rk_error(err, "nn: out of memory for a batch of %d positions", cap);
    }
    return 0;
}

void nn_batch_free(NnBatch *b) {
    free(b->planes), free(b->scalars), free(b->act), free(b->saved), free(b->col), free(b->sbias);
    free(b->pooled), free(b->pooled_in), free(b->emb), free(b->vh), free(b->vout), free(b->sub_sq), free(b->sub);
    free(b->sub_glob), free(b->sub_mask), free(b->sub_prior), free(b->pos), free(b->board);
    if (b->legal)
        for (int i = 0; i < b->cap; i++) nn_legal_free(&b->legal[i]);
    free(b->legal);
    movelist_free(&b->scratch);
    nn_rows_free(&b->steps);
    nn_rows_free(&b->hidden);
    memset(b, 0, sizeof *b);
}

void nn_batch_set(NnBatch *b, const NnModel *m, int i, const Position *p) { nn_batch_set_equity(b, m, i, p, NULL); }

void nn_batch_set_equity(NnBatch *b, const NnModel *m, int i, const Position *p, const NnMoveEquity *eq) {
    size_t sq = sq_of(m), per = (size_t)m->ps.submoves;
    b->pos[i] = *p;
    NnMoveEquity own;
    if (m->arch.prior_equity) { /* the prior values moves by equity: with the caller's leaves, else the context's */
        if (eq) own = *eq;
        else {
            Rack pool; /* with an empty bag the opponent's rack is the unseen pool */
            int opp = p->bag == 0 && position_unseen(p, b->fc->ld, &pool) == 0 ? rack_score(&pool, b->fc->ld) : 0;
            own = (NnMoveEquity){b->fc->leave_value, b->fc->leave_ctx, opp, 0};
        }
        own.prior_equity = 1;
        eq = &own;
    }
    NnFeatureContext fc = *b->fc; /* the model's own feature version */
    fc.shape = m->fs;
    nn_features_equity(&fc, p, eq, b->planes + (size_t)i * sq * (size_t)m->fs.planes,
                       b->scalars + (size_t)i * (size_t)m->fs.scalars, &b->board[i], &b->legal[i], &b->scratch);
    nn_legal_submove_mask(&b->legal[i], &m->ps, b->sub_mask + (size_t)i * per);
    float *prior = b->sub_prior + (size_t)i * per;
    nn_legal_submove_best(&b->legal[i], &m->ps, prior);
    for (size_t k = 0; k < per; k++) prior[k] /= NN_SCORE_SCALE;
}

/* ---------------------------------------------------------------- forward */

static float *layer(const NnModel *m, const NnBatch *b, int k) {
    return b->act + (size_t)k * (size_t)b->cap * sq_of(m) * (size_t)m->arch.channels;
}

void nn_forward_trunk(const NnModel *m, NnBatch *b, int n) {
    const NnParams *ps = &m->params;
    size_t sq = sq_of(m), C = (size_t)m->arch.channels, S = (size_t)m->fs.scalars;
    float *a0 = layer(m, b, 0);
    nn_conv3_forward(&m->stem, ps, b->planes, n, a0, b->col);
    nn_dense_forward_each(&m->scalar_in, ps, b->scalars, n, 1, b->sbias);
    for (size_t i = 0; i < (size_t)n; i++)
        for (size_t s = 0; s < sq; s++) {
            float *x = a0 + (i * sq + s) * C;
            const float *bias = b->sbias + i * C;
            for (size_t c = 0; c < C; c++) x[c] += bias[c];
        }
    nn_relu_forward(a0, (size_t)n * sq * C, a0);
    size_t saved = m->arch.blocks ? nn_resblock_saved_floats(&m->block[0], b->cap) : 0;
    for (int k = 0; k < m->arch.blocks; k++)
        nn_resblock_forward(&m->block[k], ps, layer(m, b, k), n, layer(m, b, k + 1), b->saved + (size_t)k * saved,
                            b->col);
    const float *T = layer(m, b, m->arch.blocks);
    nn_avgpool_forward(T, n, (int)sq, (int)C, b->pooled);
    for (size_t i = 0; i < (size_t)n; i++) {
        memcpy(b->pooled_in + i * (C + S), b->pooled + i * C, C * sizeof(float));
        memcpy(b->pooled_in + i * (C + S) + C, b->scalars + i * S, S * sizeof(float));
    }
    nn_dense_forward_each(&m->embed, ps, b->pooled_in, n, 1, b->emb);
    nn_relu_forward(b->emb, (size_t)n * (size_t)m->arch.embed, b->emb);
}

void nn_forward_value(const NnModel *m, NnBatch *b, int n) {
    nn_dense_forward_each(&m->v_hidden, &m->params, b->emb, n, 1, b->vh);
    nn_relu_forward(b->vh, (size_t)n * (size_t)m->arch.head_hidden, b->vh);
    nn_dense_forward_each(&m->v_out, &m->params, b->vh, n, 1, b->vout);
}

double nn_value_win(const NnBatch *b, int i) {
    const float *v = b->vout + (size_t)i * 4;
    float p[3];
    nn_softmax_masked(v, NULL, 3, p);
    return (double)p[0] + 0.5 * (double)p[1];
}

double nn_value_spread(const NnBatch *b, int i) { return 100.0 * (double)b->vout[(size_t)i * 4 + 3]; }

void nn_forward_submoves(const NnModel *m, NnBatch *b, int n) {
    size_t sq = sq_of(m), per = (size_t)m->ps.submoves, place = (size_t)m->ps.placements;
    const float *T = layer(m, b, m->arch.blocks);
    nn_dense_forward_each(&m->sub_sq, &m->params, T, n, (int)sq, b->sub_sq);
    nn_dense_forward_each(&m->sub_glob, &m->params, b->emb, n, 1, b->sub_glob);
    for (size_t i = 0; i < (size_t)n; i++) {
        memcpy(b->sub + i * per, b->sub_sq + i * place, place * sizeof(float));
        memcpy(b->sub + i * per + place, b->sub_glob + i * (RK_RACK_SIZE + 1), (RK_RACK_SIZE + 1) * sizeof(float));
        const float w = nn_score_prior(m)[0], *prior = b->sub_prior + i * per;
        for (size_t k = 0; k < per; k++) b->sub[i * per + k] += w * prior[k];
    }
}

void nn_rows_forward(const NnModel *m, const NnDense *hidden, const NnDense *out, NnRows *r, float prior_weight) {
    if (r->n == 0) return;
    nn_dense_forward(hidden, &m->params, r->in, r->n, r->hid);
    nn_relu_forward(r->hid, (size_t)r->n * (size_t)m->arch.head_hidden, r->hid);
    nn_dense_forward(out, &m->params, r->hid, r->n, r->out);
    if (prior_weight != 0.0f)
        for (size_t k = 0; k < (size_t)r->n * (size_t)r->out_dim; k++) r->out[k] += prior_weight * r->prior[k];
}

/* ---------------------------------------------------------------- policy */

/* The rack letter a token uses (0 = the blank). */
static int token_letter(const NnModel *m, const PackedMove *pm, int k) {
    uint8_t t = pm->tiles[k];
    (void)m;
    if (pm->kind == MOVE_EXCHANGE) return t;
    return RK_IS_BLANKED(t) ? 0 : t;
}

void nn_step_row_input(const NnModel *m, const NnBatch *b, int i, const PackedMove *pm, int k, float *in) {
    size_t E = (size_t)m->arch.embed, C = (size_t)m->arch.channels;
    int L = m->fs.letters;
    memset(in, 0, ((size_t)(E + C) + (size_t)NN_STEP_CONTEXT(L)) * sizeof(float));
    memcpy(in, b->emb + (size_t)i * E, E * sizeof(float));
    int square = nn_step_square(pm, k, &b->board[i]);
    if (square >= 0)
        memcpy(in + E, layer(m, b, m->arch.blocks) + ((size_t)i * sq_of(m) + (size_t)square) * C, C * sizeof(float));
    float *ctx = in + E + C;
    ctx[k] = 1.0f;
    ctx[RK_RACK_SIZE + pm->n - 1] = 1.0f;
    ctx[2 * RK_RACK_SIZE + (pm->kind == MOVE_EXCHANGE ? 2 : pm->dir)] = 1.0f;
    float *rack = ctx + 2 * RK_RACK_SIZE + 3;
    for (int l = 0; l <= L; l++) rack[l] = (float)b->pos[i].rack.count[l];
    for (int j = 0; j < k; j++) rack[token_letter(m, pm, j)] -= 1.0f;
}

int nn_step_row_add(const NnModel *m, NnBatch *b, int i, const PackedMove *pm, int sub, const uint8_t *prefix,
                    int k) {
    NnRows *r = &b->steps;
    size_t T = (size_t)m->ps.tokens;
    int row = nn_rows_add(r, 1, m->arch.head_hidden);
    r->pos[row] = i;
    r->square[row] = nn_step_square(pm, k, &b->board[i]);
    nn_step_row_input(m, b, i, pm, k, r->in + (size_t)row * (size_t)r->in_dim);
    float *prior = r->prior + (size_t)row * T;
    nn_legal_step_mask(&b->legal[i], &m->ps, sub, prefix, k, r->mask + (size_t)row * T, prior);
    for (size_t t = 0; t < T; t++) prior[t] /= NN_SCORE_SCALE;
    return row;
}

/* The masked log-softmax of position i's sub-move logits (malloc'ed; the
 * caller frees it). */
static float *submove_logp(const NnModel *m, const NnBatch *b, int i) {
    size_t per = (size_t)m->ps.submoves;
    float *lp = malloc(per * sizeof(float));
    if (!lp) abort();
    nn_log_softmax_masked(b->sub + (size_t)i * per, b->sub_mask + (size_t)i * per, (int)per, lp);
    return lp;
}

/* log P of the legal moves of position i whose sub-move is marked in take
 * (NULL: all) into logp (the others are left as they are): one batched
 * step-head pass over every distinct step prefix of those moves. */
static void policy_subset(const NnModel *m, NnBatch *b, int i, const float *sublogp, const uint8_t *take,
                          double *logp) {
    const NnLegal *lg = &b->legal[i];
    int T = m->ps.tokens;
    int *rowof = malloc(((size_t)lg->n * RK_RACK_SIZE + 1) * sizeof(int));
    if (!rowof) abort();
    NnRows *r = &b->steps;
    r->n = 0;
    int Hh = m->arch.head_hidden;
    for (int j = 0; j < lg->n; j++) {
        const NnLegalMove *x = &lg->m[j], *prev = j ? &lg->m[j - 1] : NULL;
        if (take != NULL && !take[x->submove]) continue; /* a whole sub-move is taken or not */
        for (int k = 0; k < x->pm.n; k++) {
            bool same = prev && prev->submove == x->submove && memcmp(prev->tokens, x->tokens, (size_t)k) == 0;
            int row;
            if (same) {
                row = rowof[(j - 1) * RK_RACK_SIZE + k];
            } else {
                row = nn_rows_add(r, 1, Hh);
                r->pos[row] = i;
                nn_step_row_input(m, b, i, &x->pm, k, r->in + (size_t)row * (size_t)r->in_dim);
                memset(r->mask + (size_t)row * (size_t)T, 0, (size_t)T);
                memset(r->prior + (size_t)row * (size_t)T, 0, (size_t)T * sizeof(float));
            }
            rowof[j * RK_RACK_SIZE + k] = row;
            /* the token's prior: the best prior value (score, or equity: it may be negative) of the moves
             * through it, as nn_legal_step_mask gives the trainer */
            uint8_t *allowed = r->mask + (size_t)row * (size_t)T + x->tokens[k];
            float *pr = r->prior + (size_t)row * (size_t)T + x->tokens[k], v = x->prior / NN_SCORE_SCALE;
            if (!*allowed || v > *pr) *pr = v;
            *allowed = 1;
        }
    }
    if (r->n > 0) nn_rows_forward(m, &m->step_hidden, &m->step_out, r, nn_score_prior(m)[1]);
    for (int row = 0; row < r->n; row++) {
        float *o = r->out + (size_t)row * (size_t)T;
        nn_log_softmax_masked(o, r->mask + (size_t)row * (size_t)T, T, o);
    }
    for (int j = 0; j < lg->n; j++) {
        const NnLegalMove *x = &lg->m[j];
        if (take != NULL && !take[x->submove]) continue;
        double lp = sublogp[x->submove];
        for (int k = 0; k < x->pm.n; k++) lp += r->out[(size_t)rowof[j * RK_RACK_SIZE + k] * (size_t)T + x->tokens[k]];
        logp[j] = lp;
    }
    free(rowof);
}

int nn_policy_all(const NnModel *m, NnBatch *b, int i, double *logp) {
    float *sublogp = submove_logp(m, b, i);
    policy_subset(m, b, i, sublogp, NULL, logp);
    free(sublogp);
    return b->legal[i].n;
}

typedef struct SubGroup {
    float lp;       /* the sub-move's log-probability: a bound on its moves' */
    int first, n;   /* its legal moves (contiguous: the list is sorted by sub-move) */
} SubGroup;

static int by_lp_desc(const void *pa, const void *pb) {
    const SubGroup *a = pa, *b = pb;
    if (a->lp != b->lp) return a->lp > b->lp ? -1 : 1;
    return a->first - b->first;
}

int nn_policy_top(const NnModel *m, NnBatch *b, int i, int k, int *top, double *top_logp) {
    const NnLegal *lg = &b->legal[i];
    int per = m->ps.submoves, n = lg->n;
    if (k > n) k = n;
    float *sublogp = submove_logp(m, b, i);
    uint8_t *take = calloc((size_t)per, 1);
    double *logp = malloc(((size_t)n + 1) * sizeof(double));
    SubGroup *g = malloc(((size_t)n + 1) * sizeof(SubGroup));
    if (!take || !logp || !g) abort();
    int groups = 0;
    for (int j = 0; j < n; j++) {
        logp[j] = -INFINITY;
        if (j == 0 || lg->m[j].submove != lg->m[j - 1].submove)
            g[groups++] = (SubGroup){sublogp[lg->m[j].submove], j, 0};
        g[groups - 1].n++;
    }
    qsort(g, (size_t)groups, sizeof *g, by_lp_desc);
    /* waves of sub-moves, best first, until the k-th best move found beats
     * every sub-move left (a move's log P is at most its sub-move's) */
    int done = 0, target = 4 * k, found = 0;
    while (done < groups) {
        int taken = 0;
        memset(take, 0, (size_t)per);
        while (done < groups && (taken == 0 || found + taken < target)) {
            take[lg->m[g[done].first].submove] = 1;
            taken += g[done].n;
            done++;
        }
        policy_subset(m, b, i, sublogp, take, logp);
        found += taken;
        if (done == groups || found < k) {
            target *= 2;
            continue;
        }
        /* the k-th best so far */
        double kth = INFINITY;
        for (int q = 0; q < k; q++) {
            double best = -INFINITY;
            for (int j = 0; j < n; j++)
                if (logp[j] < kth && logp[j] > best) best = logp[j];
            kth = best;
        }
        if (kth > (double)g[done].lp) break;
        target *= 2;
    }
    /* the k best, in order (ties: the earlier move) */
    for (int q = 0; q < k; q++) {
        int arg = -1;
        for (int j = 0; j < n; j++)
            if (logp[j] > -INFINITY && (arg < 0 || logp[j] > logp[arg])) arg = j;
        if (arg < 0) {
            k = q;
            break;
        }
        top[q] = arg;
        top_logp[q] = logp[arg];
        logp[arg] = -INFINITY;
    }
    free(sublogp);
    free(take);
    free(logp);
    free(g);
    return k;
}

double nn_policy_logprob(const NnModel *m, NnBatch *b, int i, const PackedMove *pm) {
    const NnLegal *lg = &b->legal[i];
    if (nn_legal_find(lg, &m->ps, pm) < 0) return -INFINITY;
    int T = m->ps.tokens, sub = nn_submove_index(&m->ps, pm);
    float *sublogp = submove_logp(m, b, i);
    double lp = sublogp[sub];
    free(sublogp);
    NnRows *r = &b->steps;
    r->n = 0;
    uint8_t prefix[RK_RACK_SIZE];
    for (int k = 0; k < pm->n; k++) {
        nn_step_row_add(m, b, i, pm, sub, prefix, k);
        prefix[k] = (uint8_t)nn_step_token(&m->ps, pm, k);
    }
    nn_rows_forward(m, &m->step_hidden, &m->step_out, r, nn_score_prior(m)[1]);
    for (int k = 0; k < pm->n; k++) {
        float *o = r->out + (size_t)k * (size_t)T;
        nn_log_softmax_masked(o, r->mask + (size_t)k * (size_t)T, T, o);
        lp += o[prefix[k]];
    }
    return lp;
}

/* An index drawn from probabilities p[0..n) (which sum to 1). */
static int draw(const float *p, int n, Rng *rng) {
    double u = (double)(rng_next(rng) >> 11) * 0x1.0p-53, acc = 0;
    int last = -1;
    for (int j = 0; j < n; j++) {
        if (p[j] <= 0.0f) continue;
        acc += p[j];
        last = j;
        if (u < acc) return j;
    }
    return last;
}

int nn_policy_sample(const NnModel *m, NnBatch *b, int i, Rng *rng, PackedMove *out) {
    const NnLegal *lg = &b->legal[i];
    if (lg->n == 0) return -1;
    int per = m->ps.submoves, T = m->ps.tokens;
    float *p = malloc((size_t)per * sizeof(float));
    if (!p) abort();
    nn_softmax_masked(b->sub + (size_t)i * (size_t)per, b->sub_mask + (size_t)i * (size_t)per, per, p);
    int sub = draw(p, per, rng);
    free(p);
    /* the sub-move's first legal move gives its kind, direction and size */
    PackedMove pm;
    memset(&pm, 0, sizeof pm);
    int first = -1;
    for (int j = 0; j < lg->n && first < 0; j++)
        if (lg->m[j].submove == sub) first = j;
    if (first < 0) return -1;
    pm = lg->m[first].pm;
    uint8_t prefix[RK_RACK_SIZE] = {0};
    NnRows *r = &b->steps;
    for (int k = 0; k < pm.n; k++) {
        r->n = 0;
        nn_step_row_add(m, b, i, &pm, sub, prefix, k);
        nn_rows_forward(m, &m->step_hidden, &m->step_out, r, nn_score_prior(m)[1]);
        float q[2 * RK_MAX_LETTERS];
        nn_softmax_masked(r->out, r->mask, T, q);
        prefix[k] = (uint8_t)draw(q, T, rng);
        /* the tile itself: from any legal move with this prefix */
        for (int j = first; j < lg->n && lg->m[j].submove == sub; j++)
            if (memcmp(lg->m[j].tokens, prefix, (size_t)k + 1) == 0) {
                pm.tiles[k] = lg->m[j].pm.tiles[k];
                break;
            }
    }
    for (int j = first; j < lg->n && lg->m[j].submove == sub; j++)
        if (memcmp(lg->m[j].tokens, prefix, (size_t)pm.n) == 0) {
            *out = lg->m[j].pm;
            return 0;
        }
    return -1;
}

/* ---------------------------------------------------------------- hidden leave */

void nn_hidden_row_input(const NnModel *m, const NnBatch *b, int i, const Rack *drawn, int size, float *in) {
    size_t E = (size_t)m->arch.embed;
    int L = m->fs.letters;
    memset(in, 0, (E + (size_t)NN_H_CONTEXT(L)) * sizeof(float));
    memcpy(in, b->emb + (size_t)i * E, E * sizeof(float));
    float *ctx = in + E;
    for (int l = 0; l <= L; l++) ctx[l] = (float)drawn->count[l];
    ctx[L + 1 + size] = 1.0f;
    ctx[L + 1 + (RK_RACK_SIZE + 1) + (size - drawn->total)] = 1.0f;
}

/* sum over d = from..left of C(p, j + d) * C(rest, left - d): the draws of
 * `left` tiles that take d >= from more copies of a letter with p in all,
 * j of them drawn before (weight C(p, j + d)), and the others from `rest`
 * tiles of larger letters. */
static double more_copies(int p, int j, int from, int rest, int left) {
    double ways = 0.0;
    for (int d = from; d <= left; d++) ways += derive_binom(p, j + d) * derive_binom(rest, left - d);
    return ways;
}

int nn_hidden_mask(const NnModel *m, const Rack *pool, int left, int last, int last_drawn, uint8_t *mask,
                   float *prior) {
    int L = m->fs.letters, A = L + 1, allowed = 0;
    bool offsets = prior != NULL && m->arch.h_pool_prior;
    memset(mask, 0, (size_t)m->h_outputs);
    if (prior != NULL) memset(prior, 0, (size_t)m->h_outputs * sizeof *prior);
    /* at_least[x] = tiles in the pool with letter >= x */
    int at_least[RK_MAX_LETTERS + 1];
    at_least[A] = 0;
    for (int x = A - 1; x >= 0; x--) at_least[x] = at_least[x + 1] + pool->count[x];
    /* The uniform draw of the whole leave weighs a multiset by prod C(P[l], k[l]) (P: the
     * unseen counts before the draw). Given the tiles drawn so far (j = last_drawn copies of
     * `last`, smaller letters fixed), a chunk's weight is the sum over the completions that
     * start with it: F(x, n) = C(at_least[x], n) sums the n-tile completions from letters
     * >= x > last (their counts are untouched), and `last` itself counts C(P_last, j + d). */
    int pl = pool->count[last] + last_drawn; /* P[last] */
    double keep = derive_binom(pl, last_drawn); /* no more copies of `last` */
    if (m->arch.h_tiles == 1 || left == 1) {
        for (int a = last; a < A; a++) {
            /* a, then left-1 more tiles >= a */
            if (pool->count[a] == 0 || at_least[a] - 1 < left - 1) continue;
            int k = nn_hidden_index(m, a, a);
            mask[k] = 1;
            allowed++;
            if (!offsets) continue;
            double ways = a == last ? more_copies(pl, last_drawn, 1, at_least[a + 1], left)
                                    /* none of `last`; the smallest of the rest is an a */
                                    : keep * (derive_binom(at_least[a], left) - derive_binom(at_least[a + 1], left));
            prior[k] = (float)log(ways);
        }
        return allowed;
    }
    for (int a = last; a < A; a++) {
        if (pool->count[a] == 0) continue;
        for (int c = a; c < A; c++) {
            if (pool->count[c] < (c == a ? 2 : 1)) continue;
            if (at_least[c] - (c == a ? 2 : 1) < left - 2) continue;
            int k = nn_hidden_index(m, a, c);
            mask[k] = 1;
            allowed++;
            if (!offsets) continue;
            /* the two smallest tiles of the rest are a, c */
            double tail = derive_binom(at_least[c], left - 1) - derive_binom(at_least[c + 1], left - 1), ways;
            if (a == last && c == a) ways = more_copies(pl, last_drawn, 2, at_least[a + 1], left);
            else if (a == last) ways = derive_binom(pl, last_drawn + 1) * tail;
            else if (c == a) ways = keep * more_copies(pool->count[a], 0, 2, at_least[a + 1], left);
            else ways = keep * pool->count[a] * tail;
            prior[k] = (float)log(ways);
        }
    }
    return allowed;
}

int nn_hidden_sample(const NnModel *m, NnBatch *b, int i, int size, Rng *rng, Rack *leave) {
    Rack pool;
    rack_clear(leave);
    if (position_unseen(&b->pos[i], b->fc->ld, &pool) != 0 || pool.total < size) return -1;
    NnRows *r = &b->hidden;
    int A = m->fs.letters + 1, last = 0;
    float p[RK_MAX_LETTERS * RK_MAX_LETTERS];
    while (leave->total < size) {
        int left = size - leave->total;
        r->n = 0;
        nn_rows_add(r, 1, m->arch.head_hidden);
        nn_hidden_row_input(m, b, i, leave, size, r->in);
        if (nn_hidden_mask(m, &pool, left, last, leave->count[last], r->mask, r->prior) == 0) return -1;
        nn_rows_forward(m, &m->h_hidden, &m->h_out, r, nn_hidden_prior_weight(m));
        nn_softmax_masked(r->out, r->mask, m->h_outputs, p);
        int idx = draw(p, m->h_outputs, rng);
        int a = m->arch.h_tiles == 1 ? idx : idx / A, c = m->arch.h_tiles == 1 ? idx : idx % A;
        rack_add(leave, (uint8_t)a);
        pool.count[a]--, pool.total--;
        last = a;
        if (m->arch.h_tiles == 2 && left >= 2) {
            rack_add(leave, (uint8_t)c);
            pool.count[c]--, pool.total--;
            last = c;
        }
    }
    return 0;
}

int nn_hidden_rows_add(const NnModel *m, NnBatch *b, int i, const Rack *leave) {
    Rack pool, drawn;
    int A = m->fs.letters + 1, t = m->arch.h_tiles, size = leave->total, nt = 0, last = 0;
    if (size > RK_RACK_SIZE || position_unseen(&b->pos[i], b->fc->ld, &pool) != 0) return -1;
    uint8_t tiles[RK_RACK_SIZE];
    for (int l = 0; l < A && nt < RK_RACK_SIZE; l++)
        for (int c = 0; c < leave->count[l] && nt < RK_RACK_SIZE; c++) tiles[nt++] = (uint8_t)l;
    if (nt != size) return -1;
    rack_clear(&drawn);
    NnRows *r = &b->hidden;
    int first = r->n;
    size_t O = (size_t)r->out_dim;
    for (int at = 0; at < nt; at += t) {
        int left = nt - at, took = (t == 2 && left >= 2) ? 2 : 1;
        int a = tiles[at], c = took == 2 ? tiles[at + 1] : a;
        int row = nn_rows_add(r, 1, m->arch.head_hidden);
        r->pos[row] = i;
        r->square[row] = -1;
        r->target[row] = nn_hidden_index(m, a, c);
        nn_hidden_row_input(m, b, i, &drawn, size, r->in + (size_t)row * (size_t)r->in_dim);
        nn_hidden_mask(m, &pool, left, last, drawn.count[last], r->mask + (size_t)row * O, r->prior + (size_t)row * O);
        if (!r->mask[(size_t)row * O + (size_t)r->target[row]]) {
            r->n = first;
            return -1;
        }
        for (int q = 0; q < took; q++) {
            rack_add(&drawn, tiles[at + q]);
            pool.count[tiles[at + q]]--, pool.total--;
        }
        last = tiles[at + took - 1];
    }
    return r->n - first;
}

double nn_hidden_logprob(const NnModel *m, NnBatch *b, int i, const Rack *leave) {
    NnRows *r = &b->hidden;
    r->n = 0;
    if (nn_hidden_rows_add(m, b, i, leave) < 0) return -INFINITY;
    nn_rows_forward(m, &m->h_hidden, &m->h_out, r, nn_hidden_prior_weight(m));
    double lp = 0;
    size_t O = (size_t)r->out_dim;
    for (int row = 0; row < r->n; row++) {
        float *o = r->out + (size_t)row * O;
        nn_log_softmax_masked(o, r->mask + (size_t)row * O, (int)O, o);
        lp += o[r->target[row]];
    }
    return lp;
}
