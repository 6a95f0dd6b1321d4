/* Several blocks as one message: see bundle.h. */
#include "bundle.h"

#include <limits.h>
#include <string.h>

#include "error.h"

/* Pack every block of a send bundle into its staging buffer. */
static int pack_blocks(const xchg_bundle *b)
{
    int rc = MPI_SUCCESS;
    char *pos = b->stage;
    for (int k = 0; k < b->num_blocks; k++) {
        const xchg_bundle_block *blk = &b->blocks[k];
        if (blk->bytes == 0) continue;
        if (blk->peer >= 0)
            XCHG_CHECK(xchg_pack_block(b->side, blk->peer, pos));
        else
            memcpy(pos, blk->ptr, (size_t)blk->bytes);
        pos += blk->bytes;
    }
fail:
    return rc;
}

/* Unpack a received staged bundle into its blocks. */
static int unpack_blocks(const xchg_bundle *b)
{
    int rc = MPI_SUCCESS;
    const char *pos = b->stage;
    for (int k = 0; k < b->num_blocks; k++) {
        const xchg_bundle_block *blk = &b->blocks[k];
        if (blk->bytes == 0) continue;
        if (blk->peer >= 0)
            XCHG_CHECK(xchg_unpack_block(b->side, blk->peer, pos));
        else
            memcpy(blk->ptr, pos, (size_t)blk->bytes);
        pos += blk->bytes;
    }
fail:
    return rc;
}

/* The blocks where they lie: one run of bytes, or an hindexed MPI_BYTE type. */
static int describe_in_place(xchg_bundle *b, int *lens, MPI_Aint *displs)
{
    int rc = MPI_SUCCESS, n = 0;
    MPI_Aint base = 0;
    for (int k = 0; k < b->num_blocks; k++) {
        const xchg_bundle_block *blk = &b->blocks[k];
        if (blk->bytes == 0) continue;
        MPI_Aint address;
        XCHG_CHECK(MPI_Get_address(blk->ptr, &address));
        if (n == 0) {
            base = address;
            b->buf = blk->ptr;
        }
        lens[n] = (int)blk->bytes;
        displs[n++] = address - base;
    }
    if (n == 1) {
        b->count = lens[0];
        b->datatype = MPI_BYTE;
        return MPI_SUCCESS;
    }
    XCHG_CHECK(MPI_Type_create_hindexed(n, lens, displs, MPI_BYTE, &b->owned_type));
    XCHG_CHECK(MPI_Type_commit(&b->owned_type));
    b->count = 1;
    b->datatype = b->owned_type;
fail:
    return rc;
}

int xchg_bundle_init(xchg_context *ctx, xchg_bundle *b, const xchg_side *side,
                     const xchg_bundle_block *blocks, int num_blocks, int *lens,
                     MPI_Aint *displs, int is_send)
{
    memset(b, 0, sizeof *b);
    b->side = side;
    b->blocks = blocks;
    b->num_blocks = num_blocks;
    b->owned_type = MPI_DATATYPE_NULL;
    for (int k = 0; k < num_blocks; k++) {
        if (blocks[k].bytes > INT_MAX)
            return xchg_error(MPI_ERR_COUNT, "a block of %lld bytes is too large to bundle "
                              "(at most INT_MAX)", (long long)blocks[k].bytes);
        b->bytes += blocks[k].bytes;
    }
    if (b->bytes == 0) return MPI_SUCCESS;
    if (xchg_side_contiguous(side)) return describe_in_place(b, lens, displs);

    if (b->bytes > INT_MAX)
        return xchg_error(MPI_ERR_COUNT, "%lld bytes of non-contiguous blocks are too many "
                          "for one packed message", (long long)b->bytes);
    b->stage_bytes = (size_t)b->bytes;
    b->stage = xchg_scratch_alloc(ctx, b->stage_bytes);
    if (!b->stage)
        return xchg_error(MPI_ERR_NO_MEM, "out of memory (%zu bytes)", b->stage_bytes);
    b->buf = b->stage;
    b->count = (int)b->bytes;
    b->datatype = MPI_PACKED;
    return is_send ? pack_blocks(b) : MPI_SUCCESS;
}

int xchg_bundle_isend(xchg_bundle *b, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    *req = MPI_REQUEST_NULL;
    if (b->bytes == 0) return MPI_SUCCESS;
    return MPI_Isend(b->buf, b->count, b->datatype, dest, tag, comm, req);
}

int xchg_bundle_irecv(xchg_bundle *b, int source, int tag, MPI_Comm comm, MPI_Request *req)
{
    *req = MPI_REQUEST_NULL;
    if (b->bytes == 0) return MPI_SUCCESS;
    return MPI_Irecv(b->buf, b->count, b->datatype, source, tag, comm, req);
}

int xchg_bundle_finish(xchg_context *ctx, xchg_bundle *b, const MPI_Status *received)
{
    int rc = MPI_SUCCESS;
    if (received && b->bytes > 0) {
        /* MPI_Get_count cannot count past INT_MAX (MPI_Get_elements_x would, but
         * SimGrid SMPI lacks it): bundles that large are not checked. */
        int got = 0;
        if (b->bytes <= INT_MAX)
            XCHG_CHECK(MPI_Get_count(received, b->stage ? MPI_PACKED : MPI_BYTE, &got));
        if (b->bytes <= INT_MAX && got != b->bytes) {
            rc = xchg_error(MPI_ERR_TRUNCATE, "rank %d sent %d bytes where %lld were expected "
                            "(send and receive counts disagree)", received->MPI_SOURCE, got,
                            (long long)b->bytes);
            goto fail;
        }
        if (b->stage) XCHG_CHECK(unpack_blocks(b));
    }
fail:
    if (b->owned_type != MPI_DATATYPE_NULL && !b->keep_type) MPI_Type_free(&b->owned_type);
    xchg_scratch_free(ctx, b->stage, b->stage_bytes);
    b->stage = NULL;
    b->stage_bytes = 0;
    return rc;
}

void xchg_bundle_release(xchg_bundle *b)
{
    if (b->owned_type != MPI_DATATYPE_NULL) MPI_Type_free(&b->owned_type);
    b->keep_type = 0;
}
