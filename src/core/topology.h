/* Topology as data: the node and the rank on the node of every rank. */
#ifndef XCHG_CORE_TOPOLOGY_H
#define XCHG_CORE_TOPOLOGY_H

#include "pmpi.h"

typedef struct xchg_topology {
    int size;              /* ranks in the communicator */
    int num_nodes;         /* nodes, numbered 0..num_nodes-1 */
    int *node_of_rank;     /* [size] node of each rank */
    int *local_rank_of;    /* [size] rank of each rank on its node */
    int *node_size;        /* [num_nodes] ranks on each node */
    int *node_first;       /* [num_nodes+1] offsets into ranks_by_node */
    int *ranks_by_node;    /* [size] the ranks of node n, by local rank, at
                              ranks_by_node[node_first[n] .. node_first[n+1]) */
    int is_virtual;        /* 1 if built from XCHG_VIRTUAL_NODES */
    int is_block;          /* 1 if every node holds consecutive ranks in order */
} xchg_topology;

/* Build the topology of `comm` (collective). Uses XCHG_VIRTUAL_NODES and
 * XCHG_VIRTUAL_PLACEMENT when set, MPI_COMM_TYPE_SHARED otherwise; with
 * `flat`, every rank is on one node and nothing is communicated. */
int xchg_topology_build(MPI_Comm comm, int flat, xchg_topology *topo);
void xchg_topology_free(xchg_topology *topo);

/* MPI_Topo_test's answer for comm (MPI_GRAPH, MPI_CART, MPI_DIST_GRAPH or
 * MPI_UNDEFINED). SimGrid SMPI implements neither graph communicators nor
 * MPI_Topo_test (it aborts): there every communicator is MPI_UNDEFINED. */
int xchg_topology_kind(MPI_Comm comm, int *kind);

/* The regions of t: its nodes cut by key_of_rank (ranks of one node with
 * equal keys form one region), numbered by node, then by the lowest local
 * rank of each region; local ranks in a region keep their order on the node.
 * Local (no messages). Free with xchg_topology_free. */
int xchg_topology_regions(const xchg_topology *t, const int *key_of_rank, xchg_topology *out);

/* The rank with local rank `local` on node `node`. */
static inline int xchg_rank_on_node(const xchg_topology *t, int node, int local)
{
    return t->ranks_by_node[t->node_first[node] + local];
}

/* Parse a virtual-node specification into node sizes for `size` ranks.
 * Exposed for xchg-info and the tests. Returns MPI_SUCCESS or MPI_ERR_ARG. */
int xchg_virtual_layout(const char *nodes_spec, const char *placement, int size,
                        int *node_of_rank);

#endif
