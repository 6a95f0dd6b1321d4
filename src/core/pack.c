/*
 * One block of a side as packed bytes and back (args.h): for algorithms
 * that forward or aggregate data. Each block is packed with its own
 * datatype (alltoallw: its peer's), contiguous ones by memcpy.
 */
#include "args.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

/*
 * A block at address 0: the buffer is MPI_BOTTOM and the datatype holds
 * absolute addresses. MPICH 4.0's MPI_Pack and MPI_Unpack refuse a NULL
 * buffer even then, so the same memory is described from address 1: one
 * element of an hindexed type whose single block of `count` elements starts
 * at displacement -1.
 */
static int pack_bottom(const xchg_side *s, int peer, void *packed, int unpack)
{
    int rc, position = 0, len = s->counts[peer];
    MPI_Aint displ = -1;
    MPI_Datatype shifted = MPI_DATATYPE_NULL;
    char *one = (char *)1;
    XCHG_CHECK(MPI_Type_create_hindexed(1, &len, &displ, xchg_side_type(s, peer)->type,
                                        &shifted));
    XCHG_CHECK(MPI_Type_commit(&shifted));
    if (unpack)
        XCHG_CHECK(MPI_Unpack(packed, (int)s->bytes[peer], &position, one, 1, shifted,
                              MPI_COMM_SELF));
    else
        XCHG_CHECK(MPI_Pack(one, 1, shifted, packed, (int)s->bytes[peer], &position,
                            MPI_COMM_SELF));
fail:
    if (shifted != MPI_DATATYPE_NULL) MPI_Type_free(&shifted);
    return rc;
}

int xchg_pack_block(const xchg_side *s, int peer, void *dst)
{
    if (s->bytes[peer] == 0) return MPI_SUCCESS;
    const char *src = xchg_side_block_ptr(s, peer);
    const xchg_type_info *t = xchg_side_type(s, peer);
    if (t->contiguous) {
        memcpy(dst, src, (size_t)s->bytes[peer]);
        return MPI_SUCCESS;
    }
    if (s->bytes[peer] > INT_MAX)
        return xchg_error(MPI_ERR_COUNT, "block of %lld bytes is too large to pack",
                          (long long)s->bytes[peer]);
    if (src == NULL) return pack_bottom(s, peer, dst, 0);
    int position = 0;
    return MPI_Pack(src, s->counts[peer], t->type, dst, (int)s->bytes[peer], &position,
                    MPI_COMM_SELF);
}

int xchg_unpack_block(const xchg_side *s, int peer, const void *src)
{
    if (s->bytes[peer] == 0) return MPI_SUCCESS;
    char *dst = xchg_side_block_ptr(s, peer);
    const xchg_type_info *t = xchg_side_type(s, peer);
    if (t->contiguous) {
        memcpy(dst, src, (size_t)s->bytes[peer]);
        return MPI_SUCCESS;
    }
    if (s->bytes[peer] > INT_MAX)
        return xchg_error(MPI_ERR_COUNT, "block of %lld bytes is too large to unpack",
                          (long long)s->bytes[peer]);
    if (dst == NULL) return pack_bottom(s, peer, (void *)src, 1);
    int position = 0;
    return MPI_Unpack(src, (int)s->bytes[peer], &position, dst, s->counts[peer], t->type,
                      MPI_COMM_SELF);
}

int xchg_copy_self_block(const xchg_args *a)
{
    const xchg_side *s = &a->send, *r = &a->recv;
    int me = a->rank, rc = MPI_SUCCESS;
    char *packed = NULL;
    if (r->bytes[me] == 0) return MPI_SUCCESS;
    if (xchg_side_type(s, me)->contiguous && xchg_side_type(r, me)->contiguous) {
        memcpy(xchg_side_block_ptr(r, me), xchg_side_block_ptr(s, me), (size_t)r->bytes[me]);
        return MPI_SUCCESS;
    }
    XCHG_ALLOC(packed, (size_t)r->bytes[me]);
    XCHG_CHECK(xchg_pack_block(s, me, packed));
    XCHG_CHECK(xchg_unpack_block(r, me, packed));
fail:
    free(packed);
    return rc;
}
