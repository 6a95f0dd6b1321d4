/*
 * What automatic selection decides from. Every field is the same on every
 * rank of the communicator (MPI requires that all ranks run the same
 * algorithm), so the choice made from it is too.
 */
#ifndef XCHG_SELECT_INPUTS_H
#define XCHG_SELECT_INPUTS_H

#include <stdint.h>
#include "xchg.h"

typedef struct xchg_select_input {
    xchg_coll coll;
    int comm_size;          /* P */
    int num_nodes;          /* nodes of the communicator (virtual ones included) */
    int min_node_size;      /* ranks on the smallest and the largest node */
    int max_node_size;
    int64_t bytes;          /* alltoall, allgather: bytes per block (the type
                               signature's size). alltoallv: the mean block,
                               total bytes over all ranks / P^2, when agreed;
                               -1 when unknown (no agreement) */
    int64_t max_block_bytes; /* alltoallv: the largest block of any rank, when
                                agreed; otherwise = bytes */
    int max_peers;          /* alltoallv: the most ranks that one rank sends
                               non-empty blocks to or receives them from, when
                               agreed (sparse exchanges); otherwise P-1 */
} xchg_select_input;

/* Platform constants of the cost model (model.h): seconds and seconds per
 * byte. "local" is between ranks of one node, "remote" between nodes. */
typedef struct xchg_platform {
    double alpha_local, beta_local;    /* latency, inverse bandwidth on a node */
    double alpha_remote, beta_remote;  /* the same between nodes */
    double overhead;                   /* CPU cost of posting one message */
    double beta_copy;                  /* inverse bandwidth of a local memcpy */
} xchg_platform;

#endif
