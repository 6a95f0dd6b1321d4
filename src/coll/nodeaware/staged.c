/* Staged messages: header then data, and the arrival loop (staged.h). */
#include "staged.h"

#include "../../core/error.h"
#include "../../core/exchange.h"

/* Receive slot s's data into a staging buffer of its own. */
static int post_data_receive(xchg_staged *in, int s)
{
    int from, tag, blocks;
    in->source(in->call, s, &from, &tag, &blocks);
    int64_t total = 0;
    for (int i = 0; i < blocks; i++) total += in->lengths[s][i];
    in->staging_bytes[s] = (size_t)total + 1;
    in->staging[s] = xchg_scratch_alloc(in->ctx, in->staging_bytes[s]);
    if (!in->staging[s])
        return xchg_error(MPI_ERR_NO_MEM, "%s: out of memory (%zu bytes)", in->who,
                          in->staging_bytes[s]);
    in->awaiting_data[s] = 0;
    if (total == 0) return MPI_SUCCESS; /* nothing comes: the request stays null */
    return xchg_irecv_bytes(in->staging[s], total, from, tag, in->comm, &in->arrivals[s], in->who);
}

int xchg_staged_post(xchg_staged *in)
{
    int rc = MPI_SUCCESS;
    for (int s = 0; s < in->num_slots; s++) {
        int from, tag, blocks;
        in->source(in->call, s, &from, &tag, &blocks);
        if (in->with_headers) {
            in->awaiting_data[s] = 1;
            XCHG_CHECK(xchg_irecv_bytes(in->lengths[s], (int64_t)blocks * (int64_t)sizeof(int64_t),
                                        from, tag, in->comm, &in->arrivals[s], in->who));
        } else {
            for (int i = 0; i < blocks; i++) in->lengths[s][i] = in->uniform_bytes;
            XCHG_CHECK(post_data_receive(in, s));
        }
    }
fail:
    return rc;
}

/* MPI_Waitany is called only while a request is pending: SimGrid SMPI 3.32
 * leaves the index unset (instead of MPI_UNDEFINED) when there is none. */
int xchg_staged_arrivals(xchg_staged *in)
{
    int rc = MPI_SUCCESS, s, pending = 0;
    for (s = 0; s < in->num_slots; s++) {
        if (in->arrivals[s] != MPI_REQUEST_NULL) pending++;
        else if (!in->awaiting_data[s]) XCHG_CHECK(in->arrived(in->call, s)); /* empty: nothing comes */
    }
    while (pending > 0) {
        XCHG_CHECK(xchg_waitany(in->num_slots, in->arrivals, &s, MPI_STATUS_IGNORE));
        if (in->awaiting_data[s]) {
            XCHG_CHECK(post_data_receive(in, s));
            if (in->arrivals[s] != MPI_REQUEST_NULL) continue;
        }
        pending--;
        XCHG_CHECK(in->arrived(in->call, s));
    }
fail:
    return rc;
}

int xchg_staged_isend(const xchg_staged *in, const int64_t *header, int64_t nblocks,
                      const char *data, int64_t bytes, int to, int tag, MPI_Request *reqs,
                      int *nreqs)
{
    int rc = MPI_SUCCESS;
    if (in->with_headers) {
        XCHG_CHECK(xchg_isend_bytes(header, nblocks * (int64_t)sizeof(int64_t), to, tag, in->comm,
                                    &reqs[*nreqs], in->who));
        (*nreqs)++;
    }
    if (bytes > 0) {
        XCHG_CHECK(xchg_isend_bytes(data, bytes, to, tag, in->comm, &reqs[*nreqs], in->who));
        (*nreqs)++;
    }
fail:
    return rc;
}

void xchg_staged_free(xchg_staged *in)
{
    for (int s = 0; s < in->num_slots && in->staging; s++)
        xchg_scratch_free(in->ctx, in->staging[s], in->staging_bytes[s]);
}
