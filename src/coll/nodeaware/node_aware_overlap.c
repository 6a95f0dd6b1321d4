/*
 * Overlapped node-aware all-to-all: the node-aware exchange (Algorithm 4,
 * Figure 4, of Kinkead et al., SC Workshops '25, DOI 10.1145/3731599.3767393)
 * with its two phases overlapped: every rank sends one message per other
 * node, and the blocks of each arriving message are forwarded inside the
 * node while the others are still in flight (in `batches` batches, or each
 * message alone); blocks between ranks of one node go directly. The
 * schedule, its tags, why the buffers are safe and its cost: overlap.c,
 * where a unit is a node.
 * Cost: max(alpha + (N-1) Q^2 m beta_remote, alpha + N m beta_local)
 * + the forwarding of the last batch; per rank N-1 messages to other nodes
 * (alltoallv: and as many headers), b forwarded (b = N-1 with
 * batches=each) and Q-1 direct ones.
 */
#include "overlap.h"

enum { PARAM_BATCHES };

static xchg_overlap_spec spec_of(const xchg_choice *choice)
{
    return (xchg_overlap_spec){.groups = 1, .batches = choice->value[PARAM_BATCHES]};
}

#define PARAMS {[PARAM_BATCHES] = XCHG_OVERLAP_PARAM_BATCHES}
XCHG_REGISTER_OVERLAP(node_aware_overlap, spec_of,
                      "node-aware, forwarding within the node while inter-node messages fly",
                      1, PARAMS, .reference = "Kinkead et al. 2025")
