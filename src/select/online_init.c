/*
 * Online selection at a persistent init (online.h): a persistent request
 * chosen by the cost model measures its candidates at init and keeps the
 * fastest. The neighbourhood alltoallv (MPI_Neighbor_alltoallv_init,
 * XCHG_Neighbor_alltoallv_init, _topo_init and their _ext forms) and the
 * dense collectives (MPI_Alltoall_init, _Alltoallv_, _Alltoallw_,
 * _Allgather_, _Allgatherv_init and XCHG_'s) whose signature has no
 * learned winner of blocking calls yet (a learned one is taken as it is).
 *
 * Why at init. A persistent request chooses once (src/persistent.c). Its
 * starts cannot agree on a time without blocking on the other ranks, and
 * their time from start to completion is the program's, not the
 * algorithm's (docs/design.md). Init may block (MPI-4.1: persistent
 * collective initialization is nonlocal); it already agrees the sizes
 * (alltoallv, alltoallw: select.c) or the pattern (neighbor_inputs.c) and
 * builds the plan, often with sub-communicators. And a request is made to
 * be started many times (a solver's halo exchange: thousands of starts), so
 * a few dozen exchanges at init are worth a better algorithm for all of
 * them. A nonblocking call is a request started once: it never measures
 * (it must not block), it takes a learned single-round winner or `mpi`
 * (select.c). Blocking neighbourhood calls keep the model (their plans are
 * cached per pattern, chosen before the pattern is compared: online.h).
 *
 * Candidates: dense, those a blocking call's signature explores
 * (online_candidates.c: the model's choice, its best of the other kind and
 * its next best with another prediction, `node_aware` on several nodes,
 * `rma_direct` on one node from 1 KiB, and `mpi`); the neighbourhood
 * collective: the model's choice, the model's best of the other algorithm
 * (`standard` or `locality`, whichever the choice is not), and `mpi`, the
 * MPI library's own, where the communicator has a distributed graph (its
 * init checks that the call's lists are the graph's). A candidate whose
 * plan fails to build on any rank is left out on every rank.
 *
 * Measuring and deciding (online_init_race.c): each candidate's plan is
 * built for the call on scratch buffers of the call's extents, zeroed
 * (scratch_args): the user's buffers are not touched (a receive buffer
 * must not change before a start, and the send buffer need not hold data
 * yet); each is run as a start runs it, a few dozen times, the slowest
 * rank's times agreed, and the incumbent rule decides.
 *
 * Remembered per communicator by the call's agreed inputs (bucketed, as
 * online.c's signatures; the neighbourhood collective's pattern): a later
 * init of the same inputs takes the winner without measuring (a program
 * that builds its requests again every solve measures once). Not written by
 * XCHG_TUNING_OUT, and not a blocking call's decision: a blocking call
 * measures blocking runs, a start's run is another (`mpi` posts the
 * library's nonblocking call); a tuning rule of the neighbourhood
 * collective matches the mean block only.
 *
 * Cost, once per call's inputs and communicator: the candidates' plans (up
 * to 6 dense, 3 neighbourhood), the winner's again for the request (the
 * measured ones are built on the scratch buffers), at most 1 + ROUNDS x
 * BURST = 21 runs a candidate (a dropped one 9), 1 + ROUNDS barriers a
 * candidate and five small allreduces: in xchg-amg 120-190 starts of the
 * winner per level, barriers and plan builds included
 * (docs/results/selection/online/neighbor-init/). Memory: the scratch
 * buffers, the call's send and receive extents; a call whose extents exceed
 * SCRATCH_MAX is not measured (the model's choice).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/error.h"
#include "../core/topology.h"
#include "model.h"
#include "online.h"
#include "online_state.h"
#include "select.h"

#define INIT_CANDIDATES XCHG_ONLINE_CANDIDATES
#define SCRATCH_MAX ((int64_t)64 << 20) /* bytes of both scratch buffers */

/* ---- Scratch buffers --------------------------------------------------------- */

/* The bytes side `s` spans over its n blocks, relative to s->buf: [*lo, *hi). */
static void side_span(const xchg_side *s, int n, int64_t *lo, int64_t *hi)
{
    *lo = *hi = 0;
    int any = 0;
    for (int i = 0; i < n; i++) {
        const xchg_type_info *t = xchg_side_type(s, i); /* alltoallw: each block's */
        if (s->counts[i] == 0) continue;
        int64_t first = s->offsets[i] + t->true_lb;
        int64_t last = first + (int64_t)(s->counts[i] - 1) * t->extent;
        int64_t a = first < last ? first : last, b = (first > last ? first : last) + t->true_extent;
        if (!any || a < *lo) *lo = a;
        if (!any || b > *hi) *hi = b;
        any = 1;
    }
}

/* args with its buffers replaced by zeroed scratch of the same extents (in
 * *mem, one allocation); 0 when they exceed SCRATCH_MAX or memory lacks. */
static int scratch_args(const xchg_args *args, xchg_args *scratch, char **mem)
{
    int64_t slo, shi, rlo, rhi;
    int dense = xchg_coll_is_dense(args->coll);
    side_span(&args->send, dense ? args->size : args->neighbor.outdegree, &slo, &shi);
    side_span(&args->recv, dense ? args->size : args->neighbor.indegree, &rlo, &rhi);
    int64_t sbytes = shi - slo, rbytes = rhi - rlo;
    *mem = NULL;
    if (sbytes + rbytes > SCRATCH_MAX) return 0;
    if (!(*mem = calloc(1, (size_t)(sbytes + rbytes) + 1))) return 0;
    *scratch = *args; /* shares the per-neighbour arrays: never freed through it */
    scratch->send.buf = *mem - slo;
    scratch->recv.buf = *mem + sbytes - rlo;
    return 1;
}

/* ---- Candidates ---------------------------------------------------------------- */

/* The neighbourhood collective's: the model's choice, its best of the
 * other algorithm, and `mpi` where the communicator has a distributed
 * graph. */
static int neighbor_candidates(xchg_context *ctx, const xchg_select_input *in,
                               const xchg_choice *model, xchg_choice *cand, int *ncand)
{
    const xchg_platform *plat;
    int total = 0, kind = MPI_UNDEFINED;
    cand[0] = *model;
    *ncand = 1;
    int rc = xchg_select_platform(&plat);
    if (rc == MPI_SUCCESS) rc = xchg_model_rank(ctx, in, plat, NULL, 0, &total);
    if (rc != MPI_SUCCESS) return rc;
    xchg_candidate *all = malloc((size_t)(total > 0 ? total : 1) * sizeof *all);
    if (!all) return xchg_error(MPI_ERR_NO_MEM, "out of memory for online selection at init");
    rc = xchg_model_rank(ctx, in, plat, all, total, &total);
    for (int i = 0; rc == MPI_SUCCESS && i < total; i++)
        if (all[i].choice.algo != model->algo) { /* ranked best first */
            cand[(*ncand)++] = all[i].choice;
            break;
        }
    free(all);
    if (rc == MPI_SUCCESS) rc = xchg_topology_kind(ctx->comm, &kind);
    xchg_choice mpi;
    if (rc == MPI_SUCCESS && kind == MPI_DIST_GRAPH && model->algo->name &&
        strcmp(model->algo->name, "mpi") != 0 &&
        xchg_choice_library(ctx, XCHG_NEIGHBOR_ALLTOALLV, &mpi) == MPI_SUCCESS)
        cand[(*ncand)++] = mpi;
    return rc;
}

/* The key of a measurement: the collective and its agreed inputs, sizes
 * bucketed (the neighbourhood collective's nbr, zero for the others). */
static xchg_select_input bucketed(const xchg_select_input *in)
{
    xchg_select_input b = *in;
    b.bytes = xchg_select_size_bucket(b.bytes);
    b.max_block_bytes = xchg_select_size_bucket(b.max_block_bytes);
    b.nbr.remote_bytes = xchg_select_size_bucket(b.nbr.remote_bytes);
    b.nbr.local_bytes = xchg_select_size_bucket(b.nbr.local_bytes);
    return b;
}

/* The candidates for the call whose inputs are `in` (agreed) and whose
 * automatic choice is `model`. */
static int candidates(xchg_context *ctx, const xchg_select_input *in, const xchg_choice *model,
                      xchg_choice *cand, int *ncand)
{
    if (in->coll == XCHG_NEIGHBOR_ALLTOALLV)
        return neighbor_candidates(ctx, in, model, cand, ncand);
    xchg_select_input signature = bucketed(in); /* a blocking call's signature's */
    return xchg_online_pick_candidates(ctx, &signature, model, cand, ncand);
}

/* ---- Remembered winners ---------------------------------------------------------- */

static int same_inputs(const xchg_select_input *a, const xchg_select_input *b)
{
    return a->coll == b->coll && a->bytes == b->bytes && a->max_block_bytes == b->max_block_bytes &&
           a->max_peers == b->max_peers && a->nbr.remote_msgs == b->nbr.remote_msgs &&
           a->nbr.local_msgs == b->nbr.local_msgs && a->nbr.remote_bytes == b->nbr.remote_bytes &&
           a->nbr.local_bytes == b->nbr.local_bytes && a->nbr.remote_nodes == b->nbr.remote_nodes;
}

static const xchg_choice *remembered(const xchg_online *o, const xchg_select_input *key)
{
    for (int i = 0; i < o->init_count; i++)
        if (same_inputs(&o->init_in[i], key)) return &o->init_winner[i];
    return NULL;
}

static void remember(xchg_online *o, const xchg_select_input *key, const xchg_choice *winner)
{
    int slot = o->init_count < XCHG_ONLINE_INIT_PATTERNS ? o->init_count++ : o->init_next;
    o->init_next = (slot + 1) % XCHG_ONLINE_INIT_PATTERNS;
    o->init_in[slot] = *key;
    o->init_winner[slot] = *winner;
}

/* ---- Entry ----------------------------------------------------------------------- */

int xchg_online_init_choose(xchg_context *ctx, const xchg_args *args, const xchg_select_input *in,
                            xchg_choice *out)
{
    int on, rc = xchg_online_enabled(&on);
    xchg_online *o = rc == MPI_SUCCESS && on ? xchg_online_state(ctx) : NULL;
    if (!o || in->bytes < 0 || args->on_device) return rc;
    if (xchg_online_learned(ctx, in, out)) return MPI_SUCCESS; /* by blocking calls */
    xchg_select_input key = bucketed(in);
    const xchg_choice *known = remembered(o, &key);
    if (known) {
        *out = *known;
        return MPI_SUCCESS;
    }
    xchg_choice cand[INIT_CANDIDATES];
    int ncand = 0;
    xchg_args scratch;
    char *mem;
    /* every rank agrees on the extents' limit only through its own sizes:
     * one allreduce makes the decision to measure common */
    int local_ok = scratch_args(args, &scratch, &mem), all_ok = 0;
    rc = xchg_allreduce(&local_ok, &all_ok, 1, MPI_INT, MPI_MIN, ctx->comm);
    if (rc == MPI_SUCCESS && all_ok) rc = candidates(ctx, in, out, cand, &ncand);
    int winner = -1;
    if (rc == MPI_SUCCESS && all_ok && ncand > 1)
        rc = xchg_online_init_race(ctx, &scratch, in, cand, ncand, &winner);
    if (winner >= 0) {
        *out = cand[winner];
        remember(o, &key, out);
    }
    free(mem);
    return rc;
}
