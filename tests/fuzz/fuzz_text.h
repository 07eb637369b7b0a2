/* fuzz_text.h - what the text parsers' fuzz targets share: the input bytes
 * as a NUL-terminated string (libFuzzer's data is not terminated). */
#ifndef ROOKERY_FUZZ_TEXT_H
#define ROOKERY_FUZZ_TEXT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A malloc'ed copy of data[0..size) with a '\0' after it, or NULL. */
static inline char *fuzz_text(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (text == NULL) return NULL;
    memcpy(text, data, size);
    text[size] = '\0';
    return text;
}

#endif
