/*
 * afterstate.c - the afterstate of a move and its sparse features (see
 * afterstate.h).
 */
#include "afterstate.h"

#include <math.h>
#include <string.h>

#include "eval/winprob.h"

AftShape aft_shape(const LetterDist *ld, int dim) {
    AftShape s = {.dim = dim, .squares = dim * dim, .letters = ld->size - 1};
    for (int l = 0; l < ld->size; l++)
        if (ld->count[l] > s.unseen_max) s.unseen_max = ld->count[l];
    int at = 0, L = s.letters;
    s.blocks = (dim + 2) / 3;
    s.off_square = at, at += s.squares;
    s.off_open = at, at += s.squares;
    s.off_occupancy = at, at += s.blocks * s.blocks;
    s.off_cross = at, at += AFT_PREMIUMS * 2 * AFT_CROSS_BUCKETS;
    s.off_anchor = at, at += AFT_PREMIUMS;
    s.off_hook = at, at += AFT_PREMIUMS * 2 * L;
    s.off_kept = at, at += (L + 1) * RK_RACK_SIZE;
    s.off_unseen = at, at += (L + 1) * s.unseen_max;
    s.off_bag = at, at += AFT_BAG_BUCKETS;
    s.off_opp = at, at += RK_RACK_SIZE + 1;
    s.off_zeros = at, at += GAME_MAX_SCORELESS;
    s.off_dense = at, at += AFT_DENSE;
    s.total = at;
    return s;
}

void aft_context(AftContext *c, const LetterDist *ld, const Layout *lay, const Kwg *kwg, LeaveValueFn leave_value,
                 const void *leave_ctx) {
    memset(c, 0, sizeof *c);
    c->ld = ld;
    c->layout = lay;
    c->kwg = kwg;
    c->shape = aft_shape(ld, lay->dim);
    c->leave_value = leave_value;
    c->leave_ctx = leave_ctx;
}

void aft_build(const LetterDist *ld, const Board *before, const Position *p, const Move *m, Afterstate *as,
               Board *after) {
    memset(as, 0, sizeof *as);
    *after = *before;
    Position *q = &as->pos;
    *q = *p;
    q->last_known = false;
    memset(&q->last, 0, sizeof q->last);
    as->kind = m->kind;
    Rack taken;
    move_rack_tiles(m, &taken);
    as->used = taken.total;
    move_kept_tiles(&p->rack, m, &q->rack);
    if (m->kind == MOVE_PLACE) {
        as->move_score = board_score_move(before, m);
        board_place_move(after, m);
        memcpy(q->board, after->sq[0], (size_t)p->dim * (size_t)p->dim); /* orientation 0 is row*dim+col */
    }
    q->score_self += as->move_score;
    q->zeros = as->move_score == 0 ? p->zeros + 1 : 0;
    int spread = q->score_self - q->score_opp;
    Rack unseen;
    if (position_unseen(q, ld, &unseen) != 0) rack_clear(&unseen);
    if (m->kind == MOVE_PLACE && p->bag == 0 && q->rack.total == 0) {
        as->terminal = true; /* went out: the unseen tiles are the opponent's rack */
        as->final_spread = spread + 2 * rack_score(&unseen, ld);
    } else if (q->zeros >= GAME_MAX_SCORELESS) {
        as->terminal = true; /* each side loses its own rack; the opponent's is the unseen
                              * tiles' share (all of them with an empty bag) */
        double opp = unseen.total > 0 ? (double)rack_score(&unseen, ld) * q->opp_tiles / unseen.total : 0.0;
        as->final_spread = spread - rack_score(&q->rack, ld) + (int)(opp + 0.5);
    }
}

int aft_from_position(const AftContext *c, const Position *p, const PackedMove *pm, Afterstate *as, Board *after) {
    Board before;
    position_board(p, c->layout, c->ld, c->kwg, &before);
    Move m;
    if (packed_to_move(pm, &before, &m) != 0) return -1;
    aft_build(c->ld, &before, p, &m, as, after);
    return 0;
}

/* Square (r, c)'s index in orientation d (board.h: orientation 1 is the transpose). */
static inline int oriented(int sq, int d, int dim) { return d == 0 ? sq : (sq % dim) * dim + sq / dim; }

static int cross_bucket(int allowed) {
    if (allowed <= 1) return allowed;
    if (allowed < 4) return 2;
    if (allowed < 8) return 3;
    if (allowed < 16) return 4;
    return 5;
}

static int bag_bucket(int bag) {
    static const int lo[AFT_BAG_BUCKETS] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 15, 20, 30, 40, 50, 60, 70};
    int b = 0;
    while (b + 1 < AFT_BAG_BUCKETS && bag >= lo[b + 1]) b++;
    return b;
}

static int premium_class(const Layout *lay, int sq) {
    if (lay->word_mult[sq] >= 3) return 4;
    if (lay->word_mult[sq] == 2) return 3;
    if (lay->letter_mult[sq] >= 3) return 2;
    if (lay->letter_mult[sq] == 2) return 1;
    return 0;
}

typedef struct Out {
    int32_t *idx;
    float *val;
    int n;
} Out;

static inline void put(Out *o, int i, float v) {
    if (o->n >= AFT_MAX_ACTIVE) return;
    o->idx[o->n] = i;
    o->val[o->n] = v;
    o->n++;
}

/* Appends the nonzero entries of counts[0..n) times scale as group `off`. */
static void put_counts(Out *o, int off, const float *counts, int n, float scale) {
    for (int i = 0; i < n; i++)
        if (counts[i] != 0.0f) put(o, off + i, counts[i] * scale);
}

/* The board's groups: square occupancy, open squares (the empty squares
 * next to a tile), 3x3-block occupancy, and by premium class the cross-set
 * sizes, anchors and hooks. */
static void board_features(const AftContext *c, const Afterstate *as, const Board *after, Out *o) {
    const AftShape *s = &c->shape;
    const Position *q = &as->pos;
    int L = s->letters, SQ = s->squares, dim = s->dim;
    float occ[RK_MAX_SQUARES] = {0}, cross[AFT_PREMIUMS * 2 * AFT_CROSS_BUCKETS] = {0}, anchor[AFT_PREMIUMS] = {0};
    float hook[AFT_PREMIUMS * 2 * RK_MAX_LETTERS] = {0};
    uint8_t open[RK_MAX_SQUARES] = {0};
    for (int sq = 0; sq < SQ; sq++)
        if (q->board[sq]) put(o, s->off_square + sq, 1.0f);
    for (int sq = 0; sq < SQ; sq++) {
        if (q->board[sq]) {
            occ[(sq / dim / 3) * s->blocks + (sq % dim) / 3] += 1.0f;
            continue;
        }
        int prem = premium_class(c->layout, sq);
        bool is_anchor = false;
        for (int d = 0; d < 2; d++) {
            int i = oriented(sq, d, dim);
            if (!after->has_cross[d][i]) continue;
            is_anchor = true;
            uint64_t allowed = after->cross[d][i] & after->all_letters;
            cross[(prem * 2 + d) * AFT_CROSS_BUCKETS + cross_bucket(__builtin_popcountll(allowed))] += 1.0f;
            for (int ml = 1; ml <= L; ml++)
                if (allowed >> ml & 1u) hook[(prem * 2 + d) * L + ml - 1] += 1.0f;
        }
        if (is_anchor) anchor[prem] += 1.0f, open[sq] = 1;
    }
    for (int sq = 0; sq < SQ; sq++)
        if (open[sq]) put(o, s->off_open + sq, 1.0f);
    put_counts(o, s->off_occupancy, occ, s->blocks * s->blocks, 1.0f / 9.0f);
    put_counts(o, s->off_cross, cross, AFT_PREMIUMS * 2 * AFT_CROSS_BUCKETS, 0.1f);
    put_counts(o, s->off_anchor, anchor, AFT_PREMIUMS, 0.1f);
    put_counts(o, s->off_hook, hook, AFT_PREMIUMS * 2 * L, 0.25f);
}

/* What both the features and the prior read: the kept tiles' leave value
 * (whatever the bag) and the unseen tiles. */
typedef struct Facts {
    int32_t leave;
    Rack unseen;  /* empty if the position holds more tiles than the distribution */
    int left;     /* the tiles not on the board (unseen + kept); 0 then */
} Facts;

static void facts(const AftContext *c, const Afterstate *as, Facts *f) {
    const Position *q = &as->pos;
    f->leave = c->leave_value != NULL && q->rack.total > 0 ? c->leave_value(c->leave_ctx, &q->rack) : 0;
    bool ok = position_unseen(q, c->ld, &f->unseen) == 0;
    if (!ok) rack_clear(&f->unseen);
    f->left = ok ? f->unseen.total + q->rack.total : 0;
}

static int features(const AftContext *c, const Afterstate *as, const Board *after, const Facts *f, int32_t *idx,
                    float *val) {
    const AftShape *s = &c->shape;
    const Position *q = &as->pos;
    const Rack unseen = f->unseen;
    const int32_t leave = f->leave;
    Out o = {idx, val, 0};
    board_features(c, as, after, &o);
    int L = s->letters;
    for (int ml = 0; ml <= L; ml++)
        for (int k = 0; k < q->rack.count[ml] && k < RK_RACK_SIZE; k++) put(&o, s->off_kept + ml * RK_RACK_SIZE + k, 1.0f);
    for (int ml = 0; ml <= L; ml++)
        for (int k = 0; k < unseen.count[ml] && k < s->unseen_max; k++) put(&o, s->off_unseen + ml * s->unseen_max + k, 1.0f);
    put(&o, s->off_bag + bag_bucket(q->bag), 1.0f);
    put(&o, s->off_opp + (q->opp_tiles < 0 ? 0 : q->opp_tiles > RK_RACK_SIZE ? RK_RACK_SIZE : q->opp_tiles), 1.0f);
    put(&o, s->off_zeros + (q->zeros >= GAME_MAX_SCORELESS ? GAME_MAX_SCORELESS - 1 : q->zeros), 1.0f);
    const float dense[AFT_DENSE] = {
        (float)(q->score_self - q->score_opp) / 100.0f,
        (float)as->move_score / 100.0f,
        (float)leave / 100000.0f,
        (float)after->tiles_on_board / 100.0f,
        as->kind == MOVE_EXCHANGE ? 1.0f : 0.0f,
        as->kind == MOVE_PASS ? 1.0f : 0.0f,
        (float)as->used / (float)RK_RACK_SIZE,
        (float)q->bag / 100.0f,
        (float)unseen.total / 100.0f,
    };
    for (int k = 0; k < AFT_DENSE; k++)
        if (dense[k] != 0.0f) put(&o, s->off_dense + k, dense[k]);
    return o.n;
}

static void prior(const Afterstate *as, const Facts *f, float out[2]) {
    const Position *q = &as->pos;
    double lead = (double)(q->score_self - q->score_opp) + (q->bag > 0 ? f->leave / 1000.0 : 0.0);
    int left = f->left;
    const WinModel model = WINPROB_DEFAULT;
    double p = left > 0 ? 1.0 - winprob(&model, -lead, left) : (lead > 0 ? 1.0 : lead < 0 ? 0.0 : 0.5);
    p = fmin(fmax(p, 1e-4), 1.0 - 1e-4);
    out[0] = (float)log(p / (1.0 - p));
    out[1] = (float)(lead / 100.0);
}

int aft_features(const AftContext *c, const Afterstate *as, const Board *after, int32_t *idx, float *val) {
    Facts f;
    facts(c, as, &f);
    return features(c, as, after, &f, idx, val);
}

void aft_prior(const AftContext *c, const Afterstate *as, float out[2]) {
    Facts f;
    facts(c, as, &f);
    prior(as, &f, out);
}

int aft_encode(const AftContext *c, const Afterstate *as, const Board *after, int32_t *idx, float *val,
               float prior_out[2]) {
    Facts f;
    facts(c, as, &f);
    prior(as, &f, prior_out);
    return features(c, as, after, &f, idx, val);
}
