/*
 * winprob.h - the probability that the player on turn wins, from the lead
 * and the number of tiles still to be played: a normal model of what the
 * rest of the game adds to the lead.
 *
 * From the view of the player on turn, with lead L (their spread, points)
 * and t tiles not yet on the board (the bag plus both racks), the final
 * lead is modelled as L + D with D ~ Normal(mean(t), var(t)),
 *     mean(t) = mean0 + mean_per_tile * t   (the advantage of moving next)
 *     var(t)  = var0 + var_per_tile * t     (the game's remaining noise;
 *                                            t >= 1, var0 may be negative)
 * so P(win) = Phi((L + mean(t)) / sqrt(var(t))), a draw counted as half a
 * win (the model is continuous and ignores it). The four numbers are fitted
 * by least squares on static self-play (worker/winprob_study.h, `rookery
 * selfplay --winprob-study`); WINPROB_DEFAULT holds the fit of
 * docs/mcgs.md. The search uses it to give a rollout that stops before the
 * end of the game a win value (its win_bonus), which until then only the
 * rollouts that reached the end had.
 */
#ifndef ROOKERY_WINPROB_H
#define ROOKERY_WINPROB_H
#include "core/bag.h"
#include "core/common.h"

typedef struct WinModel {
    double mean0, mean_per_tile; /* points */
    double var0, var_per_tile;   /* points^2 */
} WinModel;

/* The fit of docs/mcgs.md ("Win values"): 4,000 static games, SOWPODS, the
 * standard board, the leaves of generation 4 of the default run (Brier
 * 0.1545 on 2,000 held-out games, where the sign of the lead has 0.2477).
 * Another lexicon, board or leaves may call for a fit of its own. */
#define WINPROB_DEFAULT \
    ((WinModel){.mean0 = 19.2946, .mean_per_tile = 0.0214446, .var0 = 0.0, .var_per_tile = 97.4644})

/* What a win is worth to a player that maximises spread, and how a position
 * that is not over is valued: bonus x (2 P(win) - 1) points, P(win) 1 or 0
 * once the game is over, from the model while it goes on (0 there if
 * terminal_only, the search's behaviour before the model). */
typedef struct WinValue {
    double bonus;       /* points; 0: spread only */
    bool terminal_only;
    WinModel model;
} WinValue;

/* bonus 0, the default model. */
void win_value_defaults(WinValue *w);
/* The win value of an ended game with final spread `spread` (one player's view). */
double win_value_final(const WinValue *w, double spread);
/* The win value of a game going on, for the player whose lead is `lead`
 * (from their view) when `on_turn` says whether they are on turn; t tiles
 * not on the board. */
double win_value_open(const WinValue *w, double lead, bool on_turn, int tiles_left);
/* Parses "terminal", "default" or "MEAN0:MEAN1:VAR0:VAR1" (the numbers of
 * `rookery selfplay --winprob-study`) into w's terminal_only and model;
 * errors name the value. */
int win_value_parse_model(WinValue *w, const char *text, RkError *err);

/* 0 if every number is finite and var(t) > 0 for t in 1..RK_MAX_BAG (any
 * bag this engine can hold, not only the letter distribution's);
 * else an error naming the bad value. */
int winprob_check(const WinModel *m, RkError *err);
/* mean(t) and sqrt(var(t)) of the model, points (t >= 1). */
double winprob_mean(const WinModel *m, int tiles_left);
double winprob_sd(const WinModel *m, int tiles_left);
/* P(the player on turn wins), lead from their view, t tiles not on the
 * board (t <= 0: the game is decided: 1, 1/2 or 0 by the sign of lead). */
double winprob(const WinModel *m, double lead, int tiles_left);

#endif
