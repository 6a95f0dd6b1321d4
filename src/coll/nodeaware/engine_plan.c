/* The node-aware engine's roles, built once per plan (engine_plan.h). */
#include "engine_plan.h"

#include <string.h>

#include "../../core/error.h"

/* Cut `n` items into `parts` balanced contiguous pieces: piece of item i. */
static int piece_of(int i, int n, int parts)
{
    int j = (int)((int64_t)i * parts / n);
    while ((int64_t)(j + 1) * n / parts <= i) j++;
    while ((int64_t)j * n / parts > i) j--;
    return j;
}

int xchg_hier_plan_build(const xchg_context *ctx, const xchg_hier_spec *spec,
                         const int *domain_of, hier_plan *pl)
{
    const xchg_topology *t = &ctx->topo;
    const int P = ctx->size;
    int rc = MPI_SUCCESS;
    memset(pl, 0, sizeof *pl);
    pl->P = P;
    pl->me = ctx->rank;
    pl->leaders = spec->leaders;
    int *m = NULL;
    XCHG_ALLOC(m, (size_t)(13 * P + 8) * sizeof(int));
    pl->mem = m;
    pl->all = m; m += P;
    pl->leader_of = m; m += P;
    pl->own_first = m; m += P + 1;
    pl->own_ranks = m; m += P;
    pl->unit_of = m; m += P;
    pl->index_of = m; m += P;
    pl->unit_first = m; m += P + 1;
    pl->unit_members = m; m += P;
    pl->tset_first = m; m += P + 1;
    pl->tset_ranks = m; m += P;
    int *node_parts = m; m += P; /* participants of the current node */
    for (int r = 0; r < P; r++) pl->all[r] = r, pl->unit_of[r] = pl->index_of[r] = -1;

    /* Leaders: balanced contiguous groups of local ranks, lowest one leads. */
    for (int n = 0; n < t->num_nodes; n++) {
        int Q = t->node_size[n], k = spec->leaders < Q ? spec->leaders : Q;
        for (int l = 0; l < Q; l++) {
            int lead = l;
            if (spec->leaders > 0) {
                int j = piece_of(l, Q, k);
                lead = (int)((int64_t)j * Q / k);
            }
            pl->leader_of[xchg_rank_on_node(t, n, l)] = xchg_rank_on_node(t, n, lead);
        }
    }
    /* Own(p), ranks in increasing order (counting sort by leader). */
    memset(pl->own_first, 0, (size_t)(P + 1) * sizeof(int));
    for (int r = 0; r < P; r++) pl->own_first[pl->leader_of[r] + 1]++;
    for (int p = 0; p < P; p++) pl->own_first[p + 1] += pl->own_first[p];
    int *fill = pl->unit_members; /* borrowed as a cursor, overwritten below */
    for (int p = 0; p < P; p++) fill[p] = pl->own_first[p];
    for (int r = 0; r < P; r++) pl->own_ranks[fill[pl->leader_of[r]]++] = r;

    /* Units: one per participant (flat), or cut each node's participants. */
    int v = 0, used = 0;
    pl->unit_first[0] = 0;
    if (spec->groups == 0) {
        for (int r = 0; r < P; r++)
            if (pl->leader_of[r] == r) {
                pl->unit_of[r] = v, pl->index_of[r] = 0;
                pl->unit_members[used++] = r;
                pl->unit_first[++v] = used;
            }
    } else {
        for (int n = 0; n < t->num_nodes; n++) {
            int cnt = 0;
            for (int l = 0; l < t->node_size[n]; l++) {
                int r = xchg_rank_on_node(t, n, l);
                if (pl->leader_of[r] == r) node_parts[cnt++] = r;
            }
            if (domain_of) { /* units = the machine's domains inside the node */
                for (int i = 0; i < cnt; i++) {
                    if (pl->unit_of[node_parts[i]] >= 0) continue;
                    int index = 0;
                    for (int x = i; x < cnt; x++)
                        if (domain_of[node_parts[x]] == domain_of[node_parts[i]]) {
                            pl->unit_of[node_parts[x]] = v, pl->index_of[node_parts[x]] = index++;
                            pl->unit_members[used++] = node_parts[x];
                        }
                    pl->unit_first[++v] = used;
                }
                continue;
            }
            int g = spec->groups < cnt ? spec->groups : cnt;
            for (int j = 0; j < g; j++) {
                int lo = (int)((int64_t)j * cnt / g), hi = (int)((int64_t)(j + 1) * cnt / g);
                for (int i = lo; i < hi; i++) {
                    pl->unit_of[node_parts[i]] = v, pl->index_of[node_parts[i]] = i - lo;
                    pl->unit_members[used++] = node_parts[i];
                }
                pl->unit_first[++v] = used;
            }
        }
    }
    pl->num_units = v;
    /* T(v), regularity. */
    int first_own = -1;
    pl->regular = 1;
    used = 0;
    for (int u = 0; u < v; u++) {
        int K = unit_size(pl, u);
        if (K > pl->max_unit) pl->max_unit = K;
        if (K != unit_size(pl, 0)) pl->uneven_units = 1, pl->regular = 0;
        pl->tset_first[u] = used;
        for (int i = 0; i < K; i++) {
            int p = member(pl, u, i);
            if (first_own < 0) first_own = own_count(pl, p);
            if (own_count(pl, p) != first_own) pl->regular = 0;
            for (int x = pl->own_first[p]; x < pl->own_first[p + 1]; x++)
                pl->tset_ranks[used++] = pl->own_ranks[x];
        }
    }
    pl->tset_first[v] = used;
fail:
    return rc;
}

