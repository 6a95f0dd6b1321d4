/*
 * Multi-pair test exchange: Algorithm 5 of
 *   E. Namugwanya, A. Bienz, D. Schafer, A. Skjellum. Collective-Optimized
 *   FFTs. arXiv preprint, 2023. DOI not given.
 *
 * The sliding window of waitany, driven by polling MPI_Testany instead of
 * blocking in MPI_Waitany: the caller keeps control between completions
 * (the paper's motivation; here it only polls). Same schedule and cost as
 * waitany; differs in how the MPI library progresses (busy polling in the
 * library's test path rather than its wait path).
 */
#include "../../core/error.h"
#include "../../core/exchange.h"
#include "../../select/model.h"

enum { PARAM_WINDOW };

static int testany(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    int rc = MPI_SUCCESS;
    int64_t window = plan->choice.value[PARAM_WINDOW];
    XCHG_CHECK(xchg_copy_self_block(a));
    XCHG_CHECK(xchg_sliding_window(ctx, a, window < a->size ? (int)window : a->size, 1, 0));
fail:
    return rc;
}

/* The model: ceil((P-1)/window) rounds. */
static double cost(const xchg_cost_case *c, const xchg_choice *choice, const xchg_platform *plat)
{
    return xchg_cost_direct(c, plat, xchg_cost_rounds(c->P - 1, choice->value[PARAM_WINDOW]));
}

XCHG_REGISTER_DIRECT(testany, .name = "testany",
                     .summary = "sliding window of `window` exchanges driven by MPI_Testany",
                     .reference = "Namugwanya et al. 2023",
                     .run = testany, .cost = cost, .num_params = 1,
                     .params = {[PARAM_WINDOW] = {.name = "window", .kind = XCHG_PARAM_INT,
                                                  .def = 8, .min = 1, .max = XCHG_RANGE_MAXINT,
                                                  .help = "sends and receives in flight"}})
