/*
 * The private helpers of the argument normalizers (args.c for the dense
 * collectives, neighbor_args.c for the neighbourhood one): a side's per-peer
 * arrays, carved from one allocation that the args own, and their checks.
 * Included by those two files only.
 */
#ifndef XCHG_CORE_ARGS_SIDES_H
#define XCHG_CORE_ARGS_SIDES_H

#include <stdint.h>
#include <string.h>

#include "args.h"
#include "error.h"

static inline void args_init(xchg_args *a, xchg_coll coll, MPI_Comm comm, int rank, int size)
{
    memset(a, 0, sizeof *a);
    a->coll = coll;
    a->comm = comm;
    a->rank = rank;
    a->size = size;
    a->uniform_bytes = -1;
}

/* Per-peer arrays of one side, carved from one allocation owned by the args. */
typedef struct side_arrays { int *counts; int64_t *offsets, *bytes; } side_arrays;

static inline int alloc_arrays(xchg_args *a, int size, int nsides, side_arrays *arr)
{
    size_t per_side = (size_t)size * (sizeof(int) + 2 * sizeof(int64_t));
    per_side = (per_side + 7) & ~(size_t)7; /* keep the next side's int64 arrays aligned */
    char *mem = xchg_malloc(per_side * (size_t)nsides + 1);
    if (!mem) return xchg_error(MPI_ERR_NO_MEM, "out of memory (%zu bytes)", per_side * nsides);
    a->owned = mem;
    for (int s = 0; s < nsides; s++) {
        arr[s].offsets = (int64_t *)mem;
        arr[s].bytes = arr[s].offsets + size;
        arr[s].counts = (int *)(arr[s].bytes + size);
        mem += per_side;
    }
    return MPI_SUCCESS;
}

static inline void side_init(xchg_side *s, const side_arrays *arr, void *buf)
{
    s->buf = buf;
    s->counts = arr->counts;
    s->offsets = arr->offsets;
    s->bytes = arr->bytes;
}

/* Check one side's counts and buffer; fill bytes. */
static inline int side_check(xchg_side *s, int size, const char *what)
{
    int relative = 0; /* a non-empty block whose datatype is not absolute */
    for (int p = 0; p < size; p++) {
        const xchg_type_info *t = xchg_side_type(s, p);
        if (s->counts[p] < 0)
            return xchg_error(MPI_ERR_COUNT, "%s count for rank %d is negative (%d)", what, p,
                              s->counts[p]);
        s->bytes[p] = (int64_t)s->counts[p] * t->size;
        /* MPI_BOTTOM (NULL) is a buffer only for a datatype that addresses
         * absolute memory (built from MPI_Get_address): its data starts
         * beyond the first page. */
        if (s->counts[p] > 0 && t->size > 0 && t->true_lb < 4096) relative = 1;
    }
    if (relative && s->buf == NULL)
        return xchg_error(MPI_ERR_BUFFER, "%s buffer is NULL (MPI_BOTTOM) but a %s count is not "
                          "zero and the datatype does not address absolute memory", what, what);
    return MPI_SUCCESS;
}

#endif
