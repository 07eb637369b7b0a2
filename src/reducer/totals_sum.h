/*
 * totals_sum.h - the workers' integer totals summed over every rank.
 *
 * A match, a decision study and the held-out residuals each keep fixed-point
 * int64 totals in a struct of worker/ (each rank adds its share of games or
 * positions). These functions pack the struct, sum it over all ranks with
 * comm_sum_i64 and unpack the sum into the same struct on every rank. The
 * sums are exact, so the totals do not depend on the number of ranks.
 * Collective: every rank calls them. On failure *err says why and the struct
 * keeps this rank's own totals.
 */
#ifndef ROOKERY_TOTALS_SUM_H
#define ROOKERY_TOTALS_SUM_H

#include "core/common.h"
#include "reducer/comm.h"
#include "worker/decision_study.h"
#include "worker/match.h"
#include "worker/residuals.h"

int totals_sum_match(const Comm *c, MatchTotals *t, RkError *err);
int totals_sum_decisions(const Comm *c, DecisionTotals *t, RkError *err);
int totals_sum_residuals(const Comm *c, ResidualStats *s, RkError *err);

#endif
