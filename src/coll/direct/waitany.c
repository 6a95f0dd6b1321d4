/*
 * Multi-pair non-blocking exchange: Algorithm 4 of
 *   E. Namugwanya, A. Bienz, D. Schafer, A. Skjellum. Collective-Optimized
 *   FFTs. arXiv preprint, 2023. DOI not given.
 *
 * A sliding window: `window` receives (from rank-1, rank-2, ...) and
 * `window` sends (to rank+1, rank+2, ...) are in flight; MPI_Waitany reports
 * one that completed and the next exchange of the same kind takes its slot.
 * Sends and receives advance independently, so a late peer holds only one
 * slot while the others keep moving. (The loop itself is xchg_sliding_window
 * in core/exchange.c, shared with testany.)
 * Cost: about (P-1)/w * alpha + (P-1) * beta * m, at most 2w messages in flight.
 */
#include "../../core/error.h"
#include "../../core/exchange.h"
#include "../../select/model.h"

enum { PARAM_WINDOW };

static int waitany(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    int rc = MPI_SUCCESS;
    int64_t window = plan->choice.value[PARAM_WINDOW];
    XCHG_CHECK(xchg_copy_self_block(a));
    XCHG_CHECK(xchg_sliding_window(ctx, a, window < a->size ? (int)window : a->size, 0, 0));
fail:
    return rc;
}

/* The model: ceil((P-1)/window) rounds. */
static double cost(const xchg_cost_case *c, const xchg_choice *choice, const xchg_platform *plat)
{
    return xchg_cost_direct(c, plat, xchg_cost_rounds(c->P - 1, choice->value[PARAM_WINDOW]));
}

XCHG_REGISTER_DIRECT(waitany, .name = "waitany",
                     .summary = "sliding window of `window` exchanges driven by MPI_Waitany",
                     .reference = "Namugwanya et al. 2023",
                     .run = waitany, .cost = cost, .num_params = 1,
                     .params = {[PARAM_WINDOW] = {.name = "window", .kind = XCHG_PARAM_INT,
                                                  .def = 8, .min = 1, .max = XCHG_RANGE_MAXINT,
                                                  .help = "sends and receives in flight (the paper's stride)"}})
