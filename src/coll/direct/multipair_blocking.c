/*
 * Multi-pair blocking exchange: Algorithm 3 of
 *   E. Namugwanya, A. Bienz, D. Schafer, A. Skjellum. Collective-Optimized
 *   FFTs. arXiv preprint, 2023. DOI not given.
 *
 * The pairwise order, but `stride` pairs at a time: each step posts its
 * receive (from rank-i) and its send (to rank+i) together, and after every
 * `stride` steps all of them are waited for with MPI_Waitall. A late peer
 * stalls only its group of `stride` exchanges. Differs from scattered in
 * posting each pair's receive and send together rather than all receives of
 * the batch first.
 * Cost: ceil((P-1)/s) * alpha + (P-1) * beta * m, at most 2s messages in flight.
 */
#include "../../core/error.h"
#include "../../core/exchange.h"
#include "../../select/model.h"

enum { PARAM_STRIDE };

static int multipair_blocking(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    int rc = MPI_SUCCESS;
    int64_t stride_param = plan->choice.value[PARAM_STRIDE];
    int stride = stride_param < a->size ? (int)stride_param : a->size;
    size_t nbytes = 2 * (size_t)stride * sizeof(MPI_Request);
    MPI_Request *reqs = xchg_scratch_alloc(ctx, nbytes);
    if (!reqs) return xchg_error(MPI_ERR_NO_MEM, "out of memory");
    XCHG_CHECK(xchg_copy_self_block(a));
    for (int first = 1; first < a->size; first += stride) {
        int steps = a->size - first < stride ? a->size - first : stride;
        XCHG_CHECK(xchg_exchange_steps(a, first, steps, 1, 0, reqs));
    }
fail:
    xchg_scratch_free(ctx, reqs, nbytes);
    return rc;
}

/* The model: ceil((P-1)/stride) rounds. */
static double cost(const xchg_cost_case *c, const xchg_choice *choice, const xchg_platform *plat)
{
    return xchg_cost_direct(c, plat, xchg_cost_rounds(c->P - 1, choice->value[PARAM_STRIDE]));
}

XCHG_REGISTER_DIRECT(multipair_blocking, .name = "multipair_blocking",
                     .summary = "`stride` pairs posted together, Waitall per group",
                     .reference = "Namugwanya et al. 2023",
                     .run = multipair_blocking, .cost = cost, .num_params = 1,
                     .params = {[PARAM_STRIDE] = {.name = "stride", .kind = XCHG_PARAM_INT,
                                                  .def = 8, .min = 1, .max = XCHG_RANGE_MAXINT,
                                                  .help = "pairs per group (the paper tries 5, 10, 15)"}})
