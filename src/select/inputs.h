/*
 * What automatic selection decides from. Every field is the same on every
 * rank of the communicator (MPI requires that all ranks run the same
 * algorithm), so the choice made from it is too.
 */
#ifndef XCHG_SELECT_INPUTS_H
#define XCHG_SELECT_INPUTS_H

#include <stdint.h>
#include "xchg.h"

/* neighbor_alltoallv: what the cost models of standard and locality need
 * (src/coll/neighbor/model.c), each the largest over the ranks (one
 * MPI_Allreduce(MAX) agrees them: src/select/neighbor_inputs.c). Per rank,
 * the larger of what it sends and what it receives; self messages and
 * empty blocks are not counted (neither algorithm sends them). Messages
 * and bytes split by node: standard sends every block as one message, so
 * its time is the busiest rank's message count and bytes; locality keeps
 * the on-node blocks direct and aggregates the off-node ones per pair of
 * nodes, so it needs the off-node part and the number of other nodes a rank
 * exchanges with (its s and r messages, and with the node size the node
 * pairs). Maxima and not per-node sums, so that one reduction of one
 * operation suffices; a node's off-node bytes are costed as ppn times the
 * busiest rank's (an upper bound, the same for both algorithms). */
typedef struct xchg_neighbor_input {
    int64_t remote_msgs, local_msgs;   /* non-empty blocks to/from other nodes, own node */
    int64_t remote_bytes, local_bytes; /* their bytes */
    int64_t remote_nodes;              /* other nodes it sends to or receives from */
} xchg_neighbor_input;

typedef struct xchg_select_input {
    xchg_coll coll;
    int comm_size;          /* P */
    int num_nodes;          /* nodes of the communicator (virtual ones included) */
    int min_node_size;      /* ranks on the smallest and the largest node */
    int max_node_size;
    int64_t bytes;          /* alltoall, allgather: bytes per block (the type
                               signature's size). alltoallv: the mean block,
                               the busiest rank's bytes sent or received (its
                               own block left out) / P, when agreed;
                               -1 when unknown (no agreement).
                               allgatherv: the mean contribution (total / P),
                               known on every rank without an agreement:
                               every rank passes the same recvcounts */
    int64_t max_block_bytes; /* alltoallv: the largest block of any rank, when
                                agreed; allgatherv: the largest contribution
                                (known everywhere); otherwise = bytes */
    int max_peers;          /* alltoallv: the most ranks that one rank sends
                               non-empty blocks to or receives them from, when
                               agreed (sparse exchanges); otherwise P-1 */
    xchg_neighbor_input nbr; /* neighbor_alltoallv, when agreed (then bytes is the
                                mean non-empty block, >= 0; -1 without agreement) */
    int persistent_init;     /* a persistent request's init: tuning rules of the
                                form "persistent" match too (tuning.c) */
} xchg_select_input;

/* Platform constants of the cost model (model.h): seconds and seconds per
 * byte. "local" is between ranks of one node, "remote" between nodes. */
typedef struct xchg_platform {
    double alpha_local, beta_local;    /* latency, inverse bandwidth on a node */
    double alpha_remote, beta_remote;  /* the same between nodes */
    double overhead;                   /* CPU cost of posting one message */
    double beta_copy;                  /* inverse bandwidth of a local memcpy */
    double overhead_per_byte;          /* CPU cost per byte of an eager message,
                                          send and receive together (the copy
                                          through the eager buffers) */
    double eager_limit;                /* messages up to this many bytes are eager */
    double beta_node;                  /* inverse bandwidth of all copies inside one
                                          node together (its memory system); 0: no
                                          limit beyond each rank's own */
} xchg_platform;

#endif
