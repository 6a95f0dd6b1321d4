/*
 * Selection for the neighbourhood alltoallv (select.h; the shared steps in
 * select.c, select_internal.h). Its model needs the pattern, agreed by one
 * xchg_allreduce(MAX) of five int64 (neighbor_inputs.c): at a persistent
 * init; for blocking calls on XCHG_AGREE's schedule, the calls between
 * taking the last agreed choice (kept with the pattern cache,
 * xchg_pattern_cache.agreed_choice); and whenever every rank builds a plan
 * together (pattern_cache.h's `rechoose`). Nonblocking calls agree only
 * where a tuning rule or the model (XCHG_ONLINE=0) reads the pattern
 * (select.c: xchg_select_nonblocking_now). No agreement where an override,
 * XCHG_NEIGHBOR_ALLTOALLV or a tuning rule without `bytes` decides, nor for
 * blocking calls under XCHG_AGREE=never (the fixed rule).
 */
#include <string.h>

#include "../core/pattern_cache.h"
#include "neighbor_inputs.h"
#include "online.h"
#include "select_internal.h"
#include "tuning.h"

/* A blocking or nonblocking neighbourhood call's `standard` from the model
 * or the fixed rule runs as `mpi`: its communicator carries the call's
 * graph, and the MPI library's own collective sends the same messages
 * (Open MPI 4.1 and MPICH 4 post one receive per source and one send per
 * destination, as `standard` does), without xchg's path around it once
 * the fast path takes the calls (src/neighbor_fast.c): `standard` through
 * xchg was 1.1-1.7x MPI's own blocking call at 16 B-4 KiB on 2-4 ranks
 * (docs/results/selection/online/nonblocking-neighbor/). A tuning rule's or
 * an explicit `standard` stays; a persistent init (perhaps an XCHG_Topo
 * without the graph) measures its candidates instead (online_init.c). */
int xchg_select_standard_runs_as_library(const xchg_select_input *in, const char *source,
                                         const xchg_choice *choice)
{
    int by_rule = strcmp(source, "the cost model") == 0 || strcmp(source, "the fixed rule") == 0;
    return in->coll == XCHG_NEIGHBOR_ALLTOALLV && !in->persistent_init && by_rule &&
           strcmp(choice->algo->name, "standard") == 0;
}

int xchg_select_library_for_standard(const xchg_context *ctx, const xchg_select_input *in,
                                     const char *source, xchg_choice *out)
{
    if (!xchg_select_standard_runs_as_library(in, source, out)) return MPI_SUCCESS;
    return xchg_choice_library(ctx, XCHG_NEIGHBOR_ALLTOALLV, out);
}

/* neighbor_alltoallv: *decided = 1 and the choice when no agreement is
 * needed: a tuning rule that matches without sizes, or a blocking call under
 * XCHG_AGREE=never (the fixed rule, as `mpi`); *mode: XCHG_AGREE's. */
int xchg_select_neighbor_unagreed(xchg_context *ctx, xchg_select_form form, xchg_choice *out,
                                  int *decided, agree_mode *mode)
{
    int persistent = form != XCHG_SELECT_BLOCKING;
    xchg_select_input in = xchg_select_input_of(ctx, XCHG_NEIGHBOR_ALLTOALLV, -1);
    in.persistent_init = form == XCHG_SELECT_INIT;
    const char *tuned, *source;
    int rc = xchg_select_agree_mode(mode);
    if (rc == MPI_SUCCESS) rc = xchg_tuning_lookup(&in, &tuned);
    *decided = rc == MPI_SUCCESS && (tuned || (!persistent && *mode == AGREE_NEVER));
    if (!*decided) return rc;
    rc = xchg_select_automatic(ctx, &in, out, &source);
    return rc == MPI_SUCCESS ? xchg_select_library_for_standard(ctx, &in, source, out) : rc;
}

/* The agreed pattern's automatic choice (into the pattern cache's agreed
 * choice too, for the blocking calls between agreements, unless it is a
 * persistent init's); *in, *source: its inputs and what decided. */
static int neighbor_agreed(xchg_context *ctx, const xchg_args *args, int persistent_init,
                           xchg_select_input *in, xchg_choice *out, const char **source)
{
    xchg_pattern_cache *cache = &ctx->pattern_cache;
    *in = xchg_select_input_of(ctx, XCHG_NEIGHBOR_ALLTOALLV, -1);
    in->persistent_init = persistent_init;
    int rc = xchg_neighbor_input_agree(ctx, args, in);
    if (rc == MPI_SUCCESS) rc = xchg_select_automatic(ctx, in, out, source);
    if (rc != MPI_SUCCESS || persistent_init) /* a persistent rule is no blocking call's */
        return rc;
    if ((rc = xchg_select_library_for_standard(ctx, in, *source, out)) != MPI_SUCCESS) return rc;
    cache->agreed_choice = *out;
    cache->has_agreed_choice = 1;
    return MPI_SUCCESS;
}

int xchg_select_neighbor_agreed(xchg_context *ctx, const xchg_args *args, xchg_choice *out)
{
    xchg_select_input in;
    const char *source;
    return neighbor_agreed(ctx, args, 0, &in, out, &source);
}

/* A persistent init: the agreed choice; the cost model's is measured
 * against the other candidates (online_init.c). */
int xchg_select_neighbor_persistent(xchg_context *ctx, const xchg_args *args, xchg_choice *out)
{
    xchg_select_input in;
    const char *source;
    int rc = neighbor_agreed(ctx, args, 1, &in, out, &source);
    if (rc == MPI_SUCCESS && strcmp(source, "the cost model") == 0)
        rc = xchg_online_init_choose(ctx, args, &in, out);
    return rc;
}

int xchg_select_neighbor_call(xchg_context *ctx, const xchg_args *args, xchg_choice *out,
                              int *automatic)
{
    const char *source;
    agree_mode mode;
    int rc = xchg_select_explicit(ctx, XCHG_NEIGHBOR_ALLTOALLV, out, &source);
    int decided = 1;
    *automatic = 0;
    if (rc == MPI_SUCCESS && !source)
        rc = xchg_select_neighbor_unagreed(ctx, XCHG_SELECT_BLOCKING, out, &decided, &mode);
    if (rc != MPI_SUCCESS || decided) return rc;
    xchg_select_memory *m = &ctx->selection.memory[XCHG_NEIGHBOR_ALLTOALLV];
    unsigned long n = m->calls++;
    *automatic = 1;
    const xchg_pattern_cache *cache = &ctx->pattern_cache;
    if (mode == AGREE_ALWAYS || xchg_select_sampled_agrees_at(n) || !cache->has_agreed_choice)
        return xchg_select_neighbor_agreed(ctx, args, out);
    *out = cache->agreed_choice;
    return MPI_SUCCESS;
}
