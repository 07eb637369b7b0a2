#include "common.h"

#include <stdarg.h>
#include <stdio.h>

int rk_error(RkError *err, const char *fmt, ...) {
    if (err != NULL) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}
