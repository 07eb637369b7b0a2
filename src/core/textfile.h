/* textfile.h - reading a whole file into memory, with errors that name the
 * file. rk_read_file serves the loaders of text formats (distribution,
 * layout, configuration), rk_read_regular_file the binary ones (kwg, klv2,
 * req). */
#ifndef ROOKERY_TEXTFILE_H
#define ROOKERY_TEXTFILE_H

#include "common.h"

/* Opens path for reading if it is a regular file: opened with O_NONBLOCK
 * (so that a FIFO or a device cannot block the open), checked with fstat,
 * then made blocking again. Returns the descriptor, or -1 with err set
 * ("PATH: not a regular file", or strerror). Every loader opens its input
 * this way (a FIFO given as a lexicon or table used to hang the loader). */
int rk_open_regular(const char *path, RkError *err);
/* The same check for a file some library opens itself (HDF5): 0 if path is
 * a regular file (opened and closed at once), else -1 with err set. */
int rk_check_regular(const char *path, RkError *err);

/* Reads the file at path into a malloc'ed NUL-terminated buffer; at most
 * max_bytes (larger files are an error). *len gets the byte count if len is
 * not NULL. Returns NULL and sets err on failure. */
char *rk_read_file(const char *path, size_t max_bytes, size_t *len, RkError *err);

/* Reads the regular file at path into a malloc'ed buffer (malloc's
 * alignment, so it may be used as an array of any type; one byte is
 * allocated for an empty file). The size is taken when the file is opened:
 * a file that is not regular or larger than max_bytes is refused ("PATH: N
 * bytes is too large for <what>"), and so is one that shrinks while being
 * read. *len gets the byte count. Returns NULL and sets err on failure. */
void *rk_read_regular_file(const char *path, uint64_t max_bytes, const char *what, size_t *len,
                           RkError *err);

#endif
