/*
 * position.c - compact positions and packed moves (see position.h).
 */
#include "position.h"

#include <string.h>

/* The last move's fields but its fresh squares. */
static void set_last(Position *p, const PackedMove *m, int score) {
    p->last_known = true;
    p->last.kind = m->kind;
    p->last.dir = m->dir;
    p->last.row = m->row;
    p->last.col = m->col;
    p->last.n = m->n;
    memset(p->last.tiles, 0, sizeof p->last.tiles);
    if (m->kind == MOVE_PLACE) memcpy(p->last.tiles, m->tiles, sizeof p->last.tiles);
    p->last.fresh = 0;
    p->last.score = m->kind == MOVE_PLACE ? score : 0;
}

void position_from_game(Position *p, const Game *g) {
    memset(p, 0, sizeof *p);
    int dim = g->board.dim, me = g->on_turn;
    p->dim = dim;
    memcpy(p->board, g->board.sq[0], (size_t)(dim * dim));
    p->rack = g->racks[me];
    p->score_self = g->scores[me];
    p->score_opp = g->scores[1 - me];
    p->bag = g->bag.count;
    p->opp_tiles = g->racks[1 - me].total;
    p->zeros = g->zeros;
    if (g->has_last) {
        PackedMove pm;
        packed_from_move(&pm, &g->last, &g->board);
        set_last(p, &pm, g->last.score);
        if (g->last.kind == MOVE_PLACE) { /* the fresh squares from the first fresh tile on */
            int first = -1;
            for (int i = 0; i < g->last.len; i++) {
                if (g->last.tiles[i] == MOVE_PLAYED_THROUGH) continue;
                if (first < 0) first = i;
                if (i - first < 32) p->last.fresh |= UINT32_C(1) << (i - first);
            }
        }
    }
}

void position_set_last(Position *p, const PackedMove *m, const uint8_t *before, int score) {
    set_last(p, m, score);
    if (m->kind != MOVE_PLACE) return;
    int dim = p->dim, dr = m->dir == DIR_DOWN ? 1 : 0, dc = 1 - dr, placed = 0;
    for (int k = 0, r = m->row, c = m->col; k < 32 && r < dim && c < dim && placed < m->n; k++, r += dr, c += dc)
        if (before[r * dim + c] == 0) {
            p->last.fresh |= UINT32_C(1) << k;
            placed++;
        }
}

void position_board(const Position *p, const Layout *lay, const LetterDist *ld, const Kwg *kwg, Board *b) {
    board_init(b, lay, ld, kwg);
    for (int i = 0; i < p->dim * p->dim; i++)
        if (p->board[i]) board_put(b, i / p->dim, i % p->dim, p->board[i]);
    board_refresh(b);
}

int position_unseen(const Position *p, const LetterDist *ld, Rack *unseen) {
    rack_clear(unseen);
    int used[RK_MAX_LETTERS] = {0};
    for (int i = 0; i < p->dim * p->dim; i++) {
        uint8_t t = p->board[i];
        if (t) used[RK_IS_BLANKED(t) ? 0 : RK_LETTER(t)]++;
    }
    for (int l = 0; l < ld->size; l++) {
        int left = ld->count[l] - used[l] - p->rack.count[l];
        if (left < 0) return -1;
        unseen->count[l] = (uint8_t)left;
        unseen->total += left;
    }
    return 0;
}

int position_check(const Position *p, const LetterDist *ld, int dim, RkError *err) {
    if (p->dim != dim) return rk_error(err, "position: board side %d, expected %d", p->dim, dim);
    for (int i = 0; i < dim * dim; i++) {
        uint8_t t = p->board[i];
        if (t && (RK_LETTER(t) == 0 || RK_LETTER(t) >= ld->size || (t & 0x40u)))
            return rk_error(err, "position: square %d holds tile code %u", i, t);
    }
    int total = 0;
    for (int l = 0; l < RK_MAX_LETTERS; l++) {
        if (p->rack.count[l] && l >= ld->size)
            return rk_error(err, "position: rack holds letter %d beyond the distribution", l);
        total += p->rack.count[l];
    }
    if (total != p->rack.total || total > RK_RACK_SIZE)
        return rk_error(err, "position: rack of %d tiles (counted %d)", p->rack.total, total);
    Rack unseen;
    if (position_unseen(p, ld, &unseen) != 0)
        return rk_error(err, "position: the board and rack use more tiles than the distribution has");
    if (p->bag < 0 || p->opp_tiles < 0 || p->opp_tiles > RK_RACK_SIZE || p->bag + p->opp_tiles != unseen.total)
        return rk_error(err, "position: bag %d + opponent's %d tiles != %d unseen", p->bag, p->opp_tiles,
                        unseen.total);
    if (p->zeros < 0 || p->zeros >= GAME_MAX_SCORELESS)
        return rk_error(err, "position: %d consecutive scoreless turns", p->zeros);
    return 0;
}

void packed_from_move(PackedMove *pm, const Move *m, const Board *b) {
    (void)b;
    memset(pm, 0, sizeof *pm);
    pm->kind = m->kind;
    if (m->kind == MOVE_PASS) return;
    if (m->kind == MOVE_EXCHANGE) {
        pm->n = m->len;
        memcpy(pm->tiles, m->tiles, m->len);
        /* ML order (move.h keeps exchanges in it; sort anyway, n <= 7) */
        for (int i = 1; i < pm->n; i++)
            for (int j = i; j > 0 && pm->tiles[j - 1] > pm->tiles[j]; j--) {
                uint8_t t = pm->tiles[j];
                pm->tiles[j] = pm->tiles[j - 1];
                pm->tiles[j - 1] = t;
            }
        return;
    }
    pm->dir = m->dir;
    bool first = true;
    for (int i = 0; i < m->len; i++) {
        if (m->tiles[i] == MOVE_PLAYED_THROUGH) continue;
        if (first) {
            pm->row = (uint8_t)(m->row + (m->dir == DIR_DOWN ? i : 0));
            pm->col = (uint8_t)(m->col + (m->dir == DIR_ACROSS ? i : 0));
            first = false;
        }
        if (pm->n < RK_RACK_SIZE) pm->tiles[pm->n++] = m->tiles[i];
    }
}

int packed_to_move(const PackedMove *pm, const Board *b, Move *m) {
    memset(m, 0, sizeof *m);
    m->kind = pm->kind;
    if (pm->kind == MOVE_PASS) return pm->n == 0 ? 0 : -1;
    if (pm->n == 0 || pm->n > RK_RACK_SIZE) return -1;
    if (pm->kind == MOVE_EXCHANGE) {
        m->len = m->ntiles = pm->n;
        for (int i = 0; i < pm->n; i++) {
            if (pm->tiles[i] >= b->ld->size) return -1;
            m->tiles[i] = pm->tiles[i];
        }
        return 0;
    }
    if (pm->kind != MOVE_PLACE || pm->dir > 1) return -1;
    int dim = b->dim, dr = pm->dir == DIR_DOWN, dc = !dr;
    int r = pm->row, c = pm->col;
    if (r >= dim || c >= dim || board_at(b, r, c)) return -1;
    /* back over the tiles touching the first fresh square */
    while (r - dr >= 0 && c - dc >= 0 && board_at(b, r - dr, c - dc)) r -= dr, c -= dc;
    m->dir = pm->dir;
    m->row = (uint8_t)r;
    m->col = (uint8_t)c;
    int placed = 0, len = 0;
    while (r < dim && c < dim) {
        uint8_t on = board_at(b, r, c);
        if (on) {
            m->tiles[len++] = MOVE_PLAYED_THROUGH;
        } else {
            if (placed == pm->n) break;
            uint8_t t = pm->tiles[placed++];
            if (RK_LETTER(t) == 0 || RK_LETTER(t) >= b->ld->size || (t & 0x40u)) return -1;
            m->tiles[len++] = t;
        }
        r += dr, c += dc;
    }
    if (placed != pm->n) return -1;
    m->len = (uint8_t)len;
    m->ntiles = pm->n;
    return 0;
}

void packed_to_bytes(const PackedMove *pm, uint8_t out[PACKED_MOVE_BYTES]) {
    out[0] = pm->kind, out[1] = pm->dir, out[2] = pm->row, out[3] = pm->col, out[4] = pm->n;
    memcpy(out + 5, pm->tiles, RK_RACK_SIZE);
}

void packed_from_bytes(PackedMove *pm, const uint8_t in[PACKED_MOVE_BYTES]) {
    pm->kind = in[0], pm->dir = in[1], pm->row = in[2], pm->col = in[3], pm->n = in[4];
    memcpy(pm->tiles, in + 5, RK_RACK_SIZE);
}
