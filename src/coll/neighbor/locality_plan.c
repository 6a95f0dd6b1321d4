/*
 * locality's plan builder (locality.h; the algorithm: locality.c): runs the
 * steps of the init, each in a file of its own, keeps the messages and
 * runs they found in the plan, and agrees on success with every rank.
 */
#include <limits.h>
#include <string.h>

#include "locality.h"
#include "model.h"

/* occ[i]: how many times list[i] occurs in list[0..i). */
static int occurrences(int n, const int *list, int *occ)
{
    int rc = MPI_SUCCESS;
    key3 *k = NULL;
    XCHG_ALLOC(k, ((size_t)n + 1) * sizeof *k);
    for (int i = 0; i < n; i++) k[i] = (key3){list[i], i, 0, i};
    qsort(k, (size_t)n, sizeof *k, key3_cmp);
    for (int i = 0; i < n; i++)
        occ[k[i].payload] = (i > 0 && k[i - 1].a == k[i].a) ? occ[k[i - 1].payload] + 1 : 0;
fail:
    free(k);
    return rc;
}

void xchg_locality_state_free(loc_state *st)
{
    if (!st) return;
    free(st->l_index);
    free(st->s_recv), free(st->s_send), free(st->g_recv), free(st->g_send);
    free(st->r_recv), free(st->r_send);
    free(st->pack), free(st->copy), free(st->unpack);
    free(st->s_buf), free(st->g_sbuf), free(st->g_rbuf), free(st->r_sbuf), free(st->r_rbuf);
    free(st);
}

/* The plan for regions t (the context's nodes, or parts of them). */
int xchg_locality_build(xchg_plan *plan, const xchg_topology *t)
{
    int rc = MPI_SUCCESS, agreed;
    const xchg_args *a = plan->fixed;
    xchg_context *ctx = plan->ctx;
    const int me = a->rank, A = t->node_of_rank[me];
    const int in = a->neighbor.indegree, out = a->neighbor.outdegree;
    loc_state *st = NULL;
    int *socc = NULL, *rocc = NULL;
    loc_build b = {
        .plan = plan, .a = a, .t = t, .ctx = ctx, .me = me, .R = t->num_nodes, .A = A,
        .nA = t->node_size[A], .mylocal = t->local_rank_of[me],
        .by_bytes = plan->choice.value[LOCALITY_BALANCE] == LOCALITY_BALANCE_BYTES,
        .dedup = plan->choice.value[LOCALITY_DEDUP] && a->neighbor.send_gindex,
        .in = in, .out = out, .esz = a->send.type.size,
        .groups = VEC(group), .blockmeta = VEC(int64_t), .pack = VEC(packrun),
        .s_recv = VEC(lmsg), .s_send = VEC(lmsg), .g_recv = VEC(lmsg), .g_send = VEC(lmsg),
        .r_recv = VEC(lmsg), .r_send = VEC(lmsg), .copy = VEC(copyrun), .unpack = VEC(unpackrun),
        .gmeta_out = VEC(int64_t), .gmeta_ends = VEC(size_t), .gmeta_peer = VEC(int)};

    XCHG_ALLOC(st, sizeof *st);
    memset(st, 0, sizeof *st);
    XCHG_ALLOC(socc, ((size_t)out + 1) * sizeof(int));
    XCHG_ALLOC(rocc, ((size_t)in + 1) * sizeof(int));
    XCHG_CHECK(occurrences(out, a->neighbor.destinations, socc));
    XCHG_CHECK(occurrences(in, a->neighbor.sources, rocc));

    /* l: the own region's non-empty blocks. */
    XCHG_ALLOC(st->l_index, ((size_t)in + (size_t)out + 1) * sizeof(int));
    for (int i = 0; i < in; i++)
        if (a->recv.bytes[i] > 0 && t->node_of_rank[a->neighbor.sources[i]] == A)
            st->l_index[st->nl_recv++] = i;
    for (int i = 0; i < out; i++)
        if (a->send.bytes[i] > 0 && t->node_of_rank[a->neighbor.destinations[i]] == A)
            st->l_index[st->nl_recv + st->nl_send++] = i;

    b.st = st, b.socc = socc, b.rocc = rocc;

    XCHG_CHECK(xchg_locality_plan_segments(&b)); /* step 0 */
    XCHG_CHECK(xchg_locality_plan_roles(&b));    /* steps 1-2 */
    XCHG_CHECK(xchg_locality_plan_senders(&b));  /* steps 3-4 */
    XCHG_CHECK(xchg_locality_plan_forward(&b));  /* step 5 */
    XCHG_CHECK(xchg_locality_plan_arrivals(&b)); /* step 6 */

    /* Messages and pack runs are MPI counts (int). */
    {
        const vec *lists[] = {&b.s_recv, &b.s_send, &b.g_recv, &b.g_send, &b.r_recv, &b.r_send};
        for (int l = 0; l < 6; l++)
            for (size_t k = 0; k < lists[l]->n; k++)
                if (((const lmsg *)lists[l]->v)[k].len > INT_MAX) {
                    rc = xchg_error(MPI_ERR_COUNT, "locality: an aggregated message of %lld "
                                    "bytes is too large for an MPI count",
                                    (long long)((const lmsg *)lists[l]->v)[k].len);
                    goto fail;
                }
    }

#define TAKE(name, type, field, count)                                                \
    do {                                                                              \
        st->field = name.v;                                                           \
        st->count = (int)name.n;                                                      \
        name.v = NULL;                                                                \
    } while (0)
    TAKE(b.s_recv, lmsg, s_recv, ns_recv);
    TAKE(b.s_send, lmsg, s_send, ns_send);
    TAKE(b.g_recv, lmsg, g_recv, ng_recv);
    TAKE(b.g_send, lmsg, g_send, ng_send);
    TAKE(b.r_recv, lmsg, r_recv, nr_recv);
    TAKE(b.r_send, lmsg, r_send, nr_send);
    TAKE(b.pack, packrun, pack, npack);
    TAKE(b.copy, copyrun, copy, ncopy);
    TAKE(b.unpack, unpackrun, unpack, nunpack);
#undef TAKE

    /* XCHG_Neighbor_stats_get */
    plan->neighbor.has_stats = 1;
    for (int k = 0; k < st->nl_send; k++) {
        int i = st->l_index[st->nl_recv + k];
        if (a->neighbor.destinations[i] == me) continue;
        plan->neighbor.stats_intra_messages++;
        plan->neighbor.stats_intra_bytes += a->send.bytes[i];
    }
    for (int k = 0; k < st->ns_send; k++)
        if (st->s_send[k].peer != me) {
            plan->neighbor.stats_intra_messages++;
            plan->neighbor.stats_intra_bytes += st->s_send[k].len;
        }
    for (int k = 0; k < st->nr_send; k++)
        if (st->r_send[k].peer != me) {
            plan->neighbor.stats_intra_messages++;
            plan->neighbor.stats_intra_bytes += st->r_send[k].len;
        }
    for (int k = 0; k < st->ng_send; k++) {
        plan->neighbor.stats_inter_messages++;
        plan->neighbor.stats_inter_bytes += st->g_send[k].len;
    }

fail:
    if (b.ngreq > 0) xchg_waitall(b.ngreq, b.greqs, MPI_STATUSES_IGNORE);
    /* Every rank agrees on success before anyone uses the plan (and before
     * a later init's metadata can meet this one's wildcard receives). */
    agreed = rc;
    {
        int local = rc != MPI_SUCCESS, any = 0;
        if (xchg_allreduce(&local, &any, 1, MPI_INT, MPI_MAX, ctx->comm) != MPI_SUCCESS) any = 1;
        if (any && agreed == MPI_SUCCESS)
            agreed = xchg_error(MPI_ERR_OTHER, "locality: init failed on another rank");
    }
    if (b.inner) xchg_context_inner_free(b.inner);
    free(socc), free(rocc), free(b.sender_local), free(b.receiver_local), free(b.y_of);
    free(b.greqs);
    free(b.groups.v), free(b.blockmeta.v), free(b.pack.v), free(b.s_recv.v), free(b.s_send.v);
    free(b.g_recv.v), free(b.g_send.v), free(b.r_recv.v), free(b.r_send.v), free(b.copy.v);
    free(b.unpack.v), free(b.gmeta_out.v), free(b.gmeta_ends.v), free(b.gmeta_peer.v);
    if (agreed != MPI_SUCCESS) {
        xchg_locality_state_free(st);
        plan->neighbor.has_stats = 0;
        return agreed;
    }
    plan->state = st;
    return MPI_SUCCESS;
}
