/*
 * The overlapped exchange among units (overlap.c): node_aware_overlap (a
 * unit is a node) and locality_aware_overlap (a unit is one of g regions of
 * a node) are this engine with one number, and both take `batches`, how
 * arriving messages are grouped for forwarding inside the unit. The
 * schedule, the tags, why the buffers are safe and the cost are explained in
 * overlap.c.
 */
#ifndef XCHG_COLL_NODEAWARE_OVERLAP_H
#define XCHG_COLL_NODEAWARE_OVERLAP_H

#include "../../core/context.h"
#include "../../core/plan.h"
#include "../../core/registry.h"

typedef struct xchg_overlap_spec {
    int groups;      /* units per node (min(g, node size) are used) */
    int64_t batches; /* forwarding batches; XCHG_OVERLAP_EACH: each message alone */
} xchg_overlap_spec;

#define XCHG_OVERLAP_EACH (-1)
extern const char *const xchg_overlap_batch_names[];

#define XCHG_OVERLAP_PARAM_BATCHES                                                    \
    {.name = "batches", .kind = XCHG_PARAM_INT, .def = XCHG_OVERLAP_EACH, .min = 1,     \
     .max = XCHG_RANGE_P, .names = xchg_overlap_batch_names,                            \
     .help = "forward arriving messages in this many batches (each: one by one)"}

struct xchg_cost_case;
struct xchg_platform;

int xchg_overlap_init(xchg_plan *plan, const xchg_overlap_spec *spec);
int xchg_overlap_run(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan);
void xchg_overlap_free(xchg_plan *plan);
const char *xchg_overlap_applicable(const xchg_context *ctx, const xchg_choice *choice);
double xchg_overlap_cost(const struct xchg_cost_case *c, const struct xchg_platform *plat,
                         const xchg_overlap_spec *spec);

/* Register `ident` for alltoall and alltoallv; spec_fn(choice) gives its
 * xchg_overlap_spec, PARAMS its parameter descriptors. */
#define XCHG_REGISTER_OVERLAP(ident, spec_fn, text, nparams, PARAMS, ...)            \
    static int init_##ident(xchg_plan *plan)                                         \
    {                                                                                \
        const xchg_overlap_spec spec = spec_fn(&plan->choice);                       \
        return xchg_overlap_init(plan, &spec);                                       \
    }                                                                                \
    static double cost_##ident(const struct xchg_cost_case *c, const xchg_choice *choice, \
                               const struct xchg_platform *plat)                     \
    {                                                                                \
        const xchg_overlap_spec spec = spec_fn(choice);                              \
        return xchg_overlap_cost(c, plat, &spec);                                    \
    }                                                                                \
    const xchg_algorithm xchg_algo_alltoall_##ident = {                              \
        .coll = XCHG_ALLTOALL, .name = #ident, .summary = text, .init = init_##ident, \
        .run = xchg_overlap_run, .destroy = xchg_overlap_free, .cost = cost_##ident, \
        .applicable = xchg_overlap_applicable, .init_is_local = 1,                   \
        .num_params = nparams, .params = PARAMS, __VA_ARGS__};                       \
    const xchg_algorithm xchg_algo_alltoallv_##ident = {                             \
        .coll = XCHG_ALLTOALLV, .name = #ident, .summary = text, .init = init_##ident, \
        .run = xchg_overlap_run, .destroy = xchg_overlap_free, .cost = cost_##ident, \
        .applicable = xchg_overlap_applicable, .init_is_local = 1,                   \
        .num_params = nparams, .params = PARAMS, __VA_ARGS__};

#endif
