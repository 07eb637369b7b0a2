/*
 * position.h - a position as the player on turn sees it, and a move, in the
 * compact forms that training shards store and the network reads.
 *
 * A Position holds what the player on turn knows: the board's tiles, their
 * own rack, both scores, the bag size, how many tiles the opponent holds and
 * the count of consecutive scoreless turns, and the opponent's last move as
 * they saw it (what inference reads: the squares and tiles of a placement
 * and its score, how many tiles an exchange threw, not which, or a pass).
 * The unseen pool (bag plus the opponent's rack) follows from the
 * distribution, the board and the rack.
 *
 * A PackedMove names a move by what the player chooses, independently of the
 * tiles already on the board (the network's sub-move decomposition,
 * docs/features.md):
 *   placement: the square of the first fresh tile (row, col), the direction,
 *              n = fresh tiles, tiles[0..n) = the fresh tiles in board order
 *              (ML, blanked letters with RK_BLANK_BIT);
 *   exchange:  n tiles thrown, tiles[] in ML order (0 = blank);
 *   pass:      n = 0.
 * Its 12 bytes are what shards store (kind, dir, row, col, n, tiles[7]).
 */
#ifndef ROOKERY_POSITION_H
#define ROOKERY_POSITION_H
#include "board.h"
#include "game.h"
#include "move.h"
#include "rack.h"

typedef struct Position {
    int dim;
    uint8_t board[RK_MAX_SQUARES];  /* row*dim+col: 0 empty, ML | RK_BLANK_BIT */
    Rack rack;                      /* the player on turn's tiles */
    int score_self, score_opp;
    int bag;                        /* tiles in the bag */
    int opp_tiles;                  /* tiles on the opponent's rack */
    int zeros;                      /* consecutive scoreless turns */
    bool last_known;                /* the opponent's last move is known (not before their first
                                     * move, nor after a CGP without moves) */
    struct {
        uint8_t kind, dir, row, col, n; /* as PackedMove (below); an exchange's tiles not seen */
        uint8_t tiles[RK_RACK_SIZE];
        uint32_t fresh;             /* a placement: bit k set if the k-th square from (row, col)
                                     * along dir got a fresh tile (the others it played through) */
        int score;
    } last;
} Position;

/* The position of the player on turn in g (the last move from g->last). */
void position_from_game(Position *p, const Game *g);
/* The board of p with cross-sets and anchors (for features and movegen). */
void position_board(const Position *p, const Layout *lay, const LetterDist *ld, const Kwg *kwg, Board *b);
/* The unseen pool: the distribution minus the board and the rack. Returns
 * -1 if the board and rack use more of a tile than the distribution has (a
 * corrupt position). */
int position_unseen(const Position *p, const LetterDist *ld, Rack *unseen);
/* Checks a position read from a file: dim, tile codes, counts against the
 * distribution, bag and opponent counts against the unseen pool. */
int position_check(const Position *p, const LetterDist *ld, int dim, RkError *err);

#define PACKED_MOVE_BYTES 12
typedef struct PackedMove {
    uint8_t kind, dir, row, col, n;
    uint8_t tiles[RK_RACK_SIZE];
} PackedMove;

/* The packed form of a legal move m on board b. */
void packed_from_move(PackedMove *pm, const Move *m, const Board *b);
/* The move back on board b (score and equity 0): a placement takes the n
 * fresh tiles from (row, col) along dir onto empty squares and extends over
 * the tiles it touches at both ends. Returns -1 if it does not fit the board
 * (squares off the board, no tiles, bad codes). */
int packed_to_move(const PackedMove *pm, const Board *b, Move *m);
static inline bool packed_equal(const PackedMove *a, const PackedMove *b) {
    if (a->kind != b->kind || a->n != b->n) return false;
    if (a->kind == MOVE_PLACE && (a->dir != b->dir || a->row != b->row || a->col != b->col)) return false;
    for (int i = 0; i < a->n && i < RK_RACK_SIZE; i++)
        if (a->tiles[i] != b->tiles[i]) return false;
    return true;
}
void packed_to_bytes(const PackedMove *pm, uint8_t out[PACKED_MOVE_BYTES]);
/* Sets p's last move: m, packed, played on `before` (the board as it was,
 * row*dim+col, to tell its fresh squares from those it played through),
 * with its score; the tiles of an exchange are dropped, as the player on
 * turn cannot see them. */
void position_set_last(Position *p, const PackedMove *m, const uint8_t *before, int score);
void packed_from_bytes(PackedMove *pm, const uint8_t in[PACKED_MOVE_BYTES]);

#endif
