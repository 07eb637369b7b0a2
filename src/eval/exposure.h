/*
 * exposure.h - a cross-word exposure term for static equity (the
 * refinement of ../shared/spv-design.md, "Cross-Word Specific Table",
 * after Maven): what a move opens next to its fresh tiles.
 *
 * Features of a placement (on the board before it):
 *   for each fresh tile and each of its 4 orthogonal neighbour squares that
 *   stays empty after the move and is a premium square of kind k (double
 *   letter, triple letter, double word, triple word):
 *     x[k]     += 1
 *     x[4 + k] += the tile's face value (a blank 0)
 * The adjustment is beta . x (millipoints), applied while the bag is not
 * empty. beta is fitted by least squares against what the opponent scores
 * next (worker/exposure_study.h); it is stored as a small text file, one
 * "name value" line a coefficient (points).
 */
#ifndef ROOKERY_EXPOSURE_H
#define ROOKERY_EXPOSURE_H
#include "core/board.h"
#include "core/move.h"

#define EXPOSURE_FEATURES 8

typedef struct Exposure {
    double beta[EXPOSURE_FEATURES]; /* points per unit of each feature */
} Exposure;

/* Names of the features, for files and reports ("dl", "tl", "dw", "tw",
 * "dl_value", ...). */
const char *exposure_feature_name(int i);
/* The features of placement m on board b (before m). Other moves: zeros. */
void exposure_features(const Board *b, const Move *m, double x[EXPOSURE_FEATURES]);
/* beta . x in millipoints (rounded). */
int32_t exposure_adjust(const Exposure *e, const double x[EXPOSURE_FEATURES]);

int exposure_write(const Exposure *e, const char *path, RkError *err);
/* Reads a file written by exposure_write: every feature once, finite
 * values; errors name the file and line. */
int exposure_load(Exposure *e, const char *path, RkError *err);

#endif
