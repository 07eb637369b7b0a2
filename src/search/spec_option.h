/*
 * spec_option.h - reading the key=value options of a player spec
 * ("sim:plies=2,candidates=10"): numbers in a range and named choices,
 * with one-line errors that name the spec, the key and the value.
 */
#ifndef ROOKERY_SPEC_OPTION_H
#define ROOKERY_SPEC_OPTION_H
#include "core/common.h"

/* A number in [lo, hi] (a whole number if integer). */
int spec_number(const char *spec, const char *key, const char *val, double lo, double hi, bool integer, double *out,
                RkError *err);
/* One of the NULL-terminated `names`; *out = its index. */
int spec_choice(const char *spec, const char *key, const char *val, const char *const *names, int *out, RkError *err);

#endif
