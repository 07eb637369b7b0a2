/*
 * leave_tilt.h - a 27-number baseline for H: the opponent's leave as a
 * tilted uniform draw from the unseen tiles.
 *
 * A leave x of k tiles (x_l copies of letter l) from an unseen pool with
 * m_l copies of each letter has, under the uniform draw, probability
 * prod_l C(m_l, x_l) / C(sum m, k) (the multivariate hypergeometric). The
 * tilted draw weighs each letter by exp(theta_l):
 *     P(x) = prod_l C(m_l, x_l) exp(theta_l x_l) / Z(m, k, theta),
 * Z summing the numerator over every leave of k tiles from the pool
 * (Fisher's noncentral multivariate hypergeometric). Z is the coefficient
 * of z^k in prod_l sum_j C(m_l, j) exp(theta_l j) z^j, a product of short
 * polynomials, so P is exact and cheap. theta = 0 is the uniform draw.
 *
 * theta is fitted by maximum likelihood on samples whose opponent's leave
 * is known (players keep good tiles: the blank and S get theta > 0, the
 * Q and duplicates' letters less): what H has to beat to show it learned
 * more than which letters players like to keep. The log-likelihood is
 * concave in theta (an exponential family in x), so Newton steps on its
 * diagonal converge; adding a constant to every theta changes nothing (the
 * leave's size is fixed), so the fit keeps their mean at 0.
 */
#ifndef ROOKERY_LEAVE_TILT_H
#define ROOKERY_LEAVE_TILT_H
#include "core/rack.h"
#include "nn/shard.h"

typedef struct LeaveTilt {
    int letters;                      /* letters 1..letters and the blank (0) */
    double theta[RK_MAX_LETTERS];
} LeaveTilt;

/* theta = 0: the uniform draw. */
void leave_tilt_uniform(LeaveTilt *t, int letters);
/* log P(leave) under t for a leave drawn from pool; -INFINITY if the leave
 * is not in the pool. */
double leave_tilt_logprob(const LeaveTilt *t, const Rack *pool, const Rack *leave);
/* Fits t by maximum likelihood on the samples set->s[idx[0..n)] whose
 * opponent's leave is known and not empty (the pool: position_unseen of
 * the sample's position), `iterations` damped diagonal Newton steps from
 * theta = 0. Returns the samples used (0: t stays uniform). */
size_t leave_tilt_fit(LeaveTilt *t, int letters, const LetterDist *ld, const ShardSet *set, const size_t *idx,
                      size_t n, int iterations);

#endif
