/*
 * h5util.h - the HDF5 plumbing shared by the files rookery writes (training
 * shards, shard.c; model weights, model_io.c).
 *
 * Every file is written the same way:
 *   - the 1.8+ file format (or, by the caller's choice, the 1.10 one),
 *     whose superblock and object headers carry checksums, so damaged
 *     metadata is an error rather than a wrong value. The 1.10 format also
 *     keeps the address, size and filter mask of a dataset's single chunk in
 *     the (checksummed) object header instead of an unchecked B-tree;
 *   - a strong close (closing the file closes whatever an error path left
 *     open);
 *   - no object modification times, so a file's bytes depend only on its
 *     contents (writing the same data twice gives the same file);
 *   - atomically: to PATH.tmp, fsync'ed, renamed over PATH, and PATH's
 *     directory fsync'ed (h5u_commit).
 * Datasets are contiguous, or chunked with shuffle + deflate and a
 * Fletcher-32 checksum per chunk (a damaged chunk is a read error).
 *
 * The helpers do not touch HDF5's error stack: callers wrap them in
 * H5E_BEGIN_TRY / H5E_END_TRY so that nothing is printed, and turn a failure
 * into a one-line RkError naming the file. Only h5u_create, h5u_open_read,
 * h5u_commit and h5u_read_dataset write an RkError themselves.
 */
#ifndef ROOKERY_NN_H5UTIL_H
#define ROOKERY_NN_H5UTIL_H
#include <hdf5.h>
#include <stdint.h>

#include "core/common.h"

/* Creates (truncates) tmp for writing, in the format of HDF5 `oldest`
 * (H5F_LIBVER_V18 or H5F_LIBVER_V110) or newer, with no modification times;
 * quiet. Returns the file, or -1 with "TMP: cannot create the HDF5 file". */
hid_t h5u_create(const char *tmp, H5F_libver_t oldest, RkError *err);
/* Opens path read-only; quiet. Returns the file, or -1 with an error saying
 * why (the system's reason if it cannot be opened at all, "not an HDF5
 * file" otherwise). */
hid_t h5u_open_read(const char *path, RkError *err);
/* After tmp was written and closed: fsync tmp, rename it to path, fsync
 * path's directory. On failure tmp is removed. */
int h5u_commit(const char *tmp, const char *path, RkError *err);

/* A group with no modification time. Returns 0 or -1. */
int h5u_create_group(hid_t loc, const char *name);
/* Writes a dataset of dims[0..rank) elements of filetype from data (in
 * memtype). chunk is NULL for a contiguous dataset, else the chunk shape
 * (rank values), and the chunks get shuffle + deflate(4) + Fletcher-32. A
 * dataset with a zero dimension is created but nothing is written. Returns
 * 0 or -1. */
int h5u_write_dataset(hid_t loc, const char *name, hid_t filetype, hid_t memtype, int rank, const hsize_t *dims,
                      const hsize_t *chunk, const void *data);
/* The chunks of the datasets names[0..count) in loc (those present) each
 * occupy bytes of their own: no two overlap. In the 1.8 format the chunk
 * index (a v1 B-tree) has no checksum, so one damaged address can point a
 * dataset at another dataset's chunk of the same stored size, whose
 * Fletcher-32 passes: wrong data that reads cleanly. Call it before the
 * data read are used. Returns 0, or -1 (an overlap, or an index that cannot
 * be read). */
int h5u_check_chunk_overlap(hid_t loc, const char *const *names, int count);
/* Scalar attributes: a 64-bit integer, or a fixed-length NUL-terminated
 * string. Return 0 or -1. */
int h5u_write_attr_int(hid_t obj, const char *name, int64_t v);
int h5u_write_attr_str(hid_t obj, const char *name, const char *v);
/* Reads them back: -1 if the attribute is missing or of another kind (or a
 * string longer than cap-1 characters). */
int h5u_read_attr_int(hid_t obj, const char *name, int64_t *v);
int h5u_read_attr_str(hid_t obj, const char *name, char *out, size_t cap);
/* Reads dataset name, which must have exactly rank (<= 4) dimensions equal
 * to want[], into data (converted to memtype). A chunked dataset's chunk
 * index is checked first: every chunk present, none with a filter skipped,
 * each inside the file. Errors name path and the dataset: missing, another
 * shape, unreadable (corrupt or truncated). */
int h5u_read_dataset(hid_t loc, const char *name, hid_t memtype, int rank, const hsize_t *want, void *data,
                     const char *path, RkError *err);

#endif
