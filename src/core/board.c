#include "board.h"

#include <string.h>

/* Index of (line, pos) in orientation d. */
static inline int idx_of(const Board *b, int line, int pos) { return line * b->dim + pos; }

void board_init(Board *b, const Layout *lay, const LetterDist *ld, const Kwg *kwg) {
    memset(b, 0, sizeof *b);
    b->dim = lay->dim;
    b->layout = lay;
    b->ld = ld;
    b->kwg = kwg;
    for (int ml = 1; ml < ld->size; ml++) b->all_letters |= (uint64_t)1 << ml;
    int dim = b->dim;
    for (int r = 0; r < dim; r++) {
        for (int c = 0; c < dim; c++) {
            int i0 = r * dim + c, i1 = c * dim + r;
            b->lm[0][i0] = b->lm[1][i1] = lay->letter_mult[i0];
            b->wm[0][i0] = b->wm[1][i1] = lay->word_mult[i0];
        }
    }
    board_refresh(b);
}

void board_put(Board *b, int row, int col, uint8_t tile) {
    int dim = b->dim;
    uint8_t *s0 = &b->sq[0][row * dim + col];
    if (tile != 0) {
        if (b->tiles_on_board == 0 || row < b->bb_min_row) b->bb_min_row = row;
        if (b->tiles_on_board == 0 || row > b->bb_max_row) b->bb_max_row = row;
        if (b->tiles_on_board == 0 || col < b->bb_min_col) b->bb_min_col = col;
        if (b->tiles_on_board == 0 || col > b->bb_max_col) b->bb_max_col = col;
    }
    if (*s0 == 0 && tile != 0) b->tiles_on_board++;
    if (*s0 != 0 && tile == 0) b->tiles_on_board--;
    *s0 = tile;
    b->sq[1][col * dim + row] = tile;
}

/* Recomputes the cross data of empty square (line, pos) of orientation d:
 * the perpendicular word runs along line `pos` of orientation 1-d. */
static void update_cross(Board *b, int d, int line, int pos) {
    int dim = b->dim, e = 1 - d;
    int i = idx_of(b, line, pos);
    const uint8_t *perp = &b->sq[e][pos * dim]; /* the perpendicular line */
    int lo = line, hi = line;
    while (lo > 0 && perp[lo - 1] != 0) lo--;
    while (hi < dim - 1 && perp[hi + 1] != 0) hi++;
    if (lo == line && hi == line) {
        b->cross[d][i] = b->all_letters;
        b->cross_score[d][i] = 0;
        b->has_cross[d][i] = 0;
        return;
    }
    const Kwg *k = b->kwg;
    const LetterDist *ld = b->ld;
    int score = 0;
    for (int p = lo; p <= hi; p++)
        if (p != line) score += ld_tile_score(ld, perp[p]);
    b->cross_score[d][i] = (int16_t)score;
    b->has_cross[d][i] = 1;
    uint64_t mask = 0;
    /* Follow the prefix in the DAWG, then try each child letter and the
     * suffix. */
    uint32_t list = kwg_dawg_root(k);
    bool ok = true;
    for (int p = lo; p < line && ok; p++) {
        uint32_t j = kwg_find(k, list, RK_LETTER(perp[p]));
        if (j == 0) ok = false;
        else list = kwg_arc(k, j);
    }
    if (ok && list != 0) {
        for (uint32_t j = list;; j++) {
            uint8_t x = kwg_tile(k, j);
            bool good;
            if (line == hi) {
                good = kwg_accepts(k, j);
            } else {
                uint32_t l2 = kwg_arc(k, j), node = 0;
                good = true;
                for (int p = line + 1; p <= hi; p++) {
                    node = kwg_find(k, l2, RK_LETTER(perp[p]));
                    if (node == 0) {
                        good = false;
                        break;
                    }
                    l2 = kwg_arc(k, node);
                }
                good = good && kwg_accepts(k, node);
            }
            if (good && x < 64) mask |= (uint64_t)1 << x;
            if (kwg_is_end(k, j)) break;
        }
    }
    b->cross[d][i] = mask & b->all_letters;
}

static bool has_neighbor(const Board *b, int row, int col) {
    int dim = b->dim;
    return (row > 0 && board_at(b, row - 1, col)) || (row < dim - 1 && board_at(b, row + 1, col)) ||
           (col > 0 && board_at(b, row, col - 1)) || (col < dim - 1 && board_at(b, row, col + 1));
}

static void set_anchor(Board *b, int row, int col, uint8_t v) {
    b->anchor[0][row * b->dim + col] = v;
    b->anchor[1][col * b->dim + row] = v;
}

void board_refresh(Board *b) {
    int dim = b->dim;
    int n = 0;
    b->bb_min_row = b->bb_min_col = dim;
    b->bb_max_row = b->bb_max_col = -1;
    for (int i = 0; i < dim * dim; i++) {
        if (b->sq[0][i] == 0) continue;
        n++;
        int r = i / dim, c = i % dim;
        if (r < b->bb_min_row) b->bb_min_row = r;
        if (r > b->bb_max_row) b->bb_max_row = r;
        if (c < b->bb_min_col) b->bb_min_col = c;
        if (c > b->bb_max_col) b->bb_max_col = c;
    }
    b->tiles_on_board = n;
    for (int r = 0; r < dim; r++) {
        for (int c = 0; c < dim; c++) {
            if (board_at(b, r, c) != 0) {
                set_anchor(b, r, c, 0);
                for (int d = 0; d < 2; d++) {
                    int i = d == 0 ? r * dim + c : c * dim + r;
                    b->cross[d][i] = 0;
                    b->has_cross[d][i] = 0;
                    b->cross_score[d][i] = 0;
                }
                continue;
            }
            update_cross(b, 0, r, c);
            update_cross(b, 1, c, r);
            set_anchor(b, r, c, has_neighbor(b, r, c));
        }
    }
    if (n == 0) set_anchor(b, b->layout->start_row, b->layout->start_col, 1);
}

void board_place_move(Board *b, const Move *m) {
    if (m->kind != MOVE_PLACE) return;
    int dim = b->dim;
    bool was_empty = b->tiles_on_board == 0;
    int dr = m->dir == DIR_ACROSS ? 0 : 1, dc = 1 - dr;
    for (int i = 0; i < m->len; i++) {
        if (m->tiles[i] == MOVE_PLAYED_THROUGH) continue;
        int r = m->row + dr * i, c = m->col + dc * i;
        board_put(b, r, c, m->tiles[i]);
        set_anchor(b, r, c, 0);
        for (int d = 0; d < 2; d++) {
            int ix = d == 0 ? r * dim + c : c * dim + r;
            b->cross[d][ix] = 0;
            b->has_cross[d][ix] = 0;
            b->cross_score[d][ix] = 0;
        }
    }
    if (was_empty) set_anchor(b, b->layout->start_row, b->layout->start_col, 0);
    /* From every fresh tile, walk each way over tiles to the first empty
     * square: the run beside it changed, so its cross data for moves
     * perpendicular to that walk must be recomputed. */
    static const int DR[4] = {-1, 1, 0, 0}, DC[4] = {0, 0, -1, 1};
    for (int i = 0; i < m->len; i++) {
        if (m->tiles[i] == MOVE_PLAYED_THROUGH) continue;
        int r0 = m->row + dr * i, c0 = m->col + dc * i;
        for (int w = 0; w < 4; w++) {
            int r = r0, c = c0;
            while (r >= 0 && r < dim && c >= 0 && c < dim && board_at(b, r, c) != 0) {
                r += DR[w];
                c += DC[w];
            }
            if (r < 0 || r >= dim || c < 0 || c >= dim) continue;
            set_anchor(b, r, c, 1);
            if (DR[w] != 0) update_cross(b, DIR_ACROSS, r, c); /* vertical run: across moves */
            else update_cross(b, DIR_DOWN, c, r);              /* horizontal run: down moves */
        }
    }
}

int board_extent(const Board *b) {
    if (b->tiles_on_board == 0) return 0;
    int c = b->dim / 2, e = 0;
    int d[4] = {c - b->bb_min_row, b->bb_max_row - c, c - b->bb_min_col, b->bb_max_col - c};
    for (int i = 0; i < 4; i++)
        if (d[i] > e) e = d[i];
    return e;
}

int board_score_move(const Board *b, const Move *m) {
    if (m->kind != MOVE_PLACE) return 0;
    int d = m->dir, dim = b->dim;
    int line = d == DIR_ACROSS ? m->row : m->col;
    int pos0 = d == DIR_ACROSS ? m->col : m->row;
    int main_sum = 0, word_mult = 1, cross_total = 0;
    for (int i = 0; i < m->len; i++) {
        int ix = line * dim + pos0 + i;
        uint8_t t = m->tiles[i];
        if (t == MOVE_PLAYED_THROUGH) {
            main_sum += ld_tile_score(b->ld, b->sq[d][ix]);
            continue;
        }
        int v = ld_tile_score(b->ld, t) * b->lm[d][ix];
        int wm = b->wm[d][ix];
        main_sum += v;
        word_mult *= wm;
        if (b->has_cross[d][ix]) cross_total += (b->cross_score[d][ix] + v) * wm;
    }
    return main_sum * word_mult + cross_total + (m->ntiles == RK_RACK_SIZE ? b->layout->bingo_bonus : 0);
}

int board_word_at(const Board *b, int row, int col, int dir, uint8_t *out, int cap, int *start) {
    int dim = b->dim;
    if (board_at(b, row, col) == 0) return 0;
    int line = dir == DIR_ACROSS ? row : col, pos = dir == DIR_ACROSS ? col : row;
    const uint8_t *s = &b->sq[dir][line * dim];
    int lo = pos, hi = pos;
    while (lo > 0 && s[lo - 1]) lo--;
    while (hi < dim - 1 && s[hi + 1]) hi++;
    int n = 0;
    for (int p = lo; p <= hi && n < cap; p++) out[n++] = s[p];
    if (start) *start = lo;
    return n;
}
