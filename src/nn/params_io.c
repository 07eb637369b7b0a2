/*
 * params_io.c - a network's tensors in HDF5 (see params_io.h).
 */
#include "params_io.h"

#include <math.h>
#include <stdio.h>

#include "h5util.h"

/* The three saved blocks of NnParams, each a group of one dataset per
 * tensor. */
enum { NN_IO_GROUPS = 3 };
static const char *const group_name[NN_IO_GROUPS] = {"weights", "adam_m", "adam_v"};

static float *group_block(const NnParams *ps, int g) { return g == 0 ? ps->w : g == 1 ? ps->m : ps->v; }

static void tensor_path(char *buf, size_t cap, int g, const char *tensor) {
    snprintf(buf, cap, "/%s/%s", group_name[g], tensor);
}

int nn_params_write(hid_t file, const NnParams *ps) {
    int bad = 0;
    for (int g = 0; g < NN_IO_GROUPS && !bad; g++) {
        bad |= h5u_create_group(file, group_name[g]);
        for (int i = 0; i < ps->count && !bad; i++) {
            const NnParam *p = &ps->p[i];
            hsize_t dims[NNP_MAX_DIMS];
            for (int d = 0; d < p->ndim; d++) dims[d] = (hsize_t)p->shape[d];
            char name[NNP_NAME_MAX + 16];
            tensor_path(name, sizeof name, g, p->name);
            bad |= h5u_write_dataset(file, name, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, p->ndim, dims, dims,
                                     group_block(ps, g) + p->offset);
        }
    }
    return bad;
}

/* Reads group g's copy of every tensor into its block, checking presence,
 * shape and values, then that the group holds nothing else. */
static int read_group(hid_t file, int g, NnParams *ps, const char *path, RkError *err) {
    hid_t grp = H5Gopen2(file, group_name[g], H5P_DEFAULT);
    if (grp < 0) return rk_error(err, "%s: group '/%s' is missing or unreadable", path, group_name[g]);
    H5G_info_t gi;
    int rc = H5Gget_info(grp, &gi);
    H5Gclose(grp);
    if (rc < 0) return rk_error(err, "%s: group '/%s' cannot be read (corrupt or truncated file)", path, group_name[g]);
    float *block = group_block(ps, g);
    for (int i = 0; i < ps->count; i++) {
        const NnParam *p = &ps->p[i];
        hsize_t want[NNP_MAX_DIMS];
        for (int d = 0; d < p->ndim; d++) want[d] = (hsize_t)p->shape[d];
        char name[NNP_NAME_MAX + 16];
        tensor_path(name, sizeof name, g, p->name);
        float *x = block + p->offset;
        if (h5u_read_dataset(file, name, H5T_NATIVE_FLOAT, p->ndim, want, x, path, err) != 0) return -1;
        for (size_t k = 0; k < p->n; k++) {
            if (!isfinite(x[k]))
                return rk_error(err, "%s: tensor '%s' has a non-finite value (%g) at index %zu", path, name,
                                (double)x[k], k);
            if (g == 2 && x[k] < 0.0f)
                return rk_error(err, "%s: tensor '%s' has a negative second moment at index %zu", path, name, k);
        }
    }
    /* every tensor is there: anything more is not this architecture's */
    if (gi.nlinks != (hsize_t)ps->count)
        return rk_error(err, "%s: group '/%s' has %llu entries, the architecture has %d tensors", path,
                        group_name[g], (unsigned long long)gi.nlinks, ps->count);
    return 0;
}

int nn_params_read(hid_t file, NnParams *ps, const char *path, RkError *err) {
    for (int g = 0; g < NN_IO_GROUPS; g++)
        if (read_group(file, g, ps, path, err) != 0) return -1;
    return 0;
}
