/* Messages of several allgatherv blocks (blocks.h). */
#include "blocks.h"

#include "../../core/error.h"

int agv_work_alloc(xchg_context *ctx, const xchg_args *a, agv_work *w)
{
    size_t P = (size_t)a->size;
    w->bytes = P * (2 * sizeof(int) + sizeof(MPI_Aint)) + sizeof(MPI_Aint);
    char *mem = xchg_scratch_alloc(ctx, w->bytes);
    if (!mem) {
        size_t wanted = w->bytes;
        w->bytes = 0;
        return xchg_error(MPI_ERR_NO_MEM, "allgatherv: out of memory (%zu bytes)", wanted);
    }
    w->displs = (MPI_Aint *)mem; /* first: aligned */
    w->ranks = (int *)(w->displs + P);
    w->lens = w->ranks + P;
    return MPI_SUCCESS;
}

void agv_work_free(xchg_context *ctx, agv_work *w)
{
    if (w->bytes) xchg_scratch_free(ctx, w->displs, w->bytes);
    w->bytes = 0;
}

int64_t agv_blocks_bytes(const xchg_args *a, const int *ranks, int n)
{
    int64_t bytes = 0;
    for (int i = 0; i < n; i++) bytes += a->recv.bytes[ranks[i]];
    return bytes;
}

int agv_post_blocks(const xchg_args *a, agv_work *w, int n, int peer, int tag, int sending,
                    MPI_Request *reqs, int *nreq)
{
    const xchg_side *r = &a->recv;
    int rc = MPI_SUCCESS, used = 0, last = -1;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    for (int i = 0; i < n; i++) {
        int p = w->ranks[i];
        if (r->bytes[p] == 0) continue;
        w->lens[used] = r->counts[p];
        w->displs[used++] = (MPI_Aint)r->offsets[p];
        last = p;
    }
    if (used == 0) return MPI_SUCCESS;
    char *buf = r->buf;
    int count = 1;
    if (used == 1) { /* one block: as itself */
        buf = xchg_side_block_ptr(r, last);
        count = r->counts[last];
        type = r->type.type;
    } else {
        XCHG_CHECK(MPI_Type_create_hindexed(used, w->lens, w->displs, r->type.type, &type));
        XCHG_CHECK(MPI_Type_commit(&type));
    }
    if (sending) XCHG_CHECK(MPI_Isend(buf, count, type, peer, tag, a->comm, &reqs[*nreq]));
    else XCHG_CHECK(MPI_Irecv(buf, count, type, peer, tag, a->comm, &reqs[*nreq]));
    (*nreq)++;
fail:
    if (used > 1 && type != MPI_DATATYPE_NULL) MPI_Type_free(&type);
    return rc;
}
