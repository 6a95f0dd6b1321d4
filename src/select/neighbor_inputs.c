/*
 * The neighbourhood alltoallv's selection inputs (xchg_neighbor_input,
 * inputs.h): each rank counts its own pattern against the context's
 * topology, then one xchg_allreduce(MAX) of five int64 makes them common.
 * Called where a choice depends on them and only there (select.c): a
 * persistent init, blocking and nonblocking calls on XCHG_AGREE's schedule,
 * and where every rank builds a pattern plan together (plan.h).
 */
#include "neighbor_inputs.h"

#include <stdlib.h>

#include "../core/error.h"

/* One side's blocks, by node: messages and bytes to or from other nodes and
 * the own node, and the other nodes touched (marked with `bit` in seen). */
static void count_side(const xchg_topology *t, int me, int n, const int *peers,
                       const int64_t *bytes, int bit, unsigned char *seen,
                       xchg_neighbor_input *side)
{
    for (int i = 0; i < n; i++) {
        int node = t->node_of_rank[peers[i]];
        if (peers[i] == me || bytes[i] == 0) continue; /* not a message */
        if (node == t->node_of_rank[me]) {
            side->local_msgs++;
            side->local_bytes += bytes[i];
        } else {
            side->remote_msgs++;
            side->remote_bytes += bytes[i];
            side->remote_nodes += !(seen[node] & bit);
            seen[node] |= (unsigned char)bit;
        }
    }
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

int xchg_neighbor_input_agree(xchg_context *ctx, const xchg_args *args, xchg_select_input *in)
{
    const xchg_topology *t = &ctx->topo;
    unsigned char *seen = calloc((size_t)t->num_nodes + 1, 1);
    if (!seen) return xchg_error(MPI_ERR_NO_MEM, "out of memory for %d nodes", t->num_nodes);
    xchg_neighbor_input s = {0}, r = {0};
    const xchg_neighbor_args *nb = &args->neighbor;
    count_side(t, args->rank, nb->outdegree, nb->destinations, args->send.bytes, 1, seen, &s);
    count_side(t, args->rank, nb->indegree, nb->sources, args->recv.bytes, 2, seen, &r);
    free(seen);
    int64_t v[5] = {max64(s.remote_msgs, r.remote_msgs), max64(s.local_msgs, r.local_msgs),
                    max64(s.remote_bytes, r.remote_bytes), max64(s.local_bytes, r.local_bytes),
                    max64(s.remote_nodes, r.remote_nodes)};
    int rc = xchg_allreduce(MPI_IN_PLACE, v, 5, MPI_INT64_T, MPI_MAX, ctx->comm);
    if (rc != MPI_SUCCESS) return xchg_error(rc, "agreeing on the neighbourhood pattern");
    in->nbr = (xchg_neighbor_input){.remote_msgs = v[0], .local_msgs = v[1],
                                    .remote_bytes = v[2], .local_bytes = v[3],
                                    .remote_nodes = v[4]};
    xchg_neighbor_input_summarize(in);
    return MPI_SUCCESS;
}

void xchg_neighbor_input_summarize(xchg_select_input *in)
{
    int64_t msgs = in->nbr.remote_msgs + in->nbr.local_msgs;
    in->bytes = msgs > 0 ? (in->nbr.remote_bytes + in->nbr.local_bytes) / msgs : 0;
    in->max_block_bytes = in->bytes;
    in->max_peers = (int)(msgs < in->comm_size - 1 ? msgs : in->comm_size - 1);
}
