/*
 * features.c - input planes and scalars (docs/features.md is the reference
 * for the order; change both together and bump NN_FEATURE_VERSION).
 */
#include "features.h"
#include "eval/klv.h"

#include <string.h>

NnFeatureShape nn_feature_shape(const LetterDist *ld, int dim, int version) {
    NnFeatureShape s;
    s.version = version;
    s.dim = dim;
    s.squares = dim * dim;
    s.letters = ld->size - 1;
    s.planes = 3 * s.letters + 11 + 2 * RK_RACK_SIZE + (version >= 3 ? 1 : 0);
    s.scalars = 2 * (s.letters + 1) + 10 + (version >= 3 ? 5 + s.letters + 1 : 0);
    return s;
}

/* Version 3: the opponent's last move. Plane 3L + 25: the squares its fresh
 * tiles went to; scalars: known, fresh tiles / 7, score / 100, tiles
 * exchanged / 7, a pass, then the count of each tile placed (0 = blank).
 * The counts are scalars, not only letters on the plane's squares, because
 * the trunk's average over the board dilutes one move's squares to nothing
 * (H measured level with v2 without them). */
static void last_move_features(const NnFeatureShape *s, const Position *p, float *planes, float *x) {
    memset(x, 0, (size_t)(5 + s->letters + 1) * sizeof *x); /* the planes are cleared already */
    if (!p->last_known) return;
    x[0] = 1.0f;
    if (p->last.kind == MOVE_PLACE) {
        int dim = s->dim, plane = 3 * s->letters + 11 + 2 * RK_RACK_SIZE;
        int dr = p->last.dir == DIR_DOWN ? 1 : 0, dc = 1 - dr;
        for (int k = 0, r = p->last.row, c = p->last.col; k < 32 && r < dim && c < dim; k++, r += dr, c += dc)
            if (p->last.fresh >> k & 1u) planes[(size_t)(r * dim + c) * (size_t)s->planes + (size_t)plane] = 1.0f;
        x[1] = (float)p->last.n / (float)RK_RACK_SIZE;
        x[2] = (float)p->last.score / 100.0f;
        for (int k = 0; k < p->last.n && k < RK_RACK_SIZE; k++) {
            int l = RK_IS_BLANKED(p->last.tiles[k]) ? 0 : RK_LETTER(p->last.tiles[k]);
            if (l <= s->letters) x[5 + l] += 1.0f;
        }
    } else if (p->last.kind == MOVE_EXCHANGE) {
        x[3] = (float)p->last.n / (float)RK_RACK_SIZE;
    } else {
        x[4] = 1.0f;
    }
}

void nn_feature_context(NnFeatureContext *fc, const LetterDist *ld, const Layout *lay, const Kwg *kwg) {
    fc->ld = ld;
    fc->layout = lay;
    fc->kwg = kwg;
    fc->shape = nn_feature_shape(ld, lay->dim, NN_FEATURE_VERSION_DEFAULT);
    fc->leave_value = NULL;
    fc->leave_ctx = NULL;
}

void nn_feature_context_leaves(NnFeatureContext *fc, int32_t (*leave_value)(const void *, const Rack *),
                               const void *leave_ctx) {
    fc->leave_value = leave_value;
    fc->leave_ctx = leave_ctx;
}

void nn_features(const NnFeatureContext *fc, const Position *p, float *planes, float *scalars, Board *board,
                 NnLegal *legal, MoveList *scratch) {
    nn_features_equity(fc, p, NULL, planes, scalars, board, legal, scratch);
}

void nn_features_equity(const NnFeatureContext *fc, const Position *p, const NnMoveEquity *eq, float *planes,
                        float *scalars, Board *board, NnLegal *legal, MoveList *scratch) {
    const NnFeatureShape *s = &fc->shape;
    const LetterDist *ld = fc->ld;
    Board *b = board;
    position_board(p, fc->layout, ld, fc->kwg, b);
    MoveGenRequest req;
    memset(&req, 0, sizeof req);
    req.board = b;
    req.rack = &p->rack;
    req.bag_count = p->bag;
    req.exchanges_allowed = exchange_allowed(p->bag, p->opp_tiles);
    if (eq != NULL) {
        klv_request_leaves(&req, eq->leave_value, eq->leave_ctx);
        req.opp_rack_score = eq->opp_rack_score;
    }
    movegen_all(&req, scratch);
    NnPolicyShape ps = nn_policy_shape(ld, s->dim);
    nn_legal_build(legal, &ps, scratch, b, eq != NULL && eq->prior_equity);
    int dim = s->dim, L = s->letters, P = s->planes;
    memset(planes, 0, sizeof(float) * (size_t)s->squares * (size_t)P);
    for (int r = 0; r < dim; r++) {
        for (int c = 0; c < dim; c++) {
            int i = r * dim + c, it = c * dim + r; /* square in orientation 0 and 1 */
            float *f = planes + (size_t)i * (size_t)P;
            uint8_t t = b->sq[0][i];
            /* [0, L): the letter on the square; L: it is a blank */
            if (t) {
                f[RK_LETTER(t) - 1] = 1.0f;
                if (RK_IS_BLANKED(t)) f[L] = 1.0f;
            }
            int k = L + 1;
            /* premiums: double/triple letter, double/triple word */
            int lm = fc->layout->letter_mult[i], wm = fc->layout->word_mult[i];
            f[k + 0] = lm == 2;
            f[k + 1] = lm == 3;
            f[k + 2] = wm == 2;
            f[k + 3] = wm == 3;
            k += 4;
            /* empty squares: letters an across / a down move may put here */
            if (!t) {
                for (int l = 1; l <= L; l++) {
                    f[k + l - 1] = (b->cross[0][i] >> l) & 1u;
                    f[k + L + l - 1] = (b->cross[1][it] >> l) & 1u;
                }
            }
            k += 2 * L;
            if (!t) {
                f[k + 0] = b->has_cross[0][i];
                f[k + 1] = b->has_cross[1][it];
                f[k + 2] = (float)b->cross_score[0][i] / 10.0f;
                f[k + 3] = (float)b->cross_score[1][it] / 10.0f;
                f[k + 4] = b->anchor[0][i];
                f[k + 5] = 1.0f;
            }
            k += 6;
            /* k == 3L + 11, then the legal sub-moves starting here: (score + 1) / scale
             * for direction d and n tiles at plane k + d*7 + n-1 (0: none) */
        }
    }
    for (int j = 0; j < legal->n; j++) {
        const NnLegalMove *x = &legal->m[j];
        if (x->pm.kind != MOVE_PLACE) continue;
        float v = (float)(x->score + 1) / NN_SCORE_SCALE;
        float *f = planes + (size_t)(x->pm.row * dim + x->pm.col) * (size_t)P + (3 * L + 11) + x->pm.dir * RK_RACK_SIZE +
                   x->pm.n - 1;
        if (v > *f) *f = v;
    }
    Rack unseen;
    if (position_unseen(p, ld, &unseen) != 0) rack_clear(&unseen); /* checked positions never get here */
    float *x = scalars;
    for (int l = 0; l <= L; l++) x[l] = (float)p->rack.count[l];
    x += L + 1;
    for (int l = 0; l <= L; l++) x[l] = ld->count[l] ? (float)unseen.count[l] / (float)ld->count[l] : 0.0f;
    x += L + 1;
    x[0] = (float)p->score_self / 100.0f;
    x[1] = (float)p->score_opp / 100.0f;
    x[2] = (float)(p->score_self - p->score_opp) / 100.0f;
    x[3] = (float)p->bag / 100.0f;
    x[4] = p->bag == 0;
    x[5] = p->bag >= RK_RACK_SIZE;          /* exchanges are allowed */
    x[6] = (float)p->opp_tiles / (float)RK_RACK_SIZE;
    x[7] = (float)p->zeros / (float)GAME_MAX_SCORELESS;
    x[8] = (float)b->tiles_on_board / 100.0f;
    x[9] = (float)unseen.total / 100.0f;
    if (s->version >= 3) last_move_features(s, p, planes, x + 10);
}
