/* textfile.h - reading a whole small file into memory, with errors that name
 * the file. Used by the loaders of text formats (distribution, layout). */
#ifndef ROOKERY_TEXTFILE_H
#define ROOKERY_TEXTFILE_H

#include "common.h"

/* Reads the file at path into a malloc'ed NUL-terminated buffer; at most
 * max_bytes (larger files are an error). *len gets the byte count if len is
 * not NULL. Returns NULL and sets err on failure. */
char *rk_read_file(const char *path, size_t max_bytes, size_t *len, RkError *err);

#endif
