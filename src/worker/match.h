/*
 * match.h - game pairs between two players, for the match harness.
 *
 * Pair i is two games from the same seed (run seed, MATCH_STREAM, i): in the
 * first A moves first, in the second B does, so both players get the same
 * racks and the same bag order (the k-th tile drawn from the bag is the same
 * in both games until an exchange puts tiles back). Totals are integers so
 * that sums over ranks are exact.
 */
#ifndef ROOKERY_MATCH_H
#define ROOKERY_MATCH_H

#include "search/player.h"

#define MATCH_STREAM UINT64_C(0x6d61746368) /* "match": apart from training generations */

/* The deals of the training loop's matches. MATCH_DEALS_RUN: the run seed's
 * own, the same every generation (the leaves' and SPV matches, whose curves
 * compare generations on common deals). The search's matches have deals of
 * their own: the gate and the value check new ones every generation (they
 * choose a model, and a choice made on deals that another measurement
 * replays would bias that measurement), the anchor one set for the whole run
 * (its curve on common deals), none of them the others'; so does the
 * decision study's seed (its positions, the same every generation). */
typedef enum {
    MATCH_DEALS_RUN = 0,
    MATCH_DEALS_GATE = 0x67617465,   /* "gate", per generation */
    MATCH_DEALS_VALUE = 0x76616c75,  /* "valu", per generation */
    MATCH_DEALS_ANCHOR = 0x616e6368, /* "anch", the run's */
    MATCH_DEALS_DECISIONS = 0x64656369, /* "deci", the run's: the decision study's positions */
} MatchDeals;
/* The seed of generation gen's deals of that kind, from the run seed. */
uint64_t match_deals_seed(uint64_t run_seed, MatchDeals deals, int gen);

typedef struct MatchTotals {
    int64_t pairs, games, a_wins, draws, a_losses;
    int64_t spread_sum;         /* A's final score minus B's, summed over games */
    int64_t half_points;        /* per pair: 2 per A win + 1 per draw (0..4), summed */
    int64_t half_points_sq;     /* squares of the per-pair values, summed */
    int64_t turns;
} MatchTotals;
#define MATCH_TOTALS_FIELDS 9

typedef struct MatchResult {
    double win_pct, ci95_pct;   /* A's score share (draws half) and the 95% half-width, in % */
    double mean_spread;
} MatchResult;

/* The totals as an int64 array of MATCH_TOTALS_FIELDS (for a reduction over
 * ranks) and back. */
void match_totals_pack(const MatchTotals *t, int64_t out[MATCH_TOTALS_FIELDS]);
void match_totals_unpack(const int64_t in[MATCH_TOTALS_FIELDS], MatchTotals *t);
/* Plays pair `index` and adds it to t. scratch holds a game. */
void match_play_pair(const Player *a, const Player *b, const LetterDist *ld, const Layout *lay, const Kwg *kwg,
                     uint64_t seed, uint64_t index, Game *scratch, MatchTotals *t);
/* Win share with a 95% interval from the per-pair scores (pairs are the
 * independent units: the two games of a pair are correlated). */
void match_result(const MatchTotals *t, MatchResult *r);

#endif
