/* siu_position.c - the position command of SIU (see siu_position.h). */
#include "siu_position.h"

#include <stdlib.h>
#include <string.h>

#include "core/cgp.h"
#include "siu_move.h"

int siu_position_split(const char *args, char *cgp, size_t cgp_cap, char *buf, size_t buf_cap, char **moves,
                       int max_moves, RkError *err) {
    size_t n = strlen(args);
    if (n + 1 > buf_cap || n + 1 > cgp_cap) return rk_error(err, "the position line is too long");
    memcpy(buf, args, n + 1);
    char *save = NULL, *tok = strtok_r(buf, " \t\r\n", &save);
    if (tok == NULL || strcmp(tok, "cgp") != 0) return rk_error(err, "expected 'position cgp <CGP> [moves ...]'");
    cgp[0] = '\0';
    size_t len = 0;
    int fields = 0, nmoves = 0;
    bool in_moves = false;
    while ((tok = strtok_r(NULL, " \t\r\n", &save)) != NULL) {
        if (!in_moves && fields >= 4 && strcmp(tok, "moves") == 0) {
            in_moves = true;
            continue;
        }
        if (in_moves) {
            if (nmoves >= max_moves) return rk_error(err, "more than %d moves", max_moves);
            moves[nmoves++] = tok;
            continue;
        }
        size_t t = strlen(tok);
        if (len + t + 2 > cgp_cap) return rk_error(err, "the CGP is too long");
        if (len > 0) cgp[len++] = ' ';
        memcpy(cgp + len, tok, t + 1);
        len += t;
        fields++;
    }
    if (fields == 0) return rk_error(err, "no CGP after 'position cgp'");
    return nmoves;
}

static void unseen_back(Game *g, int k);

/* Puts player k's rack back among the unseen tiles and deals them a new one
 * from there, as many tiles as the rules say (7, or every unseen tile when
 * fewer are left). */
static void deal_rack(Game *g, int k, Rng *r) {
    unseen_back(g, k);
    bag_refill_rack(&g->bag, &g->racks[k], r);
}

/* Puts player k's rack back in the bag (it is unseen: the engine does not
 * know it). */
static void unseen_back(Game *g, int k) { bag_take_back_rack(&g->bag, &g->racks[k]); }

/* Gives the mover (whose rack is unknown) a rack that holds `need` plus
 * other unseen tiles; false if the unseen tiles do not hold `need`. */
static bool deal_holding(Game *g, const Rack *need, Rng *r) {
    Rack *rack = &g->racks[g->on_turn];
    unseen_back(g, g->on_turn);
    for (int ml = 0; ml < RK_MAX_LETTERS; ml++)
        for (int i = 0; i < need->count[ml]; i++) {
            if (bag_take(&g->bag, (uint8_t)ml) != 0) return false;
            rack_add(rack, (uint8_t)ml);
        }
    bag_refill_rack(&g->bag, rack, r);
    return true;
}

/* Plays one move token on p; SIU_POS_OK or SIU_POS_BAD_MOVE. */
static SiuPosError play_token(SiuPosition *p, const char *tok, Rng *r, RkError *err) {
    Game *g = &p->game;
    char q[64];
    rk_quote_text(q, sizeof q, tok, strlen(tok));
    if (game_over(g)) return rk_error(err, "%s: the game is already over", q), SIU_POS_BAD_MOVE;
    Move m;
    bool unknown_tiles;
    RkError e2;
    if (strncmp(tok, "phony.", 6) == 0) { /* a play challenged off: a scoreless turn, the tiles kept */
        if (siu_move_parse(&m, &unknown_tiles, tok + 6, &g->board, g->ld, &e2) != 0 || m.kind != MOVE_PLACE) {
            rk_error(err, "%s: expected phony.COORD.TILES (%s)", q, e2.msg);
            return SIU_POS_BAD_MOVE;
        }
        m = (Move){.kind = MOVE_PASS};
        game_play(g, &m);
        p->has_last = false; /* what a challenged-off play says of a rack is not modelled */
        return SIU_POS_OK;
    }
    if (siu_move_parse(&m, &unknown_tiles, tok, &g->board, g->ld, &e2) != 0) {
        rk_error(err, "%s", e2.msg);
        return SIU_POS_BAD_MOVE;
    }
    int me = g->on_turn;
    p->before = *g; /* kept for inference (see last_seen) */
    /* both racks unknown: the other's tiles are unseen too, so the mover may
     * hold any of them (dealt again before the move is played) */
    bool other_unknown = !p->rack_known[me] && !p->rack_known[1 - me];
    if (other_unknown) unseen_back(g, 1 - me);
    if (siu_move_check(g, p->rack_known[me], &m, unknown_tiles, &e2) != 0) {
        rk_error(err, "move '%s': %s", q, e2.msg);
        return SIU_POS_BAD_MOVE;
    }
    if (!p->rack_known[me]) {
        Rack need;
        move_rack_tiles(&m, &need);
        if (unknown_tiles) rack_clear(&need);
        if (!deal_holding(g, &need, r)) return rk_error(err, "move '%s': its tiles are not unseen", q), SIU_POS_BAD_MOVE;
    }
    if (other_unknown) bag_refill_rack(&g->bag, &g->racks[1 - me], r);
    if (m.kind == MOVE_EXCHANGE && unknown_tiles) { /* any n of the tiles held: the rack is unknown after it */
        int n = 0;
        const Rack *rack = &g->racks[me];
        for (int ml = 0; ml < RK_MAX_LETTERS && n < m.ntiles; ml++)
            for (int k = 0; k < rack->count[ml] && n < m.ntiles; k++) m.tiles[n++] = (uint8_t)ml;
    }
    Move played = m;
    game_play(g, &m);
    p->rack_known[me] = false;
    p->has_last = true;
    p->last = played;
    p->last_unknown_tiles = unknown_tiles;
    return SIU_POS_OK;
}

/* The position before the last move as the player now on turn saw it: the
 * mover's rack and, unless the viewer's rack is known now, the viewer's
 * rack back among the unseen tiles; a known rack (given by the CGP or by
 * rack.) taken out of them. */
static SiuPosError last_seen(SiuPosition *p, RkError *err) {
    Game *b = &p->before;
    int mover = b->on_turn, viewer = 1 - mover;
    unseen_back(b, mover);
    if (!p->rack_known[p->game.on_turn]) {
        unseen_back(b, viewer);
        return SIU_POS_OK;
    }
    const Rack *want = &p->game.racks[p->game.on_turn];
    if (rack_equal(&b->racks[viewer], want)) return SIU_POS_OK;
    unseen_back(b, viewer);
    for (int ml = 0; ml < RK_MAX_LETTERS; ml++)
        for (int i = 0; i < want->count[ml]; i++) {
            if (bag_take(&b->bag, (uint8_t)ml) != 0)
                return rk_error(err, "the rack given holds tiles the last move played"), SIU_POS_BAD_MOVE;
            rack_add(&b->racks[viewer], (uint8_t)ml);
        }
    return SIU_POS_OK;
}

/* rack.<tiles>: the rack of the player on turn. */
static SiuPosError set_rack(SiuPosition *p, const char *tok, Rng *r, RkError *err) {
    Game *g = &p->game;
    int me = g->on_turn;
    Rack want;
    RkError e2;
    if (tok[5] == '\0') return rk_error(err, "'%s': no tiles", tok), SIU_POS_BAD_MOVE;
    if (rack_parse(&want, g->ld, tok + 5, &e2) != 0) return rk_error(err, "'%s': %s", tok, e2.msg), SIU_POS_BAD_MOVE;
    if (want.total > RK_RACK_SIZE) return rk_error(err, "'%s': more than %d tiles", tok, RK_RACK_SIZE), SIU_POS_BAD_MOVE;
    unseen_back(g, me);
    bool other_unknown = !p->rack_known[1 - me];
    if (other_unknown) unseen_back(g, 1 - me);
    for (int ml = 0; ml < RK_MAX_LETTERS; ml++)
        for (int i = 0; i < want.count[ml]; i++) {
            if (bag_take(&g->bag, (uint8_t)ml) != 0)
                return rk_error(err, "'%s': the rack holds tiles that are not unseen", tok), SIU_POS_BAD_MOVE;
            rack_add(&g->racks[me], (uint8_t)ml);
        }
    if (other_unknown) bag_refill_rack(&g->bag, &g->racks[1 - me], r);
    if (want.total < RK_RACK_SIZE && g->bag.count > 0)
        return rk_error(err, "'%s': %d tiles, but a rack is full while the bag has tiles (%d left)", tok, want.total,
                        g->bag.count),
               SIU_POS_BAD_MOVE;
    p->rack_known[me] = true;
    return SIU_POS_OK;
}

SiuPosError siu_position_build(SiuPosition *out, const char *cgp, char *const *moves, int nmoves,
                               const LetterDist *ld, const Layout *lay, const Kwg *kwg, uint64_t seed,
                               RkError *err) {
    memset(out, 0, sizeof *out);
    Game *g = &out->game;
    if (cgp_parse(g, cgp, ld, lay, kwg, seed, err) != 0) return SIU_POS_BAD_POSITION;
    Rng r;
    rng_seed_stream(&r, seed, 0x736975 /* "siu" */, 0);
    for (int k = 0; k < 2; k++) {
        out->rack_known[k] = g->racks[k].total > 0;
        if (!out->rack_known[k]) deal_rack(g, k, &r);
    }
    for (int i = 0; i < nmoves; i++) {
        SiuPosError rc;
        if (strncmp(moves[i], "rack.", 5) == 0) {
            if (i != nmoves - 1) return rk_error(err, "'%s' must be the last token of the moves", moves[i]), SIU_POS_BAD_MOVE;
            rc = set_rack(out, moves[i], &r, err);
        } else {
            rc = play_token(out, moves[i], &r, err);
        }
        if (rc != SIU_POS_OK) return rc;
    }
    if (out->has_last) {
        SiuPosError rc = last_seen(out, err);
        if (rc != SIU_POS_OK) return rc;
    }
    /* racks still unknown: dealt afresh from what is unseen now */
    for (int k = 0; k < 2; k++)
        if (!out->rack_known[k] && !game_over(g)) deal_rack(g, k, &r);
    return SIU_POS_OK;
}
