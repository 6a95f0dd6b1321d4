/* The neighbourhood alltoallv's selection inputs (neighbor_inputs.c). */
#ifndef XCHG_SELECT_NEIGHBOR_INPUTS_H
#define XCHG_SELECT_NEIGHBOR_INPUTS_H

#include "../core/args.h"
#include "../core/context.h"
#include "inputs.h"

/* in->nbr from every rank's pattern `args` (collective on ctx->comm: one
 * MPI_Allreduce), and the summary fields (below). */
int xchg_neighbor_input_agree(xchg_context *ctx, const xchg_args *args, xchg_select_input *in);

/* in->bytes (and max_block_bytes): the busiest rank's bytes per message,
 * (remote + local bytes) / (remote + local messages), which marks the
 * inputs as agreed (>= 0) and is what a tuning rule's `bytes` matches;
 * in->max_peers: its messages, at most P-1. Local. */
void xchg_neighbor_input_summarize(xchg_select_input *in);

#endif
