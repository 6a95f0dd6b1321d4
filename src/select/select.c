/*
 * Selection. The choice must be identical on every rank, so it may depend
 * only on what all ranks agree on: P, the topology, and for alltoall and
 * allgather the block size (MPI requires matching type signatures). For
 * alltoallv the local counts differ between ranks and are not used.
 *
 * The built-in rule is deliberately simple (automatic selection is a later
 * step); its thresholds come from measurements in docs/results/.
 */
#include "select.h"

#include <stdio.h>
#include <stdlib.h>

#include "../core/error.h"
#include "xchg.h"

static const char *const env_names[XCHG_NUM_COLL] = {"XCHG_ALLTOALL", "XCHG_ALLTOALLV",
                                                     "XCHG_ALLGATHER"};

static const char *default_rule(const xchg_context *ctx, xchg_coll coll, int64_t bytes)
{
    switch (coll) {
    case XCHG_ALLTOALLV:
        return "scattered";
    case XCHG_ALLTOALL:
        /* Bruck's log P rounds pay off while blocks are small. */
        return (ctx->size >= 8 && bytes >= 0 && bytes <= 256) ? "bruck" : "scattered";
    case XCHG_ALLGATHER:
        /* Few rounds for small totals, bandwidth-optimal ring for large. */
        return (bytes >= 0 && bytes * ctx->size <= 64 * 1024) ? "recursive_doubling" : "ring";
    default:
        return NULL;
    }
}

int xchg_select(xchg_context *ctx, xchg_coll coll, int64_t bytes_per_peer, xchg_choice *out)
{
    int rc;
    if (ctx->has_override[coll]) {
        *out = ctx->override[coll];
        return xchg_choice_check(ctx, out);
    }
    const char *env = getenv(env_names[coll]);
    if (env && *env) {
        rc = xchg_choice_parse(coll, env, ctx->size, out);
        if (rc != MPI_SUCCESS) {
            char detail[1024];
            snprintf(detail, sizeof detail, "%s", XCHG_Last_error());
            return xchg_error(rc, "%s: %s", env_names[coll], detail);
        }
        return xchg_choice_check(ctx, out);
    }
    rc = xchg_choice_parse(coll, default_rule(ctx, coll, bytes_per_peer), ctx->size, out);
    if (rc != MPI_SUCCESS) return rc;
    return xchg_choice_check(ctx, out);
}
