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
struct xchg_choice;

typedef int (*xchg_algo_fn)(struct xchg_context *ctx, const xchg_args *args,
                            const struct xchg_choice *choice);

/* Why the algorithm cannot run with these parameters on this communicator,
 * or NULL when it can. */
typedef const char *(*xchg_applicable_fn)(const struct xchg_context *ctx,
                                          const struct xchg_choice *choice);

typedef struct xchg_algorithm {
    xchg_coll coll;
    const char *name;
    const char *summary;       /* one line for listings */
    const char *reference;     /* the publication it follows, short form
                                  ("Fan et al., IPDPS 2024"); NULL: none */
    xchg_algo_fn run;
    int num_params;
    xchg_param_desc params[XCHG_MAX_PARAMS];
    xchg_applicable_fn applicable; /* NULL: applicable everywhere */
    int is_flat;               /* usable as an inner exchange of hierarchical ones */
} xchg_algorithm;

/* A parsed selection: an algorithm and a value for each of its parameters. */
typedef struct xchg_choice {
    const xchg_algorithm *algo;
    int64_t value[XCHG_MAX_PARAMS];
} xchg_choice;

int xchg_registry_count(xchg_coll coll);
const xchg_algorithm *xchg_registry_get(xchg_coll coll, int index);
const xchg_algorithm *xchg_registry_find(xchg_coll coll, const char *name);
int xchg_registry_index(const xchg_algorithm *algo);

/* Parse "name[:p=v,...]" for `coll`. Ranges that depend on P are checked
 * against `comm_size` when it is > 0. MPI_ERR_ARG with a message that names
 * the valid choices on failure. */
int xchg_choice_parse(xchg_coll coll, const char *text, int comm_size, xchg_choice *out);

/* Check P-dependent ranges and applicability for a communicator. */
int xchg_choice_check(const struct xchg_context *ctx, const xchg_choice *choice);

/* Write the full selection string, every parameter included. */
void xchg_choice_format(const xchg_choice *choice, char *buf, size_t buflen);

/* Value of the parameter called `name` (which must exist). */
int64_t xchg_choice_param(const xchg_choice *choice, const char *name);

/* The inner algorithm named by an XCHG_PARAM_ALGO parameter, with its defaults. */
xchg_choice xchg_choice_inner(const xchg_choice *choice, const char *name);

/* Resolve a range bound (XCHG_RANGE_P -> comm_size). */
int64_t xchg_range_bound(int64_t bound, int comm_size);

/* Describe an algorithm's parameters: "batch=32 [1..P]", for listings. */
void xchg_algorithm_describe_params(const xchg_algorithm *algo, char *buf, size_t buflen);

#endif
