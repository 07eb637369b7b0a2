/*
 * policy_target.h - the P target that a search's root gives a training
 * sample (worker/samples.h records it; docs/mcgs.md "Policy targets").
 *
 * VISITS (target=visits, the default): AlphaZero's, the root's visit
 *   distribution N(a) / sum_b N(b); unvisited moves get nothing.
 * Q (target=q): Gumbel AlphaZero's improved policy with completed Q values
 *   (Danihelka et al. 2022, "Policy improvement by planning with Gumbel"):
 *     pi'(a) = softmax_a( log prior(a) + sigma(q(a)) )
 *   over every root candidate, where
 *     q(a)      the edge's value (its reward + its child's, the mover's view)
 *               if the edge was visited, else v_mix, the prior-weighted mean
 *               of the visited edges' values (the paper's mixed value
 *               without the net's own estimate, which the search may not
 *               have: rollouts value the leaf nodes);
 *     sigma(q)  (c_visit + max_b N(b)) * scale * (q - q_min) / max(q_max - q_min, span),
 *               q_min and q_max over the completed values, c_visit = 50
 *               (the paper's), scale = target_scale= (default 0.1, the
 *               paper's), span = target_span= (default 10, in the values'
 *               units: points of spread without a win bonus).
 *   The paper divides by q_max - q_min alone (its values lie in [-1, 1]);
 *   in points a floor keeps a 1-point difference between two moves from
 *   counting as much as a 100-point one. A search of few visits shapes
 *   its visit counts by its prior and exploration more than by what it
 *   found; the improved policy moves each candidate's probability by its
 *   value, more as the visits grow. Unvisited moves get v_mix, near the
 *   best visited values when the prior favours those, as in the paper
 *   (which pairs this target with sequential halving at the root, where
 *   every candidate is visited). If a visited value is
 *   not finite, the target falls back to the visits.
 */
#ifndef ROOKERY_POLICY_TARGET_H
#define ROOKERY_POLICY_TARGET_H
#include "search/mcgs.h"

typedef enum { POLICY_TARGET_VISITS = 0, POLICY_TARGET_Q = 1 } PolicyTargetKind;

#define POLICY_TARGET_C_VISIT 50.0

typedef struct PolicyTarget {
    PolicyTargetKind kind;
    double scale; /* target_scale=, > 0 */
    double span;  /* target_span=, > 0, the values' units */
} PolicyTarget;

void policy_target_defaults(PolicyTarget *t);
/* One key=value option of a player spec (target, target_scale,
 * target_span). Returns 0, -1 with err set (naming the spec), or 1 if the
 * key is not one of them. */
int policy_target_option(PolicyTarget *t, const char *spec, const char *key, const char *val, RkError *err);
/* The target's probabilities of res's root edges, probs[0..res->count):
 * they sum to 1. Returns the number of edges with a probability above 0, or
 * 0 if no edge was visited (one legal move, or a failed search): then the
 * sample's target is the move played. */
int policy_target_compute(const PolicyTarget *t, const McgsResult *res, float *probs);

#endif
