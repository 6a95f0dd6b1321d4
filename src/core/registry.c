/* The algorithm table, and parsing and printing of selection strings. */
#include "registry.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "error.h"

/* One line per algorithm. Order is the order of listings and sweeps. */
#define XCHG_ALGORITHMS(X)                                                           \
    X(alltoallv_pairwise) X(alltoallv_nonblocking) X(alltoallv_scattered)            \
    X(alltoallv_linear) X(alltoallv_multipair_blocking) X(alltoallv_waitany)         \
    X(alltoallv_testany) X(alltoallv_parlogna)                                       \
    X(alltoallv_parlinna_coalesced) X(alltoallv_parlinna_staggered)                  \
    X(alltoallv_hierarchical) X(alltoallv_multileader) X(alltoallv_node_aware)       \
    X(alltoallv_locality_aware) X(alltoallv_multileader_node_aware)                  \
    X(alltoallv_node_aware_overlap) X(alltoallv_locality_aware_overlap)              \
    X(alltoallv_multileader_overlap)                                                 \
    X(alltoall_pairwise) X(alltoall_nonblocking) X(alltoall_scattered)               \
    X(alltoall_linear) X(alltoall_multipair_blocking) X(alltoall_waitany)            \
    X(alltoall_testany) X(alltoall_bruck) X(alltoall_parlogna)                                            \
    X(alltoall_hierarchical) X(alltoall_multileader) X(alltoall_node_aware)          \
    X(alltoall_locality_aware) X(alltoall_multileader_node_aware)                    \
    X(alltoall_node_aware_overlap) X(alltoall_locality_aware_overlap)                \
    X(alltoall_multileader_overlap)                                                  \
    X(allgather_ring) X(allgather_recursive_doubling) X(allgather_bruck)             \
    X(alltoall_rma_direct) X(allgather_rma_direct)                                   \
    X(alltoall_shm_direct) X(allgather_shm_direct)                                   \
    X(alltoallv_mpi) X(alltoall_mpi) X(allgather_mpi)                                \
    X(neighbor_alltoallv_standard) X(neighbor_alltoallv_mpi) X(neighbor_alltoallv_locality) \
    X(allgatherv_ring) X(allgatherv_recursive_doubling) X(allgatherv_bruck)            \
    X(allgatherv_hierarchical) X(allgatherv_mpi)

#define DECLARE(n) extern const xchg_algorithm xchg_algo_##n;
XCHG_ALGORITHMS(DECLARE)
#undef DECLARE

#define ENTRY(n) &xchg_algo_##n,
static const xchg_algorithm *const all_algorithms[] = {XCHG_ALGORITHMS(ENTRY)};
#undef ENTRY
#define NUM_ALGORITHMS ((int)(sizeof all_algorithms / sizeof all_algorithms[0]))

/* The collective whose algorithms serve `coll`: alltoallw is served by
 * alltoallv's, which reach every block's datatype through xchg_side_type
 * (args.h), so one descriptor and one line serve both. */
static xchg_coll table_of(xchg_coll coll)
{
    return coll == XCHG_ALLTOALLW ? XCHG_ALLTOALLV : coll;
}

int xchg_registry_count(xchg_coll coll)
{
    int n = 0;
    coll = table_of(coll);
    for (int i = 0; i < NUM_ALGORITHMS; i++) n += all_algorithms[i]->coll == coll;
    return n;
}

const xchg_algorithm *xchg_registry_get(xchg_coll coll, int index)
{
    coll = table_of(coll);
    for (int i = 0; i < NUM_ALGORITHMS; i++)
        if (all_algorithms[i]->coll == coll && index-- == 0) return all_algorithms[i];
    return NULL;
}

const xchg_algorithm *xchg_registry_find(xchg_coll coll, const char *name)
{
    coll = table_of(coll);
    for (int i = 0; i < NUM_ALGORITHMS; i++)
        if (all_algorithms[i]->coll == coll && strcmp(all_algorithms[i]->name, name) == 0)
            return all_algorithms[i];
    return NULL;
}

int xchg_registry_index(const xchg_algorithm *algo)
{
    for (int i = 0, n = 0; i < NUM_ALGORITHMS; i++) {
        if (all_algorithms[i] == algo) return n;
        n += all_algorithms[i]->coll == algo->coll;
    }
    return -1;
}

int64_t xchg_range_bound(int64_t bound, int comm_size)
{
    return bound == XCHG_RANGE_P ? comm_size : bound;
}

static void format_bound(int64_t bound, char *buf, size_t len)
{
    if (bound == XCHG_RANGE_P) snprintf(buf, len, "P");
    else if (bound == XCHG_RANGE_MAXINT) snprintf(buf, len, "inf");
    else snprintf(buf, len, "%" PRId64, bound);
}

/* "a, b, c" into buf: the names of `coll`'s algorithms (flat ones only if asked). */
static void list_algorithms(xchg_coll coll, int flat_only, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    coll = table_of(coll);
    for (int i = 0; i < NUM_ALGORITHMS && used < len; i++) {
        const xchg_algorithm *a = all_algorithms[i];
        if (a->coll != coll || (flat_only && !a->is_flat)) continue;
        used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", a->name);
    }
}

static void describe_param(const xchg_param_desc *p, char *buf, size_t len)
{
    char lo[24], hi[24];
    switch (p->kind) {
    case XCHG_PARAM_INT: {
        format_bound(p->min, lo, sizeof lo);
        format_bound(p->max, hi, sizeof hi);
        size_t used = p->def < 0 && p->names /* a special value: its name */
                          ? (size_t)snprintf(buf, len, "%s=%s [%s..%s", p->name,
                                             p->names[-p->def - 1], lo, hi)
                          : (size_t)snprintf(buf, len, "%s=%" PRId64 " [%s..%s", p->name,
                                             p->def, lo, hi);
        for (int i = 0; p->names && p->names[i] && used < len; i++)
            used += (size_t)snprintf(buf + used, len - used, "|%s", p->names[i]);
        if (used < len) snprintf(buf + used, len - used, "]");
        break;
    }
    case XCHG_PARAM_ENUM: {
        size_t used = (size_t)snprintf(buf, len, "%s=%s [", p->name, p->names[p->def]);
        for (int i = 0; p->names[i] && used < len; i++)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "|" : "", p->names[i]);
        if (used < len) snprintf(buf + used, len - used, "]");
        break;
    }
    case XCHG_PARAM_ALGO: {
        char names[512];
        list_algorithms(p->algo_coll, 1, names, sizeof names);
        snprintf(buf, len, "%s=%s [%s]", p->name, p->def_name, names);
        break;
    }
    }
}

void xchg_algorithm_describe_params(const xchg_algorithm *algo, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < algo->num_params && used < len; i++) {
        char one[700];
        describe_param(&algo->params[i], one, sizeof one);
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", one);
    }
}

static int default_value(const xchg_param_desc *p, int64_t *value)
{
    if (p->kind != XCHG_PARAM_ALGO) {
        *value = p->def;
        return MPI_SUCCESS;
    }
    const xchg_algorithm *inner = xchg_registry_find(p->algo_coll, p->def_name);
    *value = inner ? xchg_registry_index(inner) : 0;
    return MPI_SUCCESS;
}

/* Parse the value text of one parameter. */
static int parse_value(const xchg_algorithm *algo, const xchg_param_desc *p, const char *text,
                       int64_t *value)
{
    char valid[700];
    describe_param(p, valid, sizeof valid);
    if (p->kind == XCHG_PARAM_ENUM) {
        for (int i = 0; p->names[i]; i++)
            if (strcmp(p->names[i], text) == 0) {
                *value = i;
                return MPI_SUCCESS;
            }
        return xchg_error(MPI_ERR_ARG, "%s: %s=%s is not valid; valid: %s", algo->name, p->name,
                          text, valid);
    }
    if (p->kind == XCHG_PARAM_ALGO) {
        const xchg_algorithm *inner = xchg_registry_find(p->algo_coll, text);
        if (!inner || !inner->is_flat)
            return xchg_error(MPI_ERR_ARG, "%s: %s=%s is not a flat %s algorithm; valid: %s",
                              algo->name, p->name, text, xchg_coll_name(p->algo_coll), valid);
        *value = xchg_registry_index(inner);
        return MPI_SUCCESS;
    }
    for (int i = 0; p->names && p->names[i]; i++) /* an INT's special values */
        if (strcmp(p->names[i], text) == 0) {
            *value = -(i + 1);
            return MPI_SUCCESS;
        }
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end != '\0' || errno)
        return xchg_error(MPI_ERR_ARG, "%s: %s=%s is not an integer; valid: %s", algo->name,
                          p->name, text, valid);
    /* A range that ends at P is fitted to each communicator later
     * (xchg_choice_fit): here only what is invalid everywhere is refused. */
    int range_ok = v >= p->min && (p->max == XCHG_RANGE_P || v <= p->max);
    if (!range_ok)
        return xchg_error(MPI_ERR_ARG, "%s: %s=%lld is out of range; valid: %s", algo->name,
                          p->name, v, valid);
    *value = v;
    return MPI_SUCCESS;
}

int xchg_choice_parse(xchg_coll coll, const char *text, xchg_choice *out)
{
    char copy[512], names[512];
    int rc = MPI_SUCCESS;
    if (!text || strlen(text) >= sizeof copy)
        return xchg_error(MPI_ERR_ARG, "selection string is missing or too long");
    strcpy(copy, text);
    char *colon = strchr(copy, ':');
    if (colon) *colon = '\0';
    const xchg_algorithm *algo = xchg_registry_find(coll, copy);
    if (!algo) {
        list_algorithms(coll, 0, names, sizeof names);
        return xchg_error(MPI_ERR_ARG, "unknown %s algorithm '%s': valid choices are %s",
                          xchg_coll_name(coll), copy, names);
    }
    xchg_choice choice = {.algo = algo, .coll = coll};
    for (int i = 0; i < algo->num_params; i++) default_value(&algo->params[i], &choice.value[i]);

    char *rest = NULL; /* strtok_r: callers may be in a strtok loop of their own */
    for (char *item = colon ? strtok_r(colon + 1, ",", &rest) : NULL; item;
         item = strtok_r(NULL, ",", &rest)) {
        char *eq = strchr(item, '=');
        if (!eq) return xchg_error(MPI_ERR_ARG, "%s: '%s' is not param=value", algo->name, item);
        *eq = '\0';
        int which = -1;
        for (int i = 0; i < algo->num_params; i++)
            if (strcmp(algo->params[i].name, item) == 0) which = i;
        if (which < 0) {
            char params[1024];
            xchg_algorithm_describe_params(algo, params, sizeof params);
            return xchg_error(MPI_ERR_ARG, "%s has no parameter '%s'; valid: %s", algo->name,
                              item, algo->num_params ? params : "(none)");
        }
        rc = parse_value(algo, &algo->params[which], eq + 1, &choice.value[which]);
        if (rc != MPI_SUCCESS) return rc;
    }
    *out = choice;
    return MPI_SUCCESS;
}

int xchg_choice_fit(const xchg_context *ctx, xchg_choice *choice)
{
    const xchg_algorithm *algo = choice->algo;
    for (int i = 0; i < algo->num_params; i++) {
        const xchg_param_desc *p = &algo->params[i];
        int64_t p_max = ctx->size > p->min ? ctx->size : p->min; /* [min..P], P < min: min */
        if (p->kind == XCHG_PARAM_INT && p->max == XCHG_RANGE_P && choice->value[i] > p_max)
            choice->value[i] = p_max;
    }
    const char *why = algo->applicable ? algo->applicable(ctx, choice) : NULL;
    if (why) return xchg_error(MPI_ERR_ARG, "%s cannot run here: %s", algo->name, why);
    return MPI_SUCCESS;
}

int xchg_choice_library(const xchg_context *ctx, xchg_coll coll, xchg_choice *out)
{
    int rc = xchg_choice_parse(coll, "mpi", out);
    return rc == MPI_SUCCESS ? xchg_choice_fit(ctx, out) : rc;
}

int xchg_choice_equal(const xchg_choice *a, const xchg_choice *b)
{
    if (a->algo != b->algo || a->coll != b->coll) return 0;
    for (int i = 0; i < a->algo->num_params; i++)
        if (a->value[i] != b->value[i]) return 0;
    return 1;
}

void xchg_choice_format(const xchg_choice *choice, char *buf, size_t len)
{
    const xchg_algorithm *algo = choice->algo;
    size_t used = (size_t)snprintf(buf, len, "%s", algo->name);
    for (int i = 0; i < algo->num_params && used < len; i++) {
        const xchg_param_desc *p = &algo->params[i];
        const char *sep = i ? "," : ":";
        if (p->kind == XCHG_PARAM_INT && p->names && choice->value[i] < 0)
            used += (size_t)snprintf(buf + used, len - used, "%s%s=%s", sep, p->name,
                                     p->names[-choice->value[i] - 1]);
        else if (p->kind == XCHG_PARAM_INT)
            used += (size_t)snprintf(buf + used, len - used, "%s%s=%" PRId64, sep, p->name,
                                     choice->value[i]);
        else if (p->kind == XCHG_PARAM_ENUM)
            used += (size_t)snprintf(buf + used, len - used, "%s%s=%s", sep, p->name,
                                     p->names[choice->value[i]]);
        else
            used += (size_t)snprintf(buf + used, len - used, "%s%s=%s", sep, p->name,
                                     xchg_registry_get(p->algo_coll, (int)choice->value[i])->name);
    }
}

xchg_choice xchg_choice_inner(const xchg_choice *choice, int param)
{
    const xchg_param_desc *p = &choice->algo->params[param];
    xchg_choice inner = {.algo = xchg_registry_get(p->algo_coll, (int)choice->value[param]),
                         .coll = p->algo_coll};
    for (int j = 0; j < inner.algo->num_params; j++)
        default_value(&inner.algo->params[j], &inner.value[j]);
    return inner;
}
