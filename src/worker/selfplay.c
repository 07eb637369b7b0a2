#include "selfplay.h"
#include "eval/klv.h"

void selfplay_game(const SelfplayConfig *cfg, uint64_t game_index, Game *g, SelfplayStats *stats,
                   SelfplayObserver observe, void *ctx) {
    game_new(g, cfg->ld, cfg->layout, cfg->kwg, cfg->seed, cfg->generation, game_index);
    PositionalValues pv;
    while (!game_over(g)) {
        Move m;
        if (cfg->player != NULL) {
            player_choose(cfg->player, g, &m);
        } else {
            MoveGenRequest req;
            movegen_request_for_game(&req, g);
            klv_request_leaves(&req, cfg->leave_value, cfg->leave_ctx);
            req.positional = spv_prepare_for_game(cfg->spv, cfg->spv_k, g, &pv);
            movegen_best(&req, &m, NULL);
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
