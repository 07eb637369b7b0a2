/* png.h - a tiny PNG writer with no dependencies: 8-bit RGB, no interlace,
 * filter 0 on every row, and a zlib stream of stored (uncompressed) deflate
 * blocks. CRC-32 and Adler-32 are computed here. Meant for small pictures
 * (heat maps), not for photographs: the file is about 3*width*height bytes.
 * The file is written atomically (core/atomicfile.h). */
#ifndef ROOKERY_PNG_H
#define ROOKERY_PNG_H

#include "common.h"

/* Largest side accepted, in pixels (the whole file is built in memory). */
#define PNG_MAX_SIDE 8192

/* Writes a width x height image to path. rgb holds height rows of width
 * pixels, 3 bytes each (R, G, B), top row first. Returns 0, or -1 with a
 * one-line message naming path (bad size, out of memory, write failure). */
int png_write_rgb(const char *path, int width, int height, const uint8_t *rgb, RkError *err);

#endif
