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
