/* The overlapped exchange's plan, built once per communicator
 * (overlap_plan.h; the schedule it serves: overlap.c). */
#include "overlap_plan.h"

#include <stdlib.h>

#include "../../core/error.h"

/* The ranks whose message for `rank`'s unit goes to `rank`, in the order of
 * the step at which they send it (unit u-1 first); returns how many. */
static int sources_of(const overlap_plan *pl, int rank, int *out)
{
    const int u = pl->unit_of[rank], U = pl->num_units;
    int n = 0;
    for (int step = 1; step < U; step++) {
        int v = (u - step + U) % U;
        for (int j = 0; j < unit_size(pl, v); j++)
            if (channel_of(pl, rank_on(pl, v, j), u) == rank) out[n++] = rank_on(pl, v, j);
    }
    return n;
}

/* Batches of n sources: b' = min(batches, n) balanced contiguous pieces. */
static int batch_count(int64_t batches, int n)
{
    return batches == XCHG_OVERLAP_EACH || batches > n ? n : (int)batches;
}

/* First source of batch b (b = nb: one past the last); no batches, no sources. */
static int batch_start(int b, int n, int nb) { return nb > 0 ? (int)((int64_t)b * n / nb) : 0; }

void xchg_overlap_free(xchg_plan *plan)
{
    overlap_plan *pl = plan->state;
    if (!pl) return;
    free(pl->mem);
    free(pl);
    plan->state = NULL;
}

/* Units: each node's ranks cut into min(groups, Q) contiguous regions. */
static void build_units(overlap_plan *pl, const xchg_topology *t, int groups)
{
    int v = 0, used = 0;
    pl->unit_first[0] = 0;
    for (int n = 0; n < t->num_nodes; n++) {
        int Q = t->node_size[n], g = groups < Q ? groups : Q;
        for (int r = 0; r < g; r++) {
            int lo = (int)((int64_t)r * Q / g), hi = (int)((int64_t)(r + 1) * Q / g);
            for (int l = lo; l < hi; l++) {
                int rank = xchg_rank_on_node(t, n, l);
                pl->unit_of[rank] = v, pl->index_of[rank] = l - lo;
                pl->unit_members[used++] = rank;
            }
            pl->unit_first[++v] = used;
        }
    }
    pl->num_units = v;
}

int xchg_overlap_init(xchg_plan *plan, const xchg_overlap_spec *spec)
{
    const int P = plan->ctx->size;
    int rc = MPI_SUCCESS;
    overlap_plan *pl = calloc(1, sizeof *pl);
    if (!pl) return xchg_error(MPI_ERR_NO_MEM, "overlap: out of memory");
    plan->state = pl;
    XCHG_ALLOC(pl->mem, (size_t)(12 * P + 4) * sizeof(int));
    int *m = pl->mem;
    pl->unit_of = m, m += P;
    pl->index_of = m, m += P;
    pl->unit_first = m, m += P + 1;
    pl->unit_members = m, m += P;
    pl->sources = m, m += P;
    pl->batch_first = m, m += P + 1;
    pl->batch_of = m, m += P;
    pl->forwarded_src = m, m += P;
    pl->inbound_first = m, m += P + 1;
    pl->inbound_via = m, m += P;
    int *theirs = m; /* [P] a forwarder's sources */
    build_units(pl, &plan->ctx->topo, spec->groups);
    pl->me = plan->ctx->rank;
    pl->unit = pl->unit_of[pl->me];
    pl->local = pl->index_of[pl->me];
    pl->K = unit_size(pl, pl->unit);
    pl->num_sources = sources_of(pl, pl->me, pl->sources);
    pl->num_batches = batch_count(spec->batches, pl->num_sources);
    for (int b = 0; b <= pl->num_batches; b++)
        pl->batch_first[b] = batch_start(b, pl->num_sources, pl->num_batches);
    for (int b = 0; b < pl->num_batches; b++)
        for (int s = pl->batch_first[b]; s < pl->batch_first[b + 1]; s++) pl->batch_of[s] = b;
    /* What the other members forward to me, message by message. */
    pl->inbound_first[0] = 0;
    for (int k = 1; k < pl->K; k++) {
        int via = rank_on(pl, pl->unit, (pl->local + pl->K - k) % pl->K);
        int n = sources_of(pl, via, theirs), nb = batch_count(spec->batches, n);
        for (int b = 0; b < nb; b++) {
            for (int s = batch_start(b, n, nb); s < batch_start(b + 1, n, nb); s++)
                pl->forwarded_src[pl->num_forwarded++] = theirs[s];
            pl->inbound_via[pl->num_inbound] = via;
            pl->inbound_first[++pl->num_inbound] = pl->num_forwarded;
        }
    }
fail:
    if (rc != MPI_SUCCESS) xchg_overlap_free(plan);
    return rc;
}
