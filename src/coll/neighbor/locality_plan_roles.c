/* locality, plan steps 1-2 (locality.h, locality.c): a sum in the region,
 * one int per inter-region edge. */
#include <limits.h>
#include <string.h>

#include "locality.h"

/* Give each region r with bytes[r] > 0 to one of n ranks: largest first,
 * each to the least loaded (weight 1 or its bytes). owner[r] = -1 else. */
static int assign(int R, const int64_t *bytes, int n, int by_bytes, int *owner)
{
    int rc = MPI_SUCCESS, m = 0;
    key3 *k = NULL;
    int64_t *load = NULL;
    XCHG_ALLOC(k, ((size_t)R + 1) * sizeof *k);
    XCHG_ALLOC(load, ((size_t)n + 1) * sizeof *load);
    for (int i = 0; i < n; i++) load[i] = 0;
    for (int r = 0; r < R; r++) {
        owner[r] = -1;
        if (bytes[r] > 0) k[m++] = (key3){-bytes[r], r, 0, r};
    }
    qsort(k, (size_t)m, sizeof *k, key3_cmp);
    for (int i = 0; i < m; i++) {
        int best = 0;
        for (int j = 1; j < n; j++)
            if (load[j] < load[best]) best = j;
        owner[k[i].payload] = best;
        load[best] += by_bytes ? bytes[k[i].payload] : 1;
    }
fail:
    free(k);
    free(load);
    return rc;
}

int xchg_locality_plan_roles(loc_build *lb)
{
    int rc = MPI_SUCCESS;
    const xchg_args *a = lb->a;
    const xchg_topology *t = lb->t;
    xchg_context *ctx = lb->ctx;
    const int R = lb->R, A = lb->A, nA = lb->nA, mylocal = lb->mylocal, by_bytes = lb->by_bytes;
    const int in = lb->in, out = lb->out;
    int64_t *w = NULL;
    int *edge_vals = NULL;
    MPI_Request *ereqs = NULL;
    int nedge = 0;

    /* Step 1: the region's sums; who sends and who receives each pair. */
    XCHG_ALLOC(w, (4 * (size_t)R + 1) * sizeof *w);
    memset(w, 0, (4 * (size_t)R + 1) * sizeof *w);
    for (size_t k = 0; k < lb->groups.n; k++) {
        const group *g = (const group *)lb->groups.v + k;
        w[g->region] += g->nblocks;
        w[R + g->region] += g->seg_bytes;
    }
    for (int i = 0; i < in; i++) {
        int r = t->node_of_rank[a->neighbor.sources[i]];
        if (a->recv.bytes[i] > 0 && r != A) {
            w[2 * R + r]++;
            w[3 * R + r] += a->recv.bytes[i];
        }
    }
    XCHG_CHECK(xchg_context_inner(ctx, A, mylocal, &lb->inner));
    XCHG_CHECK(xchg_allreduce(MPI_IN_PLACE, w, 4 * R, MPI_INT64_T, MPI_SUM, lb->inner->comm));
    XCHG_ALLOC(lb->sender_local, ((size_t)R + 1) * sizeof(int));
    XCHG_ALLOC(lb->receiver_local, ((size_t)R + 1) * sizeof(int));
    XCHG_ALLOC(lb->y_of, ((size_t)R + 1) * sizeof(int));
    XCHG_CHECK(assign(R, w + R, nA, by_bytes, lb->sender_local));
    XCHG_CHECK(assign(R, w + 3 * R, nA, by_bytes, lb->receiver_local));

    /* Step 2: along the inter-region edges, receivers to senders' regions. */
    XCHG_ALLOC(edge_vals, ((size_t)in + (size_t)out + 1) * sizeof(int));
    XCHG_ALLOC(ereqs, ((size_t)in + (size_t)out + 1) * sizeof(MPI_Request));
    for (int i = 0; i < out; i++) {
        int d = a->neighbor.destinations[i];
        if (a->send.bytes[i] > 0 && t->node_of_rank[d] != A)
            XCHG_CHECK(MPI_Irecv(&edge_vals[in + i], 1, MPI_INT, d, TAG_EDGE, a->comm,
                                 &ereqs[nedge++]));
    }
    for (int i = 0; i < in; i++) {
        int s = a->neighbor.sources[i], r = t->node_of_rank[s];
        if (a->recv.bytes[i] > 0 && r != A) {
            edge_vals[i] = xchg_rank_on_node(t, A, lb->receiver_local[r]);
            XCHG_CHECK(MPI_Isend(&edge_vals[i], 1, MPI_INT, s, TAG_EDGE, a->comm,
                                 &ereqs[nedge++]));
        }
    }
    XCHG_CHECK(xchg_waitall(nedge, ereqs, MPI_STATUSES_IGNORE));
    nedge = 0;
    for (int r = 0; r < R; r++) lb->y_of[r] = -1;
    for (int i = 0; i < out; i++) {
        int d = a->neighbor.destinations[i];
        if (a->send.bytes[i] > 0 && t->node_of_rank[d] != A)
            lb->y_of[t->node_of_rank[d]] = edge_vals[in + i];
    }


fail:
    if (nedge > 0) xchg_waitall(nedge, ereqs, MPI_STATUSES_IGNORE);
    free(w), free(edge_vals), free(ereqs);
    return rc;
}
