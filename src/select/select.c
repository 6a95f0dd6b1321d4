/*
 * Selection. The choice must be identical on every rank, so it may depend
 * only on what all ranks agree on: P, the topology, and for alltoall and
 * allgather the block size (MPI requires matching type signatures). For
 * alltoallv the local counts differ between ranks and are not used.
 *
 * The built-in rule is deliberately simple (automatic selection is a later
 * step).
 */
#include "select.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/error.h"
#include "tuning.h"
#include "xchg.h"

static const char *const env_names[XCHG_NUM_COLL] = {"XCHG_ALLTOALL", "XCHG_ALLTOALLV",
                                                     "XCHG_ALLGATHER",
                                                     "XCHG_NEIGHBOR_ALLTOALLV"};

/* The built-in rule. Measured basis (docs/results/foundation-*-8ranks.md,
 * docs/results/sim/): alltoallv: scattered is within a few percent of the best
 * flat algorithm on shared memory and the best at 64-256 simulated ranks;
 * alltoall: Bruck's log2 P rounds win only for tiny blocks; allgather:
 * recursive doubling moves (P-1) blocks in log2 P rounds when P is a power of
 * two; otherwise its fold costs two extra full-buffer steps and the ring wins
 * once the gathered buffer is large. */
static const char *default_rule(const xchg_context *ctx, xchg_coll coll, int64_t bytes)
{
    int power_of_two = (ctx->size & (ctx->size - 1)) == 0;
    switch (coll) {
    case XCHG_ALLTOALLV:
        return "scattered";
    case XCHG_ALLTOALL:
        return (ctx->size >= 8 && bytes >= 0 && bytes <= 64) ? "bruck" : "scattered";
    case XCHG_ALLGATHER:
        return (power_of_two || (bytes >= 0 && bytes * ctx->size <= 64 * 1024))
                   ? "recursive_doubling" : "ring";
    case XCHG_NEIGHBOR_ALLTOALLV:
        return "standard"; /* the only one yet */
    default:
        return NULL;
    }
}

/* `text` parsed and fitted to ctx, from `memo` when it holds the same text. */
static int parse_memoized(xchg_context *ctx, xchg_coll coll, const char *text,
                          xchg_parsed_selection *memo, xchg_choice *out)
{
    if (strcmp(memo->text, text) == 0) {
        *out = memo->choice;
        return MPI_SUCCESS;
    }
    xchg_choice choice;
    int rc = xchg_choice_parse(coll, text, &choice);
    if (rc == MPI_SUCCESS) rc = xchg_choice_fit(ctx, &choice);
    if (rc != MPI_SUCCESS) return rc;
    if (strlen(text) < sizeof memo->text) { /* longer strings are just not kept */
        strcpy(memo->text, text);
        memo->choice = choice;
    }
    *out = choice;
    return MPI_SUCCESS;
}

int xchg_select(xchg_context *ctx, xchg_coll coll, int64_t bytes_per_peer, xchg_choice *out)
{
    if (ctx->has_override[coll]) {
        *out = ctx->override[coll];
        return MPI_SUCCESS; /* fitted when it was set */
    }
    const char *env = getenv(env_names[coll]);
    if (env && *env) {
        int rc = parse_memoized(ctx, coll, env, &ctx->env_selection[coll], out);
        if (rc != MPI_SUCCESS) {
            char detail[1024];
            snprintf(detail, sizeof detail, "%s", XCHG_Last_error());
            return xchg_error(rc, "%s: %s", env_names[coll], detail);
        }
        return MPI_SUCCESS;
    }
    /* Integration sketch (the lead decides): the tuning file, after the
     * environment and before the built-in rule. */
    xchg_select_input in = {.coll = coll, .comm_size = ctx->size,
                            .num_nodes = ctx->topo.num_nodes, .min_node_size = ctx->size,
                            .max_node_size = 0, .bytes = bytes_per_peer,
                            .max_block_bytes = bytes_per_peer};
    for (int n = 0; n < ctx->topo.num_nodes; n++) {
        if (ctx->topo.node_size[n] < in.min_node_size) in.min_node_size = ctx->topo.node_size[n];
        if (ctx->topo.node_size[n] > in.max_node_size) in.max_node_size = ctx->topo.node_size[n];
    }
    const char *tuned = NULL;
    int rc = xchg_tuning_lookup(&in, &tuned);
    if (rc != MPI_SUCCESS) return rc;
    return parse_memoized(ctx, coll, tuned ? tuned : default_rule(ctx, coll, bytes_per_peer),
                          &ctx->rule_selection[coll], out);
}
