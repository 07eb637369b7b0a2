/* spec_option.c - player spec options (see spec_option.h). */
#include "spec_option.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int spec_number(const char *spec, const char *key, const char *val, double lo, double hi, bool integer, double *out,
                RkError *err) {
    char *end;
    errno = 0;
    double x = strtod(val, &end);
    if (errno != 0 || *end != '\0' || end == val || !isfinite(x) || x < lo || x > hi || (integer && x != floor(x)))
        return rk_error(err, "player '%s': %s '%s' is not a %s in [%g, %g]", spec, key, val,
                        integer ? "whole number" : "number", lo, hi);
    *out = x;
    return 0;
}

int spec_choice(const char *spec, const char *key, const char *val, const char *const *names, int *out, RkError *err) {
    char list[256] = "";
    for (int i = 0; names[i] != NULL; i++) {
        if (strcmp(val, names[i]) == 0) {
            *out = i;
            return 0;
        }
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", names[i]);
    }
    return rk_error(err, "player '%s': %s '%s' is not one of %s", spec, key, val, list);
}
