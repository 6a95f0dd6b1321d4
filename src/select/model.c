/* The cost model's shared terms and the search over candidates (model.h). */
#include "model.h"


#include "../core/error.h"

const xchg_platform xchg_platform_builtin = {
    .alpha_local = 0.25e-6,  .beta_local = 1.0 / 10e9,
    .alpha_remote = 2.0e-6,  .beta_remote = 1.0 / 25e9,
    .overhead = 0.05e-6,     .beta_copy = 1.0 / 10e9,
    .overhead_per_byte = 2.5e-10, .eager_limit = 4096,
    .beta_node = 1.0 / 50e9,
};

static double max2(double a, double b) { return a > b ? a : b; }

double xchg_cost_of_phase(const xchg_cost_case *c, const xchg_platform *pl,
                          const xchg_cost_phase *ph)
{
    double sharers = ph->sharers > 0 ? ph->sharers : c->sharers;
    double msgs = ph->local_msgs + ph->remote_msgs, bytes = ph->local_bytes + ph->remote_bytes;
    /* eager messages (the phase's mean message up to the limit) are copied
     * through the library's buffers on both sides: a CPU cost per byte */
    double eager_bytes = msgs > 0 && bytes / msgs <= pl->eager_limit ? bytes : 0;
    /* on-node messages and copies of all the node's ranks share its memory */
    double node_share = c->ppn * pl->beta_node;
    xchg_cost_terms t = {
        .latency = ph->rounds * (ph->remote_msgs > 0 ? pl->alpha_remote : pl->alpha_local),
        .overhead = 2 * msgs * pl->overhead + eager_bytes * pl->overhead_per_byte,
        .bandwidth = max2(ph->local_bytes * max2(pl->beta_local, node_share),
                          ph->remote_bytes * sharers * pl->beta_remote),
        .copy = ph->copy_bytes * max2(pl->beta_copy, node_share),
    };
    return xchg_cost_add_terms(c, &t);
}

xchg_cost_terms xchg_cost_phase_terms(const xchg_cost_case *c, const xchg_platform *plat,
                                      const xchg_cost_phase *ph)
{
    xchg_cost_terms t = {0};
    xchg_cost_case alone = *c;
    alone.terms = &t;
    xchg_cost_of_phase(&alone, plat, ph);
    return t;
}

double xchg_cost_add_terms(const xchg_cost_case *c, const xchg_cost_terms *t)
{
    if (c->terms) {
        c->terms->latency += t->latency;
        c->terms->overhead += t->overhead;
        c->terms->bandwidth += t->bandwidth;
        c->terms->copy += t->copy;
    }
    return t->latency + t->overhead + t->bandwidth + t->copy;
}

double xchg_cost_direct(const xchg_cost_case *c, const xchg_platform *pl, double rounds)
{
    double local = c->nodes > 1 ? c->ppn - 1 : c->P - 1, remote = c->P - 1 - local;
    if (remote < 0) remote = 0;
    double sent = c->P > 1 && c->peers < c->P - 1 ? c->peers / (c->P - 1) : 1;
    xchg_cost_phase ph = {.rounds = rounds, .local_msgs = local * sent,
                          .remote_msgs = remote * sent, .local_bytes = local * c->block,
                          .remote_bytes = remote * c->block};
    /* Every message of a round is posted before any is waited for, so the
     * CPU's posting (and eager copying) overlaps the transfers already under
     * way: only what exceeds the bandwidth term counts. */
    xchg_cost_terms t = xchg_cost_phase_terms(c, pl, &ph);
    t.overhead = max2(t.overhead - t.bandwidth, 0);
    return xchg_cost_add_terms(c, &t);
}

double xchg_cost_remote_fraction(const xchg_cost_case *c, int d)
{
    if (c->nodes <= 1 || c->ppn <= 0) return 0;
    if (d >= c->ppn) return 1;
    return (double)d / c->ppn; /* rank + d leaves the node for the last d of ppn */
}

xchg_cost_case xchg_cost_case_of(const xchg_select_input *in)
{
    xchg_cost_case c = {.coll = in->coll, .P = in->comm_size, .nodes = in->num_nodes,
                        .ppn = in->max_node_size, .sharers = in->max_node_size,
                        .block = in->bytes > 0 ? (double)in->bytes : 0,
                        .max_block = in->max_block_bytes > 0 ? (double)in->max_block_bytes : 0,
                        .peers = in->max_peers > 0 && in->max_peers < in->comm_size - 1
                                     ? in->max_peers : in->comm_size - 1,
                        .nbr = in->coll == XCHG_NEIGHBOR_ALLTOALLV ? &in->nbr : NULL};
    return c;
}

xchg_cost_case xchg_cost_sub_case(const xchg_cost_case *c, int P, int nodes, int ppn, int sharers,
                                  double block)
{
    xchg_cost_case sub = *c;
    sub.P = P;
    sub.nodes = nodes;
    sub.ppn = ppn;
    sub.sharers = sharers;
    sub.block = block;
    sub.peers = P - 1;
    return sub;
}

/* ---- The search ---------------------------------------------------------- */

#define MAX_VALUES 24

/* The values tried for parameter p of algo on a communicator of P ranks. */
static int param_values(const xchg_algorithm *algo, int p, int P, int64_t *values)
{
    const xchg_param_desc *d = &algo->params[p];
    int n = 0;
    if (d->kind == XCHG_PARAM_ENUM) {
        while (d->names[n] && n < MAX_VALUES) { values[n] = n; n++; }
        return n;
    }
    if (d->kind == XCHG_PARAM_ALGO) {
        for (int i = 0; i < xchg_registry_count(d->algo_coll) && n < MAX_VALUES; i++) {
            const xchg_algorithm *inner = xchg_registry_get(d->algo_coll, i);
            if (inner->is_flat && inner->cost) values[n++] = i;
        }
        return n;
    }
    /* INT: the default, then min, powers of two and the top of the range up
     * to P (a batch, window or radix of P or more acts as P). */
    int64_t lo = d->min, hi = xchg_range_bound(d->max, P);
    if (hi > P) hi = P;
    if (hi < lo) hi = lo;
    values[n++] = d->def;
    for (int64_t v = lo; v <= hi && n < MAX_VALUES - 1; v = v < 2 ? 2 : 2 * v)
        if (v != d->def) values[n++] = v;
    if (values[n - 1] != hi && hi != d->def) values[n++] = hi;
    return n;
}

typedef struct search {
    const xchg_context *ctx;
    const xchg_platform *plat;
    xchg_cost_case c;
    xchg_candidate *out;
    int max, count;
    xchg_candidate best;     /* the cheapest so far (the first of equals) */
} search;

static void consider(search *s, xchg_choice choice)
{
    if (xchg_choice_fit(s->ctx, &choice) != MPI_SUCCESS) return; /* not applicable */
    xchg_cost_terms terms = {0};
    xchg_cost_case c = s->c;
    c.terms = &terms;
    double seconds = choice.algo->cost(&c, &choice, s->plat);
    xchg_candidate cand = {.choice = choice, .seconds = seconds, .terms = terms};
    if (s->out && s->count < s->max) s->out[s->count] = cand;
    if (s->count == 0 || seconds < s->best.seconds) s->best = cand;
    s->count++;
}

static void enumerate(search *s, xchg_choice *choice, int p)
{
    const xchg_algorithm *algo = choice->algo;
    if (p >= algo->num_params || p >= XCHG_MAX_PARAMS) { /* (the second: for the compiler) */
        consider(s, *choice);
        return;
    }
    int64_t values[MAX_VALUES];
    int n = param_values(algo, p, s->c.P, values);
    for (int i = 0; i < n; i++) {
        choice->value[p] = values[i];
        enumerate(s, choice, p + 1);
    }
}

static search run_search(const xchg_context *ctx, const xchg_select_input *in,
                         const xchg_platform *plat, xchg_candidate *out, int max)
{
    search s = {.ctx = ctx, .plat = plat, .c = xchg_cost_case_of(in), .out = out, .max = max};
    for (int i = 0; i < xchg_registry_count(in->coll); i++) {
        const xchg_algorithm *algo = xchg_registry_get(in->coll, i);
        if (!algo->cost) continue;
        xchg_choice choice = {.algo = algo, .coll = in->coll};
        enumerate(&s, &choice, 0);
    }
    return s;
}

int xchg_model_rank(const xchg_context *ctx, const xchg_select_input *in,
                    const xchg_platform *plat, xchg_candidate *out, int max, int *count)
{
    search s = run_search(ctx, in, plat, out, max);
    int n = out ? (s.count < max ? s.count : max) : s.count;
    /* insertion sort: stable, so equal predictions keep registry order */
    for (int i = 1; out && i < n; i++) {
        xchg_candidate key = out[i];
        int j = i - 1;
        for (; j >= 0 && out[j].seconds > key.seconds; j--) out[j + 1] = out[j];
        out[j + 1] = key;
    }
    *count = n;
    return MPI_SUCCESS;
}

int xchg_model_choose(const xchg_context *ctx, const xchg_select_input *in,
                      const xchg_platform *plat, xchg_choice *out)
{
    search s = run_search(ctx, in, plat, NULL, 0);
    if (s.count == 0) return xchg_error(MPI_ERR_INTERN, "no modelled algorithm can run here");
    *out = s.best.choice;
    return MPI_SUCCESS;
}
