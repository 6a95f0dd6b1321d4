/*
 * Selection. The choice must be identical on every rank (MPI requires that
 * all ranks run the same algorithm), so it depends only on what all ranks
 * agree on: P, the topology, for alltoall and allgather the block size (MPI
 * requires matching type signatures), and for alltoallv the inputs that an
 * agreement made the same everywhere.
 *
 * allgatherv needs no agreement: MPI requires the same recvcounts (in
 * bytes: type signatures) on every rank, so the mean and the largest
 * contribution are known everywhere and the model sees the real sizes.
 *
 * alltoallv's agreement is one xchg_allreduce(MAX) of three int64 on the
 * context's communicator: the busiest rank's bytes (sent or received), the
 * largest block and the most non-empty peers of a rank. A persistent plan pays it once, at init. A blocking call
 * pays it on a schedule that every rank follows (the calls are numbered the
 * same everywhere, as MPI orders collectives): XCHG_AGREE=
 *   sampled (default)  at calls 0, 1, 4, 16, 64, 256 (counted from 0) and
 *                      then every 1024th; the calls between reuse the last
 *                      agreement (an application's exchanges change slowly,
 *                      and a stale size costs time, never correctness: every
 *                      algorithm is correct for every input). An agreement
 *                      costs about as much as a small alltoallv (log2 P
 *                      latencies: docs/results/selection/), so a short run
 *                      must not pay it often: with agreements at 0-3, 5, 9,
 *                      ... the transitive closure's 8-17 iterations at 256
 *                      simulated ranks spent more time agreeing than
 *                      exchanging;
 *   always             at every call;
 *   never              never: alltoallv then uses the fixed rule.
 * No agreement at all when an override or XCHG_ALLTOALLV decides. Alltoallw
 * is agreed the same way (its bytes: counts times each peer's type size),
 * on a schedule of its own (XCHG_ALLTOALLW decides it when set).
 *
 * The neighbourhood alltoallv's selection (its agreed pattern, the pattern
 * cache's agreed choice, the model's `standard` run as `mpi`) is in
 * select_neighbor.c; the steps both share, in select_internal.h.
 */
#include "select.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/error.h"
#include "../nonblocking_fast.h"
#include "model.h"
#include "online.h"
#include "select_internal.h"
#include "tuning.h"
#include "xchg.h"

static const char *const env_names[XCHG_NUM_COLL] = {
    [XCHG_ALLTOALL] = "XCHG_ALLTOALL", [XCHG_ALLTOALLV] = "XCHG_ALLTOALLV",
    [XCHG_ALLGATHER] = "XCHG_ALLGATHER", [XCHG_NEIGHBOR_ALLTOALLV] = "XCHG_NEIGHBOR_ALLTOALLV",
    [XCHG_ALLTOALLW] = "XCHG_ALLTOALLW", [XCHG_ALLGATHERV] = "XCHG_ALLGATHERV"};

const char *xchg_select_env_name(xchg_coll coll)
{
    return env_names[coll];
}

/* The rule when the model has no inputs (alltoallv, neighbor_alltoallv
 * without an agreement). Measured basis
 * (docs/results/foundation-*-8ranks.md, docs/results/sim/): scattered is
 * within a few percent of the best flat algorithm on shared memory and the
 * best flat one at 64-256 simulated ranks; standard is MPI's own schedule
 * (docs/results/neighbor-scaling/). */
static const char *fixed_rule(xchg_coll coll)
{
    if (coll == XCHG_ALLGATHERV || coll == XCHG_ALLGATHER) return "ring"; /* no scattered */
    return coll == XCHG_NEIGHBOR_ALLTOALLV ? "standard" : "scattered";
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

/* The override or the environment, when one decides (*source: which;
 * NULL when neither does). */
int xchg_select_explicit(xchg_context *ctx, xchg_coll coll, xchg_choice *out,
                         const char **source)
{
    *source = "XCHG_Comm_set_algorithm";
    if (ctx->has_override[coll]) {
        *out = ctx->override[coll];
        return MPI_SUCCESS; /* fitted when it was set */
    }
    const char *env = getenv(env_names[coll]);
    *source = env_names[coll];
    if (env && *env) {
        int rc = parse_memoized(ctx, coll, env, &ctx->selection.env[coll], out);
        if (rc != MPI_SUCCESS) {
            char detail[1024];
            snprintf(detail, sizeof detail, "%s", XCHG_Last_error());
            return xchg_error(rc, "%s: %s", env_names[coll], detail);
        }
        return MPI_SUCCESS;
    }
    *source = NULL;
    return MPI_SUCCESS;
}

int xchg_select_platform(const xchg_platform **plat)
{
    int rc = xchg_tuning_platform(plat);
    if (rc == MPI_SUCCESS && !*plat) *plat = &xchg_platform_builtin;
    return rc;
}

xchg_select_input xchg_select_input_of(const xchg_context *ctx, xchg_coll coll, int64_t bytes)
{
    const xchg_topology *t = &ctx->topo;
    xchg_select_input in = {.coll = coll, .comm_size = ctx->size, .num_nodes = t->num_nodes,
                            .min_node_size = ctx->size, .max_node_size = 0,
                            .bytes = bytes, .max_block_bytes = bytes,
                            .max_peers = ctx->size - 1};
    for (int n = 0; n < t->num_nodes; n++) {
        if (t->node_size[n] < in.min_node_size) in.min_node_size = t->node_size[n];
        if (t->node_size[n] > in.max_node_size) in.max_node_size = t->node_size[n];
    }
    return in;
}

/* Sizes as the model sees them: rounded to quarter octaves (2^(k/4) bytes),
 * so that a program cycling through many sizes searches once per bucket
 * (a search costs 20-200 us: 16-4096 ranks, 250-450 candidates); the
 * model is not finer than that anyway. Deterministic, so every rank rounds
 * alike. */
int64_t xchg_select_size_bucket(int64_t bytes)
{
    static const double quarter[4] = {1.0, 1.189207115, 1.414213562, 1.681792831};
    if (bytes <= 1) return bytes;
    int64_t octave = 1;
    while (octave <= bytes / 2) octave *= 2; /* the largest power of two <= bytes */
    int q = 3;
    while (q > 0 && octave * quarter[q] > (double)bytes) q--;
    return (int64_t)(octave * quarter[q]);
}

/* The model's choice for `in`, remembered for the next calls whose sizes
 * fall in the same buckets (neighbor_alltoallv: not remembered; it searches
 * once per plan it builds). */
static int model_choice(xchg_context *ctx, const xchg_select_input *exact, xchg_choice *out)
{
    const xchg_platform *plat;
    int rc;
    if (exact->coll == XCHG_NEIGHBOR_ALLTOALLV) { /* once per plan: no memo */
        rc = xchg_select_platform(&plat);
        return rc == MPI_SUCCESS ? xchg_model_choose(ctx, exact, plat, out) : rc;
    }
    xchg_select_input in = *exact;
    in.bytes = xchg_select_size_bucket(in.bytes);
    in.max_block_bytes = xchg_select_size_bucket(in.max_block_bytes);
    xchg_select_memory *m = &ctx->selection.memory[in.coll];
    for (int i = 0; i < m->count; i++)
        if (m->memo_bytes[i] == in.bytes && m->memo_max_block[i] == in.max_block_bytes &&
            m->memo_peers[i] == in.max_peers) {
            *out = m->memo_choice[i];
            return MPI_SUCCESS;
        }
    rc = xchg_select_platform(&plat);
    if (rc == MPI_SUCCESS) rc = xchg_model_choose(ctx, &in, plat, out);
    if (rc != MPI_SUCCESS) return rc;
    int slot = m->count < XCHG_SELECT_MEMO ? m->count++ : m->next;
    m->next = (slot + 1) % XCHG_SELECT_MEMO;
    m->memo_bytes[slot] = in.bytes;
    m->memo_max_block[slot] = in.max_block_bytes;
    m->memo_peers[slot] = in.max_peers;
    m->memo_choice[slot] = *out;
    return MPI_SUCCESS;
}

/* XCHG_VERBOSE: rank 0 of the communicator says what was chosen and why,
 * whenever the automatic choice changes (with the model's runners-up). */
static void report_choice(xchg_context *ctx, const xchg_select_input *in, const char *source,
                          const xchg_choice *choice)
{
    if (ctx->rank != 0) return; /* the other ranks made the same choice */
    const char *verbose = getenv("XCHG_VERBOSE");
    xchg_select_memory *m = &ctx->selection.memory[in->coll];
    if (!verbose || !*verbose || strcmp(verbose, "0") == 0 ||
        (m->has_reported && xchg_choice_equal(&m->reported, choice)))
        return;
    m->has_reported = 1;
    m->reported = *choice;
    char name[256], line[1024];
    xchg_choice_format(choice, name, sizeof name);
    int len = snprintf(line, sizeof line,
                       "xchg: %s, P=%d on %d node(s) of %d..%d, %lld B per block: %s (%s)",
                       xchg_coll_name(in->coll), in->comm_size, in->num_nodes,
                       in->min_node_size, in->max_node_size, (long long)in->bytes, name, source);
    if (in->coll == XCHG_NEIGHBOR_ALLTOALLV && in->bytes >= 0) /* the agreed pattern */
        len += snprintf(line + len, sizeof line - (size_t)len, "; pattern %lld,%lld,%lld,%lld,%lld",
                        (long long)in->nbr.remote_msgs, (long long)in->nbr.local_msgs,
                        (long long)in->nbr.remote_bytes, (long long)in->nbr.local_bytes,
                        (long long)in->nbr.remote_nodes);
    if (xchg_select_standard_runs_as_library(in, source, choice))
        len += snprintf(line + len, sizeof line - (size_t)len,
                        "; runs as mpi (the MPI library's own: the same messages)");
    const xchg_platform *plat;
    int total = 0;
    if (strcmp(source, "the cost model") == 0 && xchg_select_platform(&plat) == MPI_SUCCESS &&
        xchg_model_rank(ctx, in, plat, NULL, 0, &total) == MPI_SUCCESS && total > 0) {
        xchg_candidate *all = malloc((size_t)total * sizeof *all);
        if (all && xchg_model_rank(ctx, in, plat, all, total, &total) == MPI_SUCCESS)
            for (int i = 0; i < total && i < 4 && len < (int)sizeof line - 1; i++) {
                xchg_choice_format(&all[i].choice, name, sizeof name);
                len += snprintf(line + len, sizeof line - (size_t)len, "%s%s %.2f us",
                                i ? ", " : "; predicted: ", name, all[i].seconds * 1e6);
            }
        free(all);
    }
    fprintf(stderr, "%s\n", line);
}

/* Everything after the override and the environment; *source: what decided. */
int xchg_select_automatic(xchg_context *ctx, const xchg_select_input *in, xchg_choice *out,
                          const char **source)
{
    const char *tuned;
    int rc = xchg_tuning_lookup(in, &tuned);
    if (rc != MPI_SUCCESS) return rc;
    if (tuned) { /* validated when the file was read; fitted to ctx here */
        *source = "a rule of the tuning file";
        rc = parse_memoized(ctx, in->coll, tuned, &ctx->selection.tuned[in->coll], out);
    } else if (in->bytes < 0) {
        *source = "the fixed rule";
        rc = parse_memoized(ctx, in->coll, fixed_rule(in->coll), &ctx->selection.rule[in->coll],
                            out);
    } else {
        *source = "the cost model";
        rc = model_choice(ctx, in, out);
    }
    if (rc == MPI_SUCCESS) report_choice(ctx, in, *source, out);
    return rc;
}

int xchg_select_explain(xchg_context *ctx, xchg_coll coll, int64_t bytes, xchg_choice *out,
                        const char **source)
{
    const char *why;
    int rc = xchg_select_explicit(ctx, coll, out, &why);
    if (rc == MPI_SUCCESS && !why) {
        xchg_select_input in = xchg_select_input_of(ctx, coll, bytes);
        rc = xchg_select_automatic(ctx, &in, out, &why);
        if (rc == MPI_SUCCESS) /* as the calls run it */
            rc = xchg_select_library_for_standard(ctx, &in, why, out);
    }
    if (source) *source = why;
    return rc;
}

int xchg_select_local(xchg_context *ctx, xchg_coll coll, int64_t bytes, xchg_choice *out)
{
    return xchg_select_explain(ctx, coll, bytes, out, NULL);
}

int xchg_select_agree_mode(agree_mode *mode)
{
    const char *env = getenv("XCHG_AGREE");
    *mode = AGREE_SAMPLED;
    if (!env || !*env || strcmp(env, "sampled") == 0) return MPI_SUCCESS;
    if (strcmp(env, "always") == 0) *mode = AGREE_ALWAYS;
    else if (strcmp(env, "never") == 0) *mode = AGREE_NEVER;
    else return xchg_error(MPI_ERR_ARG, "XCHG_AGREE=%s: expected sampled, always or never", env);
    return MPI_SUCCESS;
}

/* alltoallv, alltoallw: the busiest rank's mean block, the largest block
 * and the most non-empty peers of a rank, agreed into *in; and online
 * selection's measured times of earlier calls when some are pending
 * (online.h: the slowest rank's, in the same MPI_MAX; as many on every
 * rank). */
static int agree(xchg_context *ctx, const xchg_args *args, xchg_select_input *in)
{
    int64_t sent = 0, received = 0, largest = 0, to = 0, from = 0;
    for (int p = 0; p < args->size; p++) {
        if (p == args->rank) continue; /* the own block is a copy */
        sent += args->send.bytes[p];
        received += args->recv.bytes[p];
        to += args->send.bytes[p] > 0;
        from += args->recv.bytes[p] > 0;
        if (args->send.bytes[p] > largest) largest = args->send.bytes[p];
    }
    int64_t local[3 + XCHG_ONLINE_PENDING_MAX] = {sent > received ? sent : received, largest,
                                                  to > from ? to : from};
    int64_t global[3 + XCHG_ONLINE_PENDING_MAX];
    int times = xchg_online_pending_ns(ctx, args->coll, local + 3);
    int rc = xchg_allreduce(local, global, 3 + times, MPI_INT64_T, MPI_MAX, ctx->comm);
    if (rc != MPI_SUCCESS) return xchg_error(rc, "agreeing on the alltoallv's sizes");
    if ((rc = xchg_online_agreed(ctx, args->coll, global + 3)) != MPI_SUCCESS) return rc;
    in->bytes = global[0] / (args->size > 0 ? args->size : 1);
    in->max_block_bytes = global[1];
    in->max_peers = (int)global[2];
    return MPI_SUCCESS;
}

/* A nonblocking alltoallv, alltoallw or neighbourhood alltoallv with no
 * explicit choice: whether its choice reads the agreed sizes or pattern
 * (*sized): a tuning rule could match them, or the model decides
 * (XCHG_ONLINE=0). Else it runs `mpi` (online.h) and agrees nothing: the
 * agreement, a task's MPI_Iallreduce, made a nonblocking `mpi` alltoallv
 * 2.1-3.9x MPI's own at 16 B-32 KiB on 4 ranks here, and the model's
 * neighbourhood choice in a task 1.1-4.4x MPI's own
 * (docs/results/selection/online/nonblocking/ and nonblocking-neighbor/),
 * so a blocking call's learned winner is not looked up. The same on every
 * rank. */
static int nonblocking_reads_sizes(xchg_coll coll, int *sized)
{
    int on, rules, rc = xchg_online_enabled(&on);
    if (rc == MPI_SUCCESS) rc = xchg_tuning_has_rules(coll, &rules);
    *sized = rc != MPI_SUCCESS || !on || rules;
    return rc;
}

/* The same, with no explicit choice: `mpi`, unagreed (*chosen = 1), unless
 * the choice reads the agreed sizes (*chosen = 0). */
static int nonblocking_unagreed(const xchg_context *ctx, xchg_coll coll, xchg_choice *out,
                                int *chosen)
{
    int sized, rc = nonblocking_reads_sizes(coll, &sized);
    *chosen = rc == MPI_SUCCESS && !sized;
    return *chosen ? xchg_choice_library(ctx, coll, out) : rc;
}

int xchg_select_nonblocking_now(xchg_context *ctx, const xchg_args *args, xchg_choice *out,
                                int *chosen)
{
    const char *source;
    *chosen = 0;
    if (!xchg_coll_is_v(args->coll) && args->coll != XCHG_NEIGHBOR_ALLTOALLV) {
        *chosen = 1;
        return xchg_select_call(ctx, args, XCHG_SELECT_NONBLOCKING, out);
    }
    int rc = xchg_select_explicit(ctx, args->coll, out, &source);
    if (rc != MPI_SUCCESS || source) {
        *chosen = rc == MPI_SUCCESS;
        return rc;
    }
    return nonblocking_unagreed(ctx, args->coll, out, chosen);
}

int xchg_select_call(xchg_context *ctx, const xchg_args *args, xchg_select_form form,
                     xchg_choice *out)
{
    const char *source;
    int persistent = form != XCHG_SELECT_BLOCKING; /* chooses once, for the request */
    if (!persistent) /* what it learns may change a nonblocking call's choice */
        xchg_nonblocking_fast_disarm(ctx, args->coll);
    int rc = xchg_select_explicit(ctx, args->coll, out, &source);
    if (rc == MPI_SUCCESS && source && !persistent)
        xchg_online_note_explicit(ctx, args->coll, !ctx->has_override[args->coll]);
    if (rc != MPI_SUCCESS || source) return rc;
    if (form == XCHG_SELECT_NONBLOCKING && xchg_coll_is_v(args->coll)) {
        int chosen;
        rc = nonblocking_unagreed(ctx, args->coll, out, &chosen);
        if (rc != MPI_SUCCESS || chosen) return rc;
    }
    if (args->coll == XCHG_NEIGHBOR_ALLTOALLV) {
        int decided;
        agree_mode mode;
        rc = xchg_select_neighbor_unagreed(ctx, form, out, &decided, &mode);
        if (rc != MPI_SUCCESS || decided) return rc;
        return form == XCHG_SELECT_INIT ? xchg_select_neighbor_persistent(ctx, args, out)
                                        : xchg_select_neighbor_agreed(ctx, args, out);
    }
    xchg_select_input in = xchg_select_input_of(ctx, args->coll, args->uniform_bytes);
    in.persistent_init = form == XCHG_SELECT_INIT;
    if (args->coll == XCHG_ALLGATHERV) { /* the same recvcounts everywhere: no agreement */
        int64_t total = 0, largest = 0;
        for (int p = 0; p < args->size; p++) {
            total += args->recv.bytes[p];
            if (args->recv.bytes[p] > largest) largest = args->recv.bytes[p];
        }
        in.bytes = total / (args->size > 0 ? args->size : 1);
        in.max_block_bytes = largest;
    }
    if (!xchg_coll_is_v(args->coll) && !persistent) /* the last timed call's time */
        rc = xchg_online_agree_pending(ctx, args->coll);
    if (rc != MPI_SUCCESS) return rc;
    if (xchg_coll_is_v(args->coll)) { /* alltoallv, alltoallw: agreed sizes */
        xchg_select_memory *m = &ctx->selection.memory[args->coll];
        agree_mode mode;
        if ((rc = xchg_select_agree_mode(&mode)) != MPI_SUCCESS) return rc;
        if (persistent) {
            rc = agree(ctx, args, &in);
        } else if (mode != AGREE_NEVER) {
            unsigned long n = m->calls++;
            if (mode == AGREE_ALWAYS || xchg_select_sampled_agrees_at(n) ||
                xchg_online_pending(ctx, args->coll)) {
                rc = agree(ctx, args, &in);
                m->agreed = in;
            } else {
                in = m->agreed; /* call 0 always agrees: set */
            }
        }
        if (rc != MPI_SUCCESS) return rc;
    }
    rc = xchg_select_automatic(ctx, &in, out, &source);
    /* Online selection (online.h): a blocking call's signature, or what it
     * learned, or a persistent init's measurement. */
    int online = args->coll != XCHG_NEIGHBOR_ALLTOALLV;
    if (rc == MPI_SUCCESS && online && strcmp(source, "the cost model") == 0) {
        xchg_choice model = *out;
        rc = form == XCHG_SELECT_INIT ? xchg_online_init_choose(ctx, args, &in, out)
                                      : xchg_online_choose(ctx, &in, persistent, &model, out);
    } else if (rc == MPI_SUCCESS && online && !persistent) { /* a tuning rule, the fixed rule */
        xchg_online_note_automatic(ctx, args->coll);
    }
    return rc;
}
