/*
 * The public introspection API (include/xchg.h, "Introspection"): the
 * registry's collectives, algorithms and parameters, a communicator's
 * topology and what can run on it, and cases for the cost model and
 * selection. A thin layer over the private registry (src/core/registry.h),
 * the selection (src/select/select.h), the model (src/select/model.h) and
 * the tuning file (src/select/tuning.h), so that tools and bindings need
 * only <xchg.h>.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "core/error.h"
#include "core/pingpong.h"
#include "core/registry.h"
#include "select/model.h"
#include "select/neighbor_inputs.h"
#include "select/select.h"
#include "select/tuning.h"
#include "xchg.h"

_Static_assert(XCHG_PARAM_KIND_INTEGER == XCHG_PARAM_INT &&
                   XCHG_PARAM_KIND_NAME == XCHG_PARAM_ENUM &&
                   XCHG_PARAM_KIND_ALGORITHM == XCHG_PARAM_ALGO,
               "public parameter kinds are the registry's");
_Static_assert(XCHG_BOUND_P == XCHG_RANGE_P && XCHG_BOUND_UNLIMITED == XCHG_RANGE_MAXINT,
               "public range bounds are the registry's");

/* ---- the registry ---- */

int XCHG_Collective_count(int *count)
{
    if (!count) return xchg_error(MPI_ERR_ARG, "count is NULL");
    *count = XCHG_NUM_COLL;
    return MPI_SUCCESS;
}

int XCHG_Collective_get_name(int index, const char **name)
{
    if (index < 0 || index >= XCHG_NUM_COLL || !name)
        return xchg_error(MPI_ERR_ARG, "no collective number %d (0..%d)", index,
                          XCHG_NUM_COLL - 1);
    *name = xchg_coll_name((xchg_coll)index);
    return MPI_SUCCESS;
}

static int find_algorithm(const char *collective, int index, const xchg_algorithm **algo)
{
    xchg_coll coll;
    int rc = xchg_coll_from_name(collective, &coll);
    if (rc != MPI_SUCCESS) return rc;
    *algo = xchg_registry_get(coll, index);
    if (!*algo) return xchg_error(MPI_ERR_ARG, "no %s algorithm number %d", collective, index);
    return MPI_SUCCESS;
}

static int find_param(const char *collective, int index, int param, const xchg_param_desc **p)
{
    const xchg_algorithm *algo;
    int rc = find_algorithm(collective, index, &algo);
    if (rc != MPI_SUCCESS) return rc;
    if (param < 0 || param >= algo->num_params)
        return xchg_error(MPI_ERR_ARG, "%s has no parameter number %d", algo->name, param);
    *p = &algo->params[param];
    return MPI_SUCCESS;
}

int XCHG_Algorithm_count(const char *collective, int *count)
{
    xchg_coll coll;
    int rc = xchg_coll_from_name(collective, &coll);
    if (rc == MPI_SUCCESS && !count) rc = xchg_error(MPI_ERR_ARG, "count is NULL");
    if (rc == MPI_SUCCESS) *count = xchg_registry_count(coll);
    return rc;
}

int XCHG_Algorithm_describe(const char *collective, int index, char *name, int namelen,
                            char *params, int paramslen)
{
    const xchg_algorithm *algo;
    int rc = find_algorithm(collective, index, &algo);
    if (rc != MPI_SUCCESS) return rc;
    if (name && namelen > 0) snprintf(name, (size_t)namelen, "%s", algo->name);
    if (params && paramslen > 0) xchg_algorithm_describe_params(algo, params, (size_t)paramslen);
    return MPI_SUCCESS;
}

int XCHG_Algorithm_get_info(const char *collective, int index, const char **name,
                            const char **summary, const char **reference, int *hierarchical,
                            int *num_params)
{
    const xchg_algorithm *algo;
    int rc = find_algorithm(collective, index, &algo);
    if (rc != MPI_SUCCESS) return rc;
    if (name) *name = algo->name;
    if (summary) *summary = algo->summary ? algo->summary : "";
    if (reference) *reference = algo->reference ? algo->reference : "";
    if (hierarchical) *hierarchical = !algo->is_flat;
    if (num_params) *num_params = algo->num_params;
    return MPI_SUCCESS;
}

int XCHG_Algorithm_setup_blocks(const char *collective, int index, int *blocks)
{
    const xchg_algorithm *algo;
    int rc = blocks ? find_algorithm(collective, index, &algo)
                    : xchg_error(MPI_ERR_ARG, "XCHG_Algorithm_setup_blocks: blocks is NULL");
    if (rc == MPI_SUCCESS) *blocks = algo->init_blocks;
    return rc;
}

/* The names of a parameter: the enumeration's or the integer's special
 * values, or the flat algorithms of the inner collective. */
static int count_names(const xchg_param_desc *p)
{
    int n = 0;
    if (p->kind == XCHG_PARAM_ALGO) {
        for (int i = 0; i < xchg_registry_count(p->algo_coll); i++)
            n += xchg_registry_get(p->algo_coll, i)->is_flat;
        return n;
    }
    while (p->names && p->names[n]) n++;
    return n;
}

static const char *name_of(const xchg_param_desc *p, int i)
{
    if (p->kind != XCHG_PARAM_ALGO) return p->names[i];
    for (int k = 0; k < xchg_registry_count(p->algo_coll); k++) {
        const xchg_algorithm *a = xchg_registry_get(p->algo_coll, k);
        if (a->is_flat && i-- == 0) return a->name;
    }
    return NULL;
}

int XCHG_Param_get_info(const char *collective, int index, int param, const char **name,
                        int *kind, long long *default_value, long long *min, long long *max,
                        int *num_names, const char **help)
{
    const xchg_param_desc *p;
    int rc = find_param(collective, index, param, &p);
    if (rc != MPI_SUCCESS) return rc;
    int names = count_names(p);
    long long def = p->def, lo = p->min, hi = p->max;
    if (p->kind != XCHG_PARAM_INT) lo = 0, hi = names - 1;
    if (p->kind == XCHG_PARAM_ALGO)
        for (int i = 0; i < names; i++)
            if (strcmp(name_of(p, i), p->def_name) == 0) def = i;
    if (name) *name = p->name;
    if (kind) *kind = (int)p->kind;
    if (default_value) *default_value = def;
    if (min) *min = lo;
    if (max) *max = hi;
    if (num_names) *num_names = names;
    if (help) *help = p->help ? p->help : "";
    return MPI_SUCCESS;
}

int XCHG_Param_get_name(const char *collective, int index, int param, int i, const char **name)
{
    const xchg_param_desc *p;
    int rc = find_param(collective, index, param, &p);
    if (rc != MPI_SUCCESS) return rc;
    if (i < 0 || i >= count_names(p) || !name)
        return xchg_error(MPI_ERR_ARG, "%s has no name number %d", p->name, i);
    *name = name_of(p, i);
    return MPI_SUCCESS;
}

int XCHG_Param_describe(const char *collective, int index, int param, char *buf, int buflen)
{
    const xchg_param_desc *p;
    int rc = find_param(collective, index, param, &p);
    if (rc != MPI_SUCCESS) return rc;
    if (!buf || buflen <= 0) return xchg_error(MPI_ERR_ARG, "no output buffer");
    xchg_algorithm one = {.num_params = 1};
    one.params[0] = *p;
    xchg_algorithm_describe_params(&one, buf, (size_t)buflen);
    return MPI_SUCCESS;
}

int XCHG_Selection_normalize(const char *collective, const char *selection, char *buf,
                             int buflen)
{
    xchg_coll coll;
    xchg_choice choice;
    if (!buf || buflen <= 0) return xchg_error(MPI_ERR_ARG, "no output buffer");
    buf[0] = '\0';
    int rc = xchg_coll_from_name(collective, &coll);
    if (rc == MPI_SUCCESS) rc = xchg_choice_parse(coll, selection ? selection : "", &choice);
    if (rc == MPI_SUCCESS) xchg_choice_format(&choice, buf, (size_t)buflen);
    return rc;
}

/* ---- a communicator ---- */

int XCHG_Comm_message_time(MPI_Comm comm, long long bytes, int samples, double *seconds)
{
    if (!seconds) return xchg_raise(comm, xchg_error(MPI_ERR_ARG, "seconds is NULL"));
    return xchg_raise(comm, xchg_message_time(comm, bytes, samples, seconds));
}

int XCHG_Comm_check_algorithm(MPI_Comm comm, const char *collective, const char *selection,
                              int *applicable, char *text, int textlen)
{
    xchg_context *ctx;
    xchg_coll coll;
    xchg_choice choice;
    if (!applicable || !text || textlen <= 0)
        return xchg_raise(comm, xchg_error(MPI_ERR_ARG, "applicable or text is NULL"));
    text[0] = '\0';
    *applicable = 0;
    int rc = xchg_context_get(comm, &ctx);
    if (rc == MPI_SUCCESS) rc = xchg_coll_from_name(collective, &coll);
    if (rc == MPI_SUCCESS) rc = xchg_choice_parse(coll, selection ? selection : "", &choice);
    if (rc != MPI_SUCCESS) return xchg_raise(comm, rc);
    if (xchg_choice_fit(ctx, &choice) == MPI_SUCCESS) {
        *applicable = 1;
        xchg_choice_format(&choice, text, (size_t)textlen);
    } else {
        snprintf(text, (size_t)textlen, "%s", XCHG_Last_error());
        xchg_error(MPI_SUCCESS, "%s", "");
    }
    return MPI_SUCCESS;
}

int XCHG_Comm_get_topology(MPI_Comm comm, int *num_nodes, int *is_virtual, int *is_block)
{
    xchg_context *ctx;
    int rc = xchg_context_get(comm, &ctx);
    if (rc != MPI_SUCCESS) return xchg_raise(comm, rc);
    if (num_nodes) *num_nodes = ctx->topo.num_nodes;
    if (is_virtual) *is_virtual = ctx->topo.is_virtual;
    if (is_block) *is_block = ctx->topo.is_block;
    return MPI_SUCCESS;
}

int XCHG_Comm_get_node(MPI_Comm comm, int node, int maxranks, int ranks[], int *node_size)
{
    xchg_context *ctx;
    int rc = xchg_context_get(comm, &ctx);
    if (rc == MPI_SUCCESS && (node < 0 || node >= ctx->topo.num_nodes))
        rc = xchg_error(MPI_ERR_ARG, "no node %d (0..%d)", node, ctx->topo.num_nodes - 1);
    if (rc != MPI_SUCCESS) return xchg_raise(comm, rc);
    const xchg_topology *t = &ctx->topo;
    for (int l = 0; ranks && l < t->node_size[node] && l < maxranks; l++)
        ranks[l] = xchg_rank_on_node(t, node, l);
    if (node_size) *node_size = t->node_size[node];
    return MPI_SUCCESS;
}

/* ---- cases ---- */

struct xchg_case {
    xchg_context model_ctx;  /* a machine without a communicator: what
                                applicability looks at (its size) */
    xchg_context *ctx;       /* &model_ctx, or the communicator's */
    MPI_Comm comm;           /* MPI_COMM_NULL for a model case */
    xchg_coll coll;
    long long bytes;         /* as given (the model sees in.bytes) */
    xchg_select_input in;
    xchg_candidate *ranking; /* XCHG_Case_rank's, cheapest first */
    int ranked;
};

static int new_case(const char *collective, long long bytes, XCHG_Case *xcase)
{
    xchg_coll coll;
    if (!xcase) return xchg_error(MPI_ERR_ARG, "the case pointer is NULL");
    *xcase = NULL;
    int rc = xchg_coll_from_name(collective, &coll);
    if (rc != MPI_SUCCESS) return rc;
    struct xchg_case *c = calloc(1, sizeof *c);
    if (!c) return xchg_error(MPI_ERR_NO_MEM, "no memory for a case");
    c->coll = coll;
    c->bytes = bytes;
    c->comm = MPI_COMM_NULL;
    *xcase = c;
    return MPI_SUCCESS;
}

int XCHG_Case_create(const char *collective, int ranks, int ranks_per_node, long long bytes,
                     XCHG_Case *xcase)
{
    if (ranks < 1 || ranks_per_node < 1 || bytes < 0)
        return xchg_error(MPI_ERR_ARG, "a case needs ranks >= 1, ranks per node >= 1 and "
                                       "bytes >= 0 (got %d, %d, %lld)", ranks, ranks_per_node,
                          bytes);
    int rc = new_case(collective, bytes, xcase);
    if (rc != MPI_SUCCESS) return rc;
    struct xchg_case *c = *xcase;
    int64_t model_bytes = xchg_select_size_bucket(bytes);
    c->model_ctx.size = ranks;
    c->ctx = &c->model_ctx;
    c->in = (xchg_select_input){.coll = c->coll, .comm_size = ranks,
                                .num_nodes = (ranks + ranks_per_node - 1) / ranks_per_node,
                                .min_node_size = ranks % ranks_per_node ? ranks % ranks_per_node
                                                                        : ranks_per_node,
                                .max_node_size = ranks < ranks_per_node ? ranks : ranks_per_node,
                                .bytes = model_bytes, .max_block_bytes = model_bytes,
                                .max_peers = ranks - 1};
    return MPI_SUCCESS;
}

int XCHG_Comm_case_create(MPI_Comm comm, const char *collective, long long bytes,
                          XCHG_Case *xcase)
{
    xchg_context *ctx;
    int rc = xchg_context_get(comm, &ctx);
    if (rc == MPI_SUCCESS) rc = new_case(collective, bytes, xcase);
    if (rc != MPI_SUCCESS) return xchg_raise(comm, rc);
    struct xchg_case *c = *xcase;
    c->ctx = ctx;
    c->comm = comm;
    c->in = xchg_select_input_of(ctx, c->coll, xchg_select_size_bucket(bytes));
    return MPI_SUCCESS;
}

int XCHG_Case_free(XCHG_Case *xcase)
{
    if (!xcase) return xchg_error(MPI_ERR_ARG, "the case pointer is NULL");
    if (*xcase) free((*xcase)->ranking);
    free(*xcase);
    *xcase = NULL;
    return MPI_SUCCESS;
}

static int changed(XCHG_Case c)
{
    if (!c) return xchg_error(MPI_ERR_ARG, "the case is NULL");
    free(c->ranking);
    c->ranking = NULL;
    c->ranked = 0;
    return MPI_SUCCESS;
}

int XCHG_Case_set_peers(XCHG_Case c, int peers)
{
    int rc = changed(c);
    if (rc != MPI_SUCCESS) return rc;
    int P = c->in.comm_size;
    c->in.max_peers = peers > 0 && peers < P ? peers : P - 1;
    return MPI_SUCCESS;
}

int XCHG_Case_set_max_block(XCHG_Case c, long long bytes)
{
    int rc = changed(c);
    if (rc != MPI_SUCCESS) return rc;
    if (bytes < 0) return xchg_error(MPI_ERR_ARG, "the largest block must not be negative");
    int64_t largest = xchg_select_size_bucket(bytes);
    c->in.max_block_bytes = largest > c->in.bytes ? largest : c->in.bytes;
    return MPI_SUCCESS;
}

int XCHG_Case_set_neighbor_pattern(XCHG_Case c, long long remote_msgs, long long local_msgs,
                                   long long remote_bytes, long long local_bytes,
                                   long long remote_nodes)
{
    int rc = changed(c);
    if (rc == MPI_SUCCESS && c->coll != XCHG_NEIGHBOR_ALLTOALLV)
        rc = xchg_error(MPI_ERR_ARG, "a neighbour pattern is for neighbor_alltoallv");
    if (rc != MPI_SUCCESS) return rc;
    c->in.nbr = (xchg_neighbor_input){remote_msgs, local_msgs, remote_bytes, local_bytes,
                                      remote_nodes};
    xchg_neighbor_input_summarize(&c->in);
    c->bytes = c->in.bytes;
    return MPI_SUCCESS;
}

int XCHG_Case_get_shape(XCHG_Case c, int *ranks, int *num_nodes, int *min_node_size,
                        int *max_node_size, long long *model_bytes)
{
    if (!c) return xchg_error(MPI_ERR_ARG, "the case is NULL");
    if (ranks) *ranks = c->in.comm_size;
    if (num_nodes) *num_nodes = c->in.num_nodes;
    if (min_node_size) *min_node_size = c->in.min_node_size;
    if (max_node_size) *max_node_size = c->in.max_node_size;
    if (model_bytes) *model_bytes = (long long)c->in.bytes;
    return MPI_SUCCESS;
}

static int reason_of(const char *why)
{
    if (strcmp(why, "XCHG_Comm_set_algorithm") == 0) return XCHG_REASON_COMM;
    if (strncmp(why, "XCHG_", 5) == 0) return XCHG_REASON_ENV;
    if (strcmp(why, "a rule of the tuning file") == 0) return XCHG_REASON_TUNING_RULE;
    if (strcmp(why, "the fixed rule") == 0) return XCHG_REASON_FIXED;
    return XCHG_REASON_MODEL;
}

int XCHG_Case_select(XCHG_Case c, char *selection, int len, int *reason, const char **why)
{
    xchg_choice choice;
    const char *source = "the cost model";
    if (!c || !selection || len <= 0)
        return xchg_error(MPI_ERR_ARG, "the case or the selection buffer is NULL");
    selection[0] = '\0';
    if (c->comm != MPI_COMM_NULL) {
        int rc = xchg_select_explain(c->ctx, c->coll, c->bytes, &choice, &source);
        if (rc != MPI_SUCCESS) return xchg_raise(c->comm, rc);
        xchg_choice_format(&choice, selection, (size_t)len);
    } else {
        const xchg_platform *plat;
        const char *rule = NULL;
        int rc = xchg_select_platform(&plat);
        if (rc == MPI_SUCCESS) rc = xchg_model_choose(c->ctx, &c->in, plat, &choice);
        if (rc == MPI_SUCCESS) rc = xchg_tuning_lookup(&c->in, &rule);
        if (rc != MPI_SUCCESS) return rc;
        if (rule) {
            source = "a rule of the tuning file";
            snprintf(selection, (size_t)len, "%s", rule);
        } else {
            xchg_choice_format(&choice, selection, (size_t)len);
        }
    }
    if (reason) *reason = reason_of(source);
    if (why) *why = source;
    return MPI_SUCCESS;
}

int XCHG_Case_predict(XCHG_Case c, const char *selection, double *seconds)
{
    xchg_choice choice;
    const xchg_platform *plat;
    if (!c || !seconds) return xchg_error(MPI_ERR_ARG, "the case or seconds is NULL");
    int rc = xchg_choice_parse(c->coll, selection ? selection : "", &choice);
    if (rc == MPI_SUCCESS) rc = xchg_choice_fit(c->ctx, &choice);
    if (rc == MPI_SUCCESS) rc = xchg_select_platform(&plat);
    if (rc != MPI_SUCCESS) return rc;
    xchg_cost_case cc = xchg_cost_case_of(&c->in);
    *seconds = choice.algo->cost ? choice.algo->cost(&cc, &choice, plat) : -1.0;
    return MPI_SUCCESS;
}

int XCHG_Case_rank(XCHG_Case c, int *count)
{
    const xchg_platform *plat;
    if (!c || !count) return xchg_error(MPI_ERR_ARG, "the case or count is NULL");
    if (!c->ranked) {
        int n = 0;
        int rc = xchg_select_platform(&plat);
        if (rc == MPI_SUCCESS && c->in.bytes >= 0)
            rc = xchg_model_rank(c->ctx, &c->in, plat, NULL, 0, &n);
        if (rc != MPI_SUCCESS) return rc;
        free(c->ranking);
        c->ranking = n ? malloc((size_t)n * sizeof *c->ranking) : NULL;
        if (n && !c->ranking) return xchg_error(MPI_ERR_NO_MEM, "no memory for a ranking");
        if (n) rc = xchg_model_rank(c->ctx, &c->in, plat, c->ranking, n, &n);
        if (rc != MPI_SUCCESS) return rc;
        c->ranked = n;
    }
    *count = c->ranked;
    return MPI_SUCCESS;
}

int XCHG_Case_get_candidate(XCHG_Case c, int i, char *selection, int len, double *seconds,
                            double terms[4])
{
    if (!c || i < 0 || i >= c->ranked)
        return xchg_error(MPI_ERR_ARG, "no candidate %d (rank the case first: %d candidates)",
                          i, c ? c->ranked : 0);
    const xchg_candidate *k = &c->ranking[i];
    if (selection && len > 0) xchg_choice_format(&k->choice, selection, (size_t)len);
    if (seconds) *seconds = k->seconds;
    if (terms) {
        terms[0] = k->terms.latency;
        terms[1] = k->terms.overhead;
        terms[2] = k->terms.bandwidth;
        terms[3] = k->terms.copy;
    }
    return MPI_SUCCESS;
}

int XCHG_Model_get_constants_source(int *from_tuning_file)
{
    const xchg_platform *plat = NULL;
    if (!from_tuning_file) return xchg_error(MPI_ERR_ARG, "from_tuning_file is NULL");
    int rc = xchg_tuning_platform(&plat);
    *from_tuning_file = rc == MPI_SUCCESS && plat != NULL;
    return rc;
}

void XCHG_Clear_error(void)
{
    xchg_error(MPI_SUCCESS, "%s", "");
}
