/*
 * h5util.c - HDF5 helpers shared by shards and model files (see h5util.h).
 */
#include "h5util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/atomicfile.h"
#include "core/textfile.h"

/* File access: the format from `oldest` on, and a strong close. */
static hid_t h5u_fapl(H5F_libver_t oldest) {
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0) return H5P_DEFAULT;
    H5Pset_libver_bounds(fapl, oldest, H5F_LIBVER_LATEST);
    H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
    return fapl;
}

hid_t h5u_create(const char *tmp, H5F_libver_t oldest, RkError *err) {
    hid_t file = -1;
    /* as rk_atomic_open: a stale temporary is removed by name and the file created exclusively
     * (O_EXCL fails on a symlink, dangling or not), never written through a planted link */
    if (unlink(tmp) != 0 && errno != ENOENT)
        return rk_error(err, "%s: cannot remove the stale temporary: %s", tmp, strerror(errno));
    H5E_BEGIN_TRY {
        hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
        if (fcpl >= 0) H5Pset_obj_track_times(fcpl, 0);
        hid_t fapl = h5u_fapl(oldest);
        file = H5Fcreate(tmp, H5F_ACC_EXCL, fcpl, fapl);
        if (fapl >= 0) H5Pclose(fapl);
        if (fcpl >= 0) H5Pclose(fcpl);
    }
    H5E_END_TRY;
    if (file < 0) rk_error(err, "%s: cannot create the HDF5 file", tmp);
    return file;
}

hid_t h5u_open_read(const char *path, RkError *err) {
    hid_t file = -1;
    if (rk_check_regular(path, err) != 0) return -1; /* HDF5 would block on a FIFO */
    H5E_BEGIN_TRY {
        hid_t fapl = h5u_fapl(H5F_LIBVER_V18); /* reading: any format */
        file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
        if (fapl >= 0) H5Pclose(fapl);
    }
    H5E_END_TRY;
    if (file >= 0) return file;
    FILE *f = fopen(path, "rb");
    if (!f) return rk_error(err, "%s: %s", path, strerror(errno));
    fclose(f);
    return rk_error(err, "%s: not an HDF5 file (corrupt or truncated)", path);
}

/* fsync of a closed file by name. */
static int fsync_path(const char *path, RkError *err) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) return rk_error(err, "%s: %s", path, strerror(errno));
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    if (rc != 0) return rk_error(err, "%s: fsync: %s", path, strerror(e));
    return 0;
}

int h5u_commit(const char *tmp, const char *path, RkError *err) {
    if (fsync_path(tmp, err) != 0) {
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        rk_error(err, "%s: rename: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else snprintf(dir, sizeof dir, ".");
    return rk_fsync_dir(dir, err);
}

int h5u_create_group(hid_t loc, const char *name) {
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    if (gcpl < 0) return -1;
    H5Pset_obj_track_times(gcpl, 0);
    hid_t g = H5Gcreate2(loc, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
    H5Pclose(gcpl);
    if (g < 0) return -1;
    return H5Gclose(g) < 0 ? -1 : 0;
}

int h5u_write_dataset(hid_t loc, const char *name, hid_t filetype, hid_t memtype, int rank, const hsize_t *dims,
                      const hsize_t *chunk, const void *data) {
    hid_t space = H5Screate_simple(rank, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    int rc = -1;
    if (space < 0 || dcpl < 0) goto done;
    H5Pset_obj_track_times(dcpl, 0);
    if (chunk) {
        if (H5Pset_chunk(dcpl, rank, chunk) < 0 || H5Pset_shuffle(dcpl) < 0 || H5Pset_deflate(dcpl, 4) < 0 ||
            H5Pset_fletcher32(dcpl) < 0)
            goto done;
    }
    hid_t ds = H5Dcreate2(loc, name, filetype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (ds < 0) goto done;
    bool empty = false;
    for (int i = 0; i < rank; i++) empty |= dims[i] == 0;
    rc = empty || H5Dwrite(ds, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0 ? 0 : -1;
    if (H5Dclose(ds) < 0) rc = -1;
done:
    if (dcpl >= 0) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
    return rc;
}

int h5u_write_attr_int(hid_t obj, const char *name, int64_t v) {
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT);
    int rc = a >= 0 && H5Awrite(a, H5T_NATIVE_INT64, &v) >= 0 ? 0 : -1;
    if (a >= 0) H5Aclose(a);
    H5Sclose(space);
    return rc;
}

int h5u_write_attr_str(hid_t obj, const char *name, const char *v) {
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, strlen(v) + 1);
    H5Tset_strpad(type, H5T_STR_NULLTERM);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    int rc = a >= 0 && H5Awrite(a, type, v) >= 0 ? 0 : -1;
    if (a >= 0) H5Aclose(a);
    H5Sclose(space);
    H5Tclose(type);
    return rc;
}

int h5u_read_attr_int(hid_t obj, const char *name, int64_t *v) {
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0) return -1;
    int rc = H5Aread(a, H5T_NATIVE_INT64, v) >= 0 ? 0 : -1;
    H5Aclose(a);
    return rc;
}

int h5u_read_attr_str(hid_t obj, const char *name, char *out, size_t cap) {
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0) return -1;
    hid_t ft = H5Aget_type(a);
    int rc = -1;
    if (ft >= 0 && H5Tget_class(ft) == H5T_STRING && !H5Tis_variable_str(ft) && H5Tget_size(ft) <= cap) {
        hid_t mt = H5Tcopy(H5T_C_S1);
        H5Tset_size(mt, H5Tget_size(ft));
        memset(out, 0, cap);
        rc = H5Aread(a, mt, out) >= 0 ? 0 : -1;
        out[cap - 1] = 0;
        H5Tclose(mt);
    }
    if (ft >= 0) H5Tclose(ft);
    H5Aclose(a);
    return rc;
}

/* The chunk index of a chunked dataset of dims[0..rank), before anything is
 * read through it: every chunk present, with all its filters applied (the
 * writer never skips one: a mask that skips Fletcher-32 would let a damaged
 * chunk through unchecked) and inside the file (HDF5 allocates a chunk's
 * stored size before it reads it: 4 GiB for a forged size; and at least the
 * 4 bytes of its checksum under Fletcher-32), each at its own
 * place of the chunk grid (a forged offset would leave a place to the fill
 * value). The 1.8 format's v1 B-tree that holds these has no checksum of its
 * own. Contiguous and compact datasets pass. Returns 0 or -1. */
static int check_chunks(hid_t ds, hid_t space, int rank, const hsize_t *dims) {
    hid_t dcpl = H5Dget_create_plist(ds);
    if (dcpl < 0) return -1;
    H5D_layout_t layout = H5Pget_layout(dcpl);
    hsize_t cdims[4] = {0};
    int crank = layout == H5D_CHUNKED ? H5Pget_chunk(dcpl, 4, cdims) : 0;
    /* a chunk under Fletcher-32 ends with its 4-byte checksum: HDF5 1.10's
     * filter reads size - 4 bytes unsigned, so a forged size under 4 would
     * have it read far past the chunk (found by fuzz_shard_file) */
    hsize_t min_size = 1;
    H5E_BEGIN_TRY {
        if (layout == H5D_CHUNKED &&
            H5Pget_filter_by_id2(dcpl, H5Z_FILTER_FLETCHER32, NULL, NULL, NULL, 0, NULL, NULL) >= 0)
            min_size = 4;
    }
    H5E_END_TRY;
    H5Pclose(dcpl);
    if (layout < 0) return -1;
    if (layout != H5D_CHUNKED) return 0;
    if (crank != rank) return -1;
    hsize_t want = 1;
    for (int i = 0; i < rank; i++) {
        if (cdims[i] == 0) return -1;
        want *= (dims[i] + cdims[i] - 1) / cdims[i];
    }
    hsize_t n = 0, fsize = 0;
    if (H5Dget_num_chunks(ds, space, &n) < 0 || n != want) return -1;
    hid_t file = H5Iget_file_id(ds);
    if (file < 0) return -1;
    herr_t got = H5Fget_filesize(file, &fsize);
    H5Fclose(file); /* the caller's id stays open */
    if (got < 0) return -1;
    /* each chunk at its own place of the grid: a damaged offset would leave
     * a place to the fill value (zeros) and the chunk outside the extent */
    uint8_t *seen = calloc((size_t)(want + 7) / 8, 1);
    if (seen == NULL) return -1;
    int rc = 0;
    for (hsize_t i = 0; i < n && rc == 0; i++) {
        hsize_t off[4], size = 0, place = 0;
        unsigned mask = 0;
        haddr_t addr = HADDR_UNDEF;
        if (H5Dget_chunk_info(ds, space, i, off, &mask, &addr, &size) < 0 || mask != 0 || addr == HADDR_UNDEF ||
            size < min_size || size > fsize || addr > fsize - size) {
            rc = -1;
            break;
        }
        for (int k = 0; k < rank && rc == 0; k++) {
            if (off[k] >= dims[k]) rc = -1; /* (HDF5 reports offsets on the grid: it keeps offset / chunk) */
            place = place * ((dims[k] + cdims[k] - 1) / cdims[k]) + off[k] / cdims[k];
        }
        if (rc == 0 && (seen[place / 8] >> (place % 8) & 1)) rc = -1;
        if (rc == 0) seen[place / 8] |= (uint8_t)(1u << (place % 8));
    }
    free(seen);
    return rc;
}

/* The byte ranges of chunks. */
typedef struct ChunkRange {
    haddr_t addr;
    hsize_t size;
} ChunkRange;

/* Appends the ranges of dataset `name`'s chunks (none if it is absent or not
 * chunked). Returns 0 or -1 (the index cannot be read; out of memory). */
static int collect_chunks(hid_t loc, const char *name, ChunkRange **r, size_t *n, size_t *cap) {
    if (H5Lexists(loc, name, H5P_DEFAULT) <= 0) return 0;
    hid_t ds = H5Dopen2(loc, name, H5P_DEFAULT);
    if (ds < 0) return -1;
    hid_t dcpl = H5Dget_create_plist(ds), space = H5Dget_space(ds);
    H5D_layout_t layout = dcpl >= 0 ? H5Pget_layout(dcpl) : H5D_LAYOUT_ERROR;
    int rc = layout < 0 ? -1 : 0;
    hsize_t count = 0;
    if (layout == H5D_CHUNKED && (space < 0 || H5Dget_num_chunks(ds, space, &count) < 0)) rc = -1;
    for (hsize_t i = 0; i < count && rc == 0; i++) {
        hsize_t off[H5S_MAX_RANK], size = 0;
        unsigned mask = 0;
        haddr_t addr = HADDR_UNDEF;
        if (H5Dget_chunk_info(ds, space, i, off, &mask, &addr, &size) < 0) {
            rc = -1;
        } else if (addr != HADDR_UNDEF) {
            if (*n == *cap) {
                size_t grow = *cap ? 2 * *cap : 64;
                ChunkRange *more = realloc(*r, grow * sizeof *more);
                if (more == NULL) {
                    rc = -1;
                    break;
                }
                *r = more, *cap = grow;
            }
            (*r)[(*n)++] = (ChunkRange){addr, size};
        }
    }
    if (space >= 0) H5Sclose(space);
    if (dcpl >= 0) H5Pclose(dcpl);
    H5Dclose(ds);
    return rc;
}

static int by_addr(const void *a, const void *b) {
    haddr_t x = ((const ChunkRange *)a)->addr, y = ((const ChunkRange *)b)->addr;
    return (x > y) - (x < y);
}

int h5u_check_chunk_overlap(hid_t loc, const char *const *names, int count) {
    ChunkRange *r = NULL;
    size_t n = 0, cap = 0;
    bool bad = false;
    for (int i = 0; i < count && !bad; i++) bad = collect_chunks(loc, names[i], &r, &n, &cap) != 0;
    if (!bad && n > 1) {
        qsort(r, n, sizeof *r, by_addr);
        for (size_t i = 1; i < n && !bad; i++) bad = r[i].addr - r[i - 1].addr < r[i - 1].size;
    }
    free(r);
    return bad ? -1 : 0;
}

int h5u_read_dataset(hid_t loc, const char *name, hid_t memtype, int rank, const hsize_t *want, void *data,
                     const char *path, RkError *err) {
    hid_t ds = H5Dopen2(loc, name, H5P_DEFAULT);
    if (ds < 0) return rk_error(err, "%s: no dataset '%s'", path, name);
    hid_t space = H5Dget_space(ds);
    hsize_t dims[4] = {0};
    int r = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
    int rc = -1;
    if (r != rank || r > 4 || H5Sget_simple_extent_dims(space, dims, NULL) < 0) {
        rk_error(err, "%s: dataset '%s' has %d dimensions, expected %d", path, name, r, rank);
        goto done;
    }
    for (int i = 0; i < rank; i++)
        if (dims[i] != want[i]) {
            rk_error(err, "%s: dataset '%s' dimension %d is %llu, expected %llu", path, name, i,
                     (unsigned long long)dims[i], (unsigned long long)want[i]);
            goto done;
        }
    bool empty = false;
    for (int i = 0; i < rank; i++) empty |= dims[i] == 0;
    if (!empty && (check_chunks(ds, space, rank, dims) != 0 ||
                   H5Dread(ds, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)) {
        rk_error(err, "%s: dataset '%s' cannot be read (corrupt or truncated file)", path, name);
        goto done;
    }
    rc = 0;
done:
    if (space >= 0) H5Sclose(space);
    H5Dclose(ds);
    return rc;
}
