#include "selfplay.h"
#include "eval/klv.h"

/* The move movegen_best gives, from the k best by equity: the first in
 * movegen_compare order of those tied with the first on equity and score.
 * False when all k are tied (others may be too), and only movegen_best can
 * tell. */
static bool best_of_top(const MoveList *top, int k, Move *m) {
    const Move *first = &top->moves[0];
    const Move *last = &top->moves[top->count - 1];
    if (top->count == (size_t)k && last->equity == first->equity && last->score == first->score) return false;
    *m = *first;
    for (size_t i = 1; i < top->count && top->moves[i].equity == first->equity && top->moves[i].score == first->score;
         i++)
        if (movegen_compare(&top->moves[i], m) < 0) *m = top->moves[i];
    return true;
}

void selfplay_game(const SelfplayConfig *cfg, uint64_t game_index, Game *g, SelfplayStats *stats,
                   SelfplayObserver observe, void *ctx) {
    game_new(g, cfg->ld, cfg->layout, cfg->kwg, cfg->seed, cfg->generation, game_index);
    PositionalValues pv;
    while (!game_over(g)) {
        Move m;
        if (cfg->top_list != NULL) movelist_clear(cfg->top_list);
        if (cfg->player != NULL) {
            player_choose(cfg->player, g, &m);
        } else {
            MoveGenRequest req;
            movegen_request_for_game(&req, g);
            klv_request_leaves(&req, cfg->leave_value, cfg->leave_ctx);
            req.positional = spv_prepare_for_game(cfg->spv, cfg->spv_k, g, &pv);
            if (cfg->top_list == NULL || req.positional != NULL) {
                movegen_best(&req, &m, NULL);
            } else {
                movegen_top(&req, cfg->top_k, move_compare_equity, cfg->top_list);
                if (!best_of_top(cfg->top_list, cfg->top_k, &m)) movegen_best(&req, &m, NULL);
            }
        }
        if (observe) observe(g, &m, ctx);
        if (stats) {
            stats->turns++;
            stats->bingos += m.kind == MOVE_PLACE && m.ntiles == RK_RACK_SIZE;
        }
        game_play(g, &m);
    }
    if (stats) {
        stats->games++;
        stats->score_sum[0] += g->scores[0];
        stats->score_sum[1] += g->scores[1];
        if (g->scores[0] > g->scores[1]) stats->wins[0]++;
        else if (g->scores[1] > g->scores[0]) stats->wins[1]++;
        else stats->draws++;
    }
}
