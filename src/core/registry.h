/*
 * The registry of algorithms. Each algorithm file exports one xchg_algorithm
 * descriptor; registry.c lists them. Listing, selection, the benchmark's
 * `--algo all`, the tests' sweep and the tuner all iterate this table, so
 * adding an algorithm is adding one file and one line.
 */
#ifndef XCHG_CORE_REGISTRY_H
#define XCHG_CORE_REGISTRY_H

#include <stddef.h>
#include <stdint.h>
#include "args.h"

#define XCHG_MAX_PARAMS 4
#define XCHG_MAX_NAME 64

/* Sentinels for ranges that depend on the communicator. */
#define XCHG_RANGE_P      (-1)  /* the communicator size P */
#define XCHG_RANGE_MAXINT INT64_MAX

typedef enum {
    XCHG_PARAM_INT,      /* an integer in [min, max]; optional `names` are special
                            values outside the range: names[i] means -(i+1) */
    XCHG_PARAM_ENUM,     /* one of `names`; the value is the index into names */
    XCHG_PARAM_ALGO      /* the name of a flat algorithm of collective `algo_coll`;
                            the value is its registry index */
} xchg_param_kind;

typedef struct xchg_param_desc {
    const char *name;
    xchg_param_kind kind;
    int64_t def;               /* default (for XCHG_PARAM_ALGO: see def_name) */
    int64_t min, max;          /* valid range; max may be XCHG_RANGE_P */
    const char *const *names;  /* XCHG_PARAM_ENUM: NULL-terminated value names;
                                  XCHG_PARAM_INT: optional special values -1, -2, ... */
    const char *def_name;      /* XCHG_PARAM_ALGO: default inner algorithm */
    xchg_coll algo_coll;       /* XCHG_PARAM_ALGO: which collective's algorithms */
    const char *help;
} xchg_param_desc;

struct xchg_context;
struct xchg_plan;
struct xchg_choice;
struct xchg_cost_case;
struct xchg_platform;

/*
 * An algorithm's three stages (see src/core/plan.h):
 *   init: build the plan's state from what every rank knows (the context's
 *         topology, the choice, the block size; for a persistent plan also the
 *         call's fixed arguments). May communicate on plan->ctx->comm: every
 *         rank builds the same plan at the same call. NULL: nothing to set up.
 *   run:  one call. `ctx` accounts the call's scratch memory and phase times:
 *         the plan's own context for a top-level call, the outer call's for
 *         an inner exchange (src/core/compose.c). Messages go on args->comm.
 *   destroy: release what init built. NULL when init is NULL. (Not
 *         "free": SimGrid SMPI may define free as a macro.)
 */
typedef int (*xchg_init_fn)(struct xchg_plan *plan);
typedef int (*xchg_run_fn)(struct xchg_context *ctx, const xchg_args *args,
                           const struct xchg_plan *plan);
typedef void (*xchg_destroy_fn)(struct xchg_plan *plan);

/* Optional, for algorithms whose whole schedule is one round of messages:
 * post every message of the call (and do its local copies) into reqs, which
 * has room for 2P requests (indegree + outdegree for a neighbourhood
 * collective), and set *count. The call is complete when they
 * are. A persistent request of such an algorithm returns from XCHG_Start
 * with its messages in flight and completes in XCHG_Test / XCHG_Wait, as
 * MPI's own persistent collectives do. */
typedef int (*xchg_post_fn)(struct xchg_context *ctx, const xchg_args *args,
                            const struct xchg_plan *plan, MPI_Request *reqs, int *count);

/* The cost model of automatic selection (src/select/model.h): predicted
 * seconds of one call with these parameters on the exchange `c` (which may be
 * the inner exchange of a composed algorithm) on platform `plat`. */
typedef double (*xchg_cost_fn)(const struct xchg_cost_case *c, const struct xchg_choice *choice,
                               const struct xchg_platform *plat);

/* Why the algorithm cannot run with these parameters on this communicator
 * (for choice->coll: an alltoallv algorithm that cannot serve alltoallw's
 * per-peer datatypes says so here), or NULL when it can. */
typedef const char *(*xchg_applicable_fn)(const struct xchg_context *ctx,
                                          const struct xchg_choice *choice);

typedef struct xchg_algorithm {
    xchg_coll coll;
    const char *name;
    const char *summary;       /* one line for listings */
    const char *reference;     /* the publication it follows, short form
                                  ("Fan et al. 2025"); NULL: none */
    xchg_init_fn init;
    xchg_run_fn run;
    xchg_destroy_fn destroy;
    xchg_post_fn post;         /* NULL: run is the only way to execute it */
    int num_params;
    xchg_param_desc params[XCHG_MAX_PARAMS]; /* index i describes choice.value[i]; files
                                                name the indices with an enum */
    xchg_applicable_fn applicable; /* NULL: applicable everywhere */
    int is_flat;               /* usable as an inner exchange of hierarchical ones */
    int init_is_local;         /* init sends no messages: plans keyed by a rank's
                                  own pattern need no agreement (plan.h) */
    int init_blocks;           /* init creates windows, which MPI can only
                                  create with blocking calls: a nonblocking call
                                  runs the collective's fallback until a blocking
                                  call or persistent init has built this plan
                                  (src/core/plan.c). Sub-communicators do not
                                  count: inside a task they are virtual
                                  (src/core/vcomm.h) */
    xchg_cost_fn cost;         /* its cost model, next to the header comment's
                                  cost; NULL: never chosen automatically */
} xchg_algorithm;

/* A parsed selection: an algorithm and a value for each of its parameters,
 * for one collective: `coll` is algo->coll, except XCHG_ALLTOALLW, which
 * alltoallv's descriptors serve (so `applicable` can tell the two apart). */
typedef struct xchg_choice {
    const xchg_algorithm *algo;
    int64_t value[XCHG_MAX_PARAMS];
    xchg_coll coll;
} xchg_choice;

/* The algorithms of `coll`, in listing order. XCHG_ALLTOALLW has no
 * descriptors of its own: alltoallv's serve it (their `coll` says
 * XCHG_ALLTOALLV; the call's own collective is in its xchg_args). */
int xchg_registry_count(xchg_coll coll);
const xchg_algorithm *xchg_registry_get(xchg_coll coll, int index);
const xchg_algorithm *xchg_registry_find(xchg_coll coll, const char *name);
int xchg_registry_index(const xchg_algorithm *algo);

/* Parse "name[:p=v,...]" for `coll`. Values are checked against the ranges
 * that hold on every communicator; MPI_ERR_ARG with a message that names the
 * valid choices on failure. */
int xchg_choice_parse(xchg_coll coll, const char *text, xchg_choice *out);

/* Fit a parsed choice to a communicator: a parameter whose range ends at P
 * (radix, leaders, groups) is clamped to max(P, its minimum), which keeps its
 * meaning (a radix of P or more is the linear exchange; min(k, node size)
 * leaders are used anyway). So one selection string serves every
 * communicator of a program. Then applicability: MPI_ERR_ARG when the
 * algorithm cannot run here (e.g. pairwise:order=xor at a P that is not a
 * power of two). */
int xchg_choice_fit(const struct xchg_context *ctx, xchg_choice *choice);

/* The MPI library's own collective (`mpi`) for `coll`, fitted to ctx. */
int xchg_choice_library(const struct xchg_context *ctx, xchg_coll coll, xchg_choice *out);

/* Two choices select the same algorithm with the same parameter values. */
int xchg_choice_equal(const xchg_choice *a, const xchg_choice *b);

/* Write the full selection string, every parameter included. */
void xchg_choice_format(const xchg_choice *choice, char *buf, size_t buflen);

/* The choice of the flat algorithm named by the XCHG_PARAM_ALGO parameter at
 * index `param`, with its defaults. */
xchg_choice xchg_choice_inner(const xchg_choice *choice, int param);

/* Resolve a range bound (XCHG_RANGE_P -> comm_size). */
int64_t xchg_range_bound(int64_t bound, int comm_size);

/* Describe an algorithm's parameters: "batch=32 [1..P]", for listings. */
void xchg_algorithm_describe_params(const xchg_algorithm *algo, char *buf, size_t buflen);

#endif
