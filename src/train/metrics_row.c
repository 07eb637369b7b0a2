/* metrics_row.c - see metrics_row.h. */
#include "metrics_row.h"

#include <inttypes.h>
#include <stdio.h>

void metrics_row_init(MetricsRow *m) {
    m->header[0] = m->row[0] = '\0';
    m->hlen = m->rlen = 0;
    m->columns = 0;
    m->overflow = false;
}

static void append(char *buf, size_t cap, size_t *len, bool *overflow, const char *text) {
    int n = snprintf(buf + *len, cap - *len, "%s", text);
    if (n < 0 || (size_t)n >= cap - *len) *overflow = true;
    else *len += (size_t)n;
}

static void add(MetricsRow *m, const char *name, const char *value) {
    if (m->overflow) return;
    const char *sep = m->columns > 0 ? "," : "";
    append(m->header, sizeof m->header, &m->hlen, &m->overflow, sep);
    append(m->header, sizeof m->header, &m->hlen, &m->overflow, name);
    append(m->row, sizeof m->row, &m->rlen, &m->overflow, sep);
    append(m->row, sizeof m->row, &m->rlen, &m->overflow, value);
    m->columns++;
}

void metrics_row_int(MetricsRow *m, const char *name, int64_t v) {
    char text[32];
    snprintf(text, sizeof text, "%" PRId64, v);
    add(m, name, text);
}

void metrics_row_uint(MetricsRow *m, const char *name, uint64_t v) {
    char text[32];
    snprintf(text, sizeof text, "%" PRIu64, v);
    add(m, name, text);
}

void metrics_row_real(MetricsRow *m, const char *name, int decimals, double v) {
    char text[400]; /* %.Nf of any double fits */
    snprintf(text, sizeof text, "%.*f", decimals, v);
    add(m, name, text);
}

int metrics_row_finish(MetricsRow *m) {
    if (!m->overflow) append(m->row, sizeof m->row, &m->rlen, &m->overflow, "\n");
    return m->overflow ? -1 : 0;
}
