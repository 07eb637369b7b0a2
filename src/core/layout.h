/*
 * layout.h - board geometry: side, start square and premium squares.
 *
 * File format (standard15.txt): first line "row, col" of the start square
 * (0-based), then `dim` lines of `dim` characters:
 *   ' ' plain, '\'' double letter, '"' triple letter, '-' double word,
 *   '=' triple word.
 * Boards must be square (the generator uses the diagonal transpose).
 */
#ifndef ROOKERY_LAYOUT_H
#define ROOKERY_LAYOUT_H

#include "common.h"

typedef struct Layout {
    int dim;
    int start_row, start_col;
    int bingo_bonus;                       /* 50 */
    uint8_t letter_mult[RK_MAX_SQUARES];   /* index row*dim+col */
    uint8_t word_mult[RK_MAX_SQUARES];
    char name[64];
} Layout;

int layout_parse(Layout *lay, const char *text, const char *source, RkError *err);
int layout_load(Layout *lay, const char *path, RkError *err);
/* The built-in standard 15x15 board (the same as data/standard15.txt). */
void layout_standard15(Layout *lay);
/* "standard15" gives the built-in board, anything else is a file path. */
int layout_open(Layout *lay, const char *name_or_path, RkError *err);

#endif
