/* metrics_row.h - a row of RUN/metrics.csv built column by column, each
 * value added with its column's name, so the header and the row cannot
 * drift apart (the header is the names of the newest row; rows written
 * before a column existed stop short of it, and `rookery report` reads
 * columns by name). */
#ifndef ROOKERY_TRAIN_METRICS_ROW_H
#define ROOKERY_TRAIN_METRICS_ROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct MetricsRow {
    char header[4096]; /* "name,name,...", no newline */
    char row[4096];    /* "value,value,...\n" once finished */
    size_t hlen, rlen;
    int columns;
    bool overflow;     /* a buffer was too small: the row is not usable */
} MetricsRow;

void metrics_row_init(MetricsRow *m);
void metrics_row_int(MetricsRow *m, const char *name, int64_t v);
void metrics_row_uint(MetricsRow *m, const char *name, uint64_t v);
/* v with `decimals` digits after the point (%.Nf). */
void metrics_row_real(MetricsRow *m, const char *name, int decimals, double v);
/* Ends the row with a newline; 0, or -1 if it overflowed. */
int metrics_row_finish(MetricsRow *m);

#endif
