/* locality: one start, Algorithms 5 and 6 (locality.c; the plan it runs:
 * locality.h). */
#include <string.h>

#include "locality.h"

static int pack_run(const xchg_side *s, const packrun *pr, char *dst)
{
    if (pr->elem == 0 && pr->n == s->counts[pr->block]) return xchg_pack_block(s, pr->block, dst);
    const char *src = xchg_side_block_ptr(s, pr->block) + pr->elem * s->type.extent;
    int64_t bytes = pr->n * s->type.size;
    if (s->type.contiguous) {
        memcpy(dst, src, (size_t)bytes);
        return MPI_SUCCESS;
    }
    int position = 0;
    return MPI_Pack(src, (int)pr->n, s->type.type, dst, (int)bytes, &position, MPI_COMM_SELF);
}

static int post_bytes(int n, const lmsg *m, char *buf, int recv, int tag, MPI_Comm comm,
                      MPI_Request *reqs)
{
    for (int k = 0; k < n; k++) {
        int rc = recv ? MPI_Irecv(buf + m[k].off, (int)m[k].len, MPI_BYTE, m[k].peer, tag, comm,
                                  &reqs[k])
                      : MPI_Isend(buf + m[k].off, (int)m[k].len, MPI_BYTE, m[k].peer, tag, comm,
                                  &reqs[k]);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

int xchg_locality_run(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    const loc_state *st = plan->state;
    int rc = MPI_SUCCESS;
    const int ns = st->ns_recv + st->ns_send, ng = st->ng_recv + st->ng_send,
              nr = st->nr_recv + st->nr_send, nl = st->nl_recv + st->nl_send;
    const int n = ns + ng + nr + nl;
    size_t nbytes = ((size_t)n + 1) * sizeof(MPI_Request);
    MPI_Request *reqs = xchg_scratch_alloc(ctx, nbytes);
    if (!reqs) return xchg_error(MPI_ERR_NO_MEM, "locality: out of memory for %zu bytes", nbytes);
    for (int k = 0; k < n; k++) reqs[k] = MPI_REQUEST_NULL;
    MPI_Request *sreq = reqs, *greq = reqs + ns, *rreq = greq + ng, *lreq = rreq + nr;

    /* Algorithm 5: every receive first, then l; s packed, sent, completed. */
    XCHG_CHECK(post_bytes(st->ns_recv, st->s_recv, st->g_sbuf, 1, TAG_S, a->comm, sreq));
    XCHG_CHECK(post_bytes(st->ng_recv, st->g_recv, st->g_rbuf, 1, TAG_G, a->comm, greq));
    XCHG_CHECK(post_bytes(st->nr_recv, st->r_recv, st->r_rbuf, 1, TAG_R, a->comm, rreq));
    for (int k = 0; k < st->nl_recv; k++) {
        int i = st->l_index[k];
        XCHG_CHECK(MPI_Irecv(xchg_side_block_ptr(&a->recv, i), a->recv.counts[i],
                             a->recv.type.type, a->neighbor.sources[i], TAG_L, a->comm, &lreq[k]));
    }
    for (int k = 0; k < st->nl_send; k++) {
        int i = st->l_index[st->nl_recv + k];
        XCHG_CHECK(MPI_Isend(xchg_side_block_ptr(&a->send, i), a->send.counts[i],
                             a->send.type.type, a->neighbor.destinations[i], TAG_L, a->comm,
                             &lreq[st->nl_recv + k]));
    }
    for (int k = 0; k < st->npack; k++)
        XCHG_CHECK(pack_run(&a->send, &st->pack[k], st->s_buf + st->pack[k].dst));
    XCHG_CHECK(post_bytes(st->ns_send, st->s_send, st->s_buf, 0, TAG_S, a->comm,
                          sreq + st->ns_recv));
    XCHG_CHECK(xchg_waitall(ns, sreq, MPI_STATUSES_IGNORE));
    /* g */
    XCHG_CHECK(post_bytes(st->ng_send, st->g_send, st->g_sbuf, 0, TAG_G, a->comm,
                          greq + st->ng_recv));
    /* Algorithm 6: complete g, then r; l completes with r. */
    XCHG_CHECK(xchg_waitall(ng, greq, MPI_STATUSES_IGNORE));
    for (int k = 0; k < st->ncopy; k++)
        memcpy(st->r_sbuf + st->copy[k].dst, st->g_rbuf + st->copy[k].src,
               (size_t)st->copy[k].len);
    XCHG_CHECK(post_bytes(st->nr_send, st->r_send, st->r_sbuf, 0, TAG_R, a->comm,
                          rreq + st->nr_recv));
    XCHG_CHECK(xchg_waitall(nr + nl, rreq, MPI_STATUSES_IGNORE));
    for (int k = 0; k < st->nunpack; k++)
        XCHG_CHECK(xchg_unpack_block(&a->recv, st->unpack[k].block,
                                     st->r_rbuf + st->unpack[k].off));
    xchg_scratch_free(ctx, reqs, nbytes);
    return MPI_SUCCESS;
fail:
    xchg_waitall(n, reqs, MPI_STATUSES_IGNORE);
    xchg_scratch_free(ctx, reqs, nbytes);
    return rc;
}

