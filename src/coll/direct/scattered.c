/*
 * Scattered exchange (MPICH MPIR_Alltoallv_intra_scattered), described in
 *   R. Thakur, R. Rabenseifner, W. Gropp. Optimization of Collective
 *   Communication Operations in MPICH. International Journal of High
 *   Performance Computing Applications 19(1):49-66, 2005.
 *   DOI 10.1177/1094342005051521
 *
 * The spread-out order (step i: receive from rank-i, send to rank+i) cut into
 * batches of `batch` steps; each batch posts its receives, then its sends,
 * then waits for all of them before the next batch starts. batch=1 is close
 * to pairwise, batch=P to nonblocking. MPICH's default batch is 32.
 * Cost: ceil((P-1)/b) * alpha + (P-1) * beta * m, with at most 2b messages
 * in flight per rank.
 */
#include "../../core/error.h"
#include "../../core/exchange.h"
#include "../../select/model.h"

enum { PARAM_BATCH };

static int scattered(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    int rc = MPI_SUCCESS;
    int64_t batch_param = plan->choice.value[PARAM_BATCH];
    int batch = batch_param < a->size ? (int)batch_param : a->size; /* never more than P-1 steps */
    size_t nbytes = 2 * (size_t)batch * sizeof(MPI_Request);
    MPI_Request *reqs = xchg_scratch_alloc(ctx, nbytes);
    if (!reqs) return xchg_error(MPI_ERR_NO_MEM, "out of memory");
    XCHG_CHECK(xchg_copy_self_block(a));
    for (int first = 1; first < a->size; first += batch) {
        int steps = a->size - first < batch ? a->size - first : batch;
        XCHG_CHECK(xchg_exchange_steps(a, first, steps, 0, 0, reqs));
    }
fail:
    xchg_scratch_free(ctx, reqs, nbytes);
    return rc;
}

/* The model: ceil((P-1)/batch) rounds. */
static double cost(const xchg_cost_case *c, const xchg_choice *choice, const xchg_platform *plat)
{
    return xchg_cost_direct(c, plat, xchg_cost_rounds(c->P - 1, choice->value[PARAM_BATCH]));
}

XCHG_REGISTER_DIRECT(scattered, .name = "scattered",
                     .summary = "batches of `batch` exchanges, Waitall per batch (MPICH)",
                     .reference = "Thakur et al. 2005",
                     .run = scattered, .cost = cost, .num_params = 1,
                     .params = {[PARAM_BATCH] = {.name = "batch", .kind = XCHG_PARAM_INT,
                                                 .def = 32, .min = 1, .max = XCHG_RANGE_MAXINT,
                                                 .help = "exchanges in flight per batch"}})
