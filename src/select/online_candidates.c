/*
 * Which candidates a signature of online selection tries (online.c's header
 * comment, "exploring"): up to MODEL_CANDIDATES of the cost model's ranking
 * (its choice, its best of the other kind, flat or composed, and its next
 * best with another prediction; on two ranks no composed one), up to
 * OUTSIDE_CANDIDATES it ranks badly or cannot rank, and `mpi`.
 */
#include <stdlib.h>

#include "../core/error.h"
#include "model.h"
#include "online_state.h"
#include "select.h"

/* Whether `c` predicts what an earlier candidate does (within 1%): to the
 * model the same schedule (scattered:batch=32 is nonblocking at P <= 32). */
static int same_prediction(const xchg_candidate *c, const double *chosen, int n)
{
    for (int i = 0; i < n; i++)
        if (c->seconds <= chosen[i] * 1.01 && c->seconds >= chosen[i] * 0.99) return 1;
    return 0;
}

/* Add the algorithm `name` of `coll` with its defaults, unless it has none,
 * cannot run here, or is a candidate already. */
static void add_outside(xchg_context *ctx, xchg_coll coll, const char *name, xchg_choice *cand,
                        int *ncand)
{
    xchg_choice choice;
    if (!xchg_registry_find(coll, name) || xchg_choice_parse(coll, name, &choice) ||
        xchg_choice_fit(ctx, &choice))
        return;
    for (int c = 0; c < *ncand; c++)
        if (cand[c].algo == choice.algo) return;
    cand[(*ncand)++] = choice;
}

/* The candidates of the signature `in`, in this order: the model's choice; the model's best
 * of the other kind (a composed, hierarchical algorithm when the choice is
 * flat, and the other way round; the model errs most between kinds) whose
 * prediction differs (locality_aware with regions of one rank is the direct
 * exchange); the model's next best with another prediction; then two the
 * model ranks badly or not at all, where they have won when measured:
 * `node_aware` with its defaults on more than one node of several ranks
 * (issue 26's SMPI grid: the best at two points where the model ranked it
 * 74th), `rma_direct` for alltoall and allgather blocks of 1 KiB or more
 * on one node (no cost model: one-sided costs are the MPI's RMA's; within a
 * node, in shared memory, it took 0.47-0.8x MPI's own on 16 real cores;
 * across nodes, unmeasured on a real network, SMPI's RMA made a call of it
 * 300x the direct exchange's, and one such call costs what hundreds of the
 * winner's do); then `mpi`. */
int xchg_online_pick_candidates(xchg_context *ctx, const xchg_select_input *in,
                                const xchg_choice *model, xchg_choice *cand, int *ncand)
{
    const xchg_platform *plat;
    int total = 0;
    int rc = xchg_select_platform(&plat);
    if (rc == MPI_SUCCESS) rc = xchg_model_rank(ctx, in, plat, NULL, 0, &total);
    if (rc != MPI_SUCCESS) return rc;
    xchg_candidate *all = malloc((size_t)(total > 0 ? total : 1) * sizeof *all);
    if (!all) return xchg_error(MPI_ERR_NO_MEM, "out of memory");
    rc = xchg_model_rank(ctx, in, plat, all, total, &total);
    double predicted[XCHG_ONLINE_CANDIDATES];
    *ncand = 0;
    predicted[*ncand] = total > 0 ? all[0].seconds : 0;
    cand[(*ncand)++] = *model;
    /* on two ranks a composed algorithm has nothing to combine (one peer):
     * its extra copies only (the FFT's 2-rank transposes of 4 MiB, this
     * project's 2-core machine: 3-8x the flat exchange, tried each time) */
    int composed_ok = in->comm_size > 2;
    for (int i = 0; rc == MPI_SUCCESS && i < total; i++) /* the other kind */
        if (all[i].choice.algo->is_flat != model->algo->is_flat &&
            (composed_ok || all[i].choice.algo->is_flat) &&
            !same_prediction(&all[i], predicted, *ncand)) {
            predicted[*ncand] = all[i].seconds;
            cand[(*ncand)++] = all[i].choice;
            break;
        }
    for (int i = 0; rc == MPI_SUCCESS && i < total; i++) /* another prediction */
        if ((composed_ok || all[i].choice.algo->is_flat) &&
            !same_prediction(&all[i], predicted, *ncand)) {
            int known = 0;
            for (int c = 0; c < *ncand; c++) known |= cand[c].algo == all[i].choice.algo;
            if (known) continue;
            cand[(*ncand)++] = all[i].choice;
            break;
        }
    free(all);
    if (rc == MPI_SUCCESS && in->num_nodes > 1 && in->max_node_size > 1)
        add_outside(ctx, in->coll, "node_aware", cand, ncand);
    if (rc == MPI_SUCCESS && in->bytes >= 1024 && in->num_nodes == 1)
        add_outside(ctx, in->coll, "rma_direct", cand, ncand);
    const xchg_algorithm *mpi = xchg_registry_find(in->coll, "mpi");
    if (rc == MPI_SUCCESS && mpi) {
        xchg_choice own = {.algo = mpi};
        int known = 0;
        for (int c = 0; c < *ncand; c++) known |= cand[c].algo == mpi;
        if (!known && xchg_choice_fit(ctx, &own) == MPI_SUCCESS) cand[(*ncand)++] = own;
    }
    return rc;
}
