/*
 * Topology discovery. Real nodes come from MPI_Comm_split_type(SHARED): the
 * node of a rank is numbered by the lowest rank on it, so numbering does not
 * depend on placement. For testing on one machine, XCHG_VIRTUAL_NODES splits
 * the ranks into virtual nodes:
 *   XCHG_VIRTUAL_NODES=4       nodes of 4 ranks; the last may be smaller
 *   XCHG_VIRTUAL_NODES=3,2,4   explicit node sizes, repeated until every rank
 *                              has a node (the last may be cut short)
 *   XCHG_VIRTUAL_PLACEMENT=block   node n holds consecutive ranks (default)
 *   XCHG_VIRTUAL_PLACEMENT=cyclic  ranks are dealt round-robin: rank r goes to
 *                              node r mod N, skipping nodes that are full
 * Within a node, local ranks follow the order of the ranks.
 */
#include "topology.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "wait.h"

static int parse_sizes(const char *spec, int size, int **sizes_out, int *num_out)
{
    /* Count and validate the comma-separated list once. */
    int *pattern = NULL, npattern = 0, cap = 8, rc = MPI_SUCCESS;
    int *sizes = NULL;
    XCHG_ALLOC(pattern, cap * sizeof(int));
    for (const char *p = spec; *p;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v <= 0 || v > 1 << 24 || (*end != ',' && *end != '\0')) {
            rc = xchg_error(MPI_ERR_ARG,
                            "XCHG_VIRTUAL_NODES='%s': expected a node size (e.g. 4) or a "
                            "comma-separated list of positive sizes (e.g. 3,2,4)", spec);
            goto fail;
        }
        if (npattern == cap) {
            int *grown = realloc(pattern, 2 * cap * sizeof(int));
            if (!grown) { rc = xchg_error(MPI_ERR_NO_MEM, "out of memory"); goto fail; }
            pattern = grown;
            cap *= 2;
        }
        pattern[npattern++] = (int)v;
        p = *end ? end + 1 : end;
    }
    if (npattern == 0) {
        rc = xchg_error(MPI_ERR_ARG, "XCHG_VIRTUAL_NODES is empty");
        goto fail;
    }
    /* Repeat the pattern until all ranks are covered; cut the last node. */
    XCHG_ALLOC(sizes, (size_t)size * sizeof(int) + sizeof(int));
    int num = 0, assigned = 0;
    while (assigned < size) {
        int s = pattern[num % npattern];
        if (s > size - assigned) s = size - assigned;
        sizes[num++] = s;
        assigned += s;
    }
    free(pattern);
    *sizes_out = sizes;
    *num_out = num;
    return MPI_SUCCESS;
fail:
    free(pattern);
    free(sizes);
    return rc;
}

int xchg_virtual_layout(const char *spec, const char *placement, int size, int *node_of_rank)
{
    int *sizes = NULL, num = 0, rc;
    int cyclic = 0;
    if (placement && *placement) {
        if (strcmp(placement, "cyclic") == 0) cyclic = 1;
        else if (strcmp(placement, "block") != 0)
            return xchg_error(MPI_ERR_ARG,
                              "XCHG_VIRTUAL_PLACEMENT='%s': valid choices are block, cyclic",
                              placement);
    }
    rc = parse_sizes(spec, size, &sizes, &num);
    if (rc != MPI_SUCCESS) return rc;
    if (!cyclic) {
        int r = 0;
        for (int n = 0; n < num; n++)
            for (int i = 0; i < sizes[n]; i++) node_of_rank[r++] = n;
    } else {
        /* Deal ranks round-robin over the nodes that still have room. */
        int *room = sizes; /* consumed in place */
        int node = 0;
        for (int r = 0; r < size; r++) {
            while (room[node] == 0) node = (node + 1) % num;
            node_of_rank[r] = node;
            room[node]--;
            node = (node + 1) % num;
        }
    }
    free(sizes);
    return MPI_SUCCESS;
}

/* Inside a task (the first call on a communicator is a nonblocking one),
 * where MPI_Comm_split_type would block: each rank's lowest rank with the
 * same processor name (a 64-bit FNV-1a hash of MPI_Get_processor_name,
 * gathered with a nonblocking allgather). Processor names and shared-memory
 * domains agree on every MPI we know; XCHG_VIRTUAL_NODES overrides both. */
static int lowest_by_name(MPI_Comm comm, int rank, int size, int *lowest_of_rank)
{
    int rc, len = 0;
    char name[MPI_MAX_PROCESSOR_NAME + 1] = {0};
    uint64_t hash = 1469598103934665603ULL, *hashes = NULL;
    XCHG_CHECK(MPI_Get_processor_name(name, &len));
    for (int i = 0; i < len; i++) hash = (hash ^ (unsigned char)name[i]) * 1099511628211ULL;
    XCHG_ALLOC(hashes, (size_t)size * sizeof *hashes);
    XCHG_CHECK(xchg_allgather(&hash, 1, MPI_UINT64_T, hashes, 1, MPI_UINT64_T, comm));
    for (int r = 0; r < size; r++) {
        lowest_of_rank[r] = r;
        for (int q = 0; q < r; q++)
            if (hashes[q] == hashes[r]) {
                lowest_of_rank[r] = q;
                break;
            }
    }
    (void)rank;
fail:
    free(hashes);
    return rc;
}

/* Each rank's lowest rank in its MPI_COMM_TYPE_SHARED domain. */
static int lowest_by_shared(MPI_Comm comm, int rank, int *lowest_of_rank)
{
    MPI_Comm shared = MPI_COMM_NULL;
    int rc, lowest = rank;
    XCHG_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared));
    XCHG_CHECK(MPI_Allreduce(&rank, &lowest, 1, MPI_INT, MPI_MIN, shared));
    XCHG_CHECK(MPI_Allgather(&lowest, 1, MPI_INT, lowest_of_rank, 1, MPI_INT, comm));
fail:
    if (shared != MPI_COMM_NULL) MPI_Comm_free(&shared);
    return rc;
}

/* node_of_rank of the real machine, nodes numbered by their lowest rank. */
static int real_layout(MPI_Comm comm, int rank, int *node_of_rank)
{
    int rc, size;
    int *lowest_of_rank = NULL;
    XCHG_CHECK(MPI_Comm_size(comm, &size));
    XCHG_ALLOC(lowest_of_rank, (size_t)size * sizeof(int));
    if (xchg_task_current()) XCHG_CHECK(lowest_by_name(comm, rank, size, lowest_of_rank));
    else XCHG_CHECK(lowest_by_shared(comm, rank, lowest_of_rank));
    /* Node ids in order of each node's lowest rank. */
    int next = 0;
    for (int r = 0; r < size; r++) node_of_rank[r] = -1;
    for (int r = 0; r < size; r++) {
        if (lowest_of_rank[r] == r) {
            for (int q = r; q < size; q++)
                if (lowest_of_rank[q] == r) node_of_rank[q] = next;
            next++;
        }
    }
fail:
    free(lowest_of_rank);
    return rc;
}

/* Fill the derived arrays of t from t->node_of_rank (t->size set). */
static int index_nodes(xchg_topology *t)
{
    int rc = MPI_SUCCESS, size = t->size;
    t->num_nodes = 0;
    for (int r = 0; r < size; r++)
        if (t->node_of_rank[r] + 1 > t->num_nodes) t->num_nodes = t->node_of_rank[r] + 1;
    XCHG_ALLOC(t->node_size, (size_t)t->num_nodes * sizeof(int));
    XCHG_ALLOC(t->node_first, (size_t)(t->num_nodes + 1) * sizeof(int));
    memset(t->node_size, 0, (size_t)t->num_nodes * sizeof(int));
    for (int r = 0; r < size; r++) t->local_rank_of[r] = t->node_size[t->node_of_rank[r]]++;
    t->node_first[0] = 0;
    for (int n = 0; n < t->num_nodes; n++) t->node_first[n + 1] = t->node_first[n] + t->node_size[n];
    for (int r = 0; r < size; r++)
        t->ranks_by_node[t->node_first[t->node_of_rank[r]] + t->local_rank_of[r]] = r;
    t->is_block = 1;
    for (int r = 0; r < size; r++)
        if (t->ranks_by_node[r] != r) t->is_block = 0;
fail:
    return rc;
}

int xchg_topology_regions(const xchg_topology *t, const int *key_of_rank, xchg_topology *out)
{
    int rc, next = 0;
    memset(out, 0, sizeof *out);
    out->size = t->size;
    out->is_virtual = t->is_virtual;
    XCHG_ALLOC(out->node_of_rank, (size_t)t->size * sizeof(int));
    XCHG_ALLOC(out->local_rank_of, (size_t)t->size * sizeof(int));
    XCHG_ALLOC(out->ranks_by_node, (size_t)t->size * sizeof(int));
    for (int r = 0; r < t->size; r++) out->node_of_rank[r] = -1;
    for (int n = 0; n < t->num_nodes; n++)
        for (int l = 0; l < t->node_size[n]; l++) {
            int r = xchg_rank_on_node(t, n, l);
            if (out->node_of_rank[r] >= 0) continue;
            for (int m = l; m < t->node_size[n]; m++) { /* r's region: equal keys */
                int q = xchg_rank_on_node(t, n, m);
                if (key_of_rank[q] == key_of_rank[r]) out->node_of_rank[q] = next;
            }
            next++;
        }
    XCHG_CHECK(index_nodes(out));
    return MPI_SUCCESS;
fail:
    xchg_topology_free(out);
    return rc;
}

int xchg_topology_build(MPI_Comm comm, int flat, xchg_topology *t)
{
    int rc, rank, size;
    memset(t, 0, sizeof *t);
    XCHG_CHECK(MPI_Comm_rank(comm, &rank));
    XCHG_CHECK(MPI_Comm_size(comm, &size));
    t->size = size;
    XCHG_ALLOC(t->node_of_rank, (size_t)size * sizeof(int));
    XCHG_ALLOC(t->local_rank_of, (size_t)size * sizeof(int));
    XCHG_ALLOC(t->ranks_by_node, (size_t)size * sizeof(int));

    const char *spec = getenv("XCHG_VIRTUAL_NODES");
    if (flat) {
        for (int r = 0; r < size; r++) t->node_of_rank[r] = 0;
    } else if (spec && *spec) {
        XCHG_CHECK(xchg_virtual_layout(spec, getenv("XCHG_VIRTUAL_PLACEMENT"), size,
                                       t->node_of_rank));
        t->is_virtual = 1;
    } else {
        XCHG_CHECK(real_layout(comm, rank, t->node_of_rank));
    }

    XCHG_CHECK(index_nodes(t));
    return MPI_SUCCESS;
fail:
    xchg_topology_free(t);
    return rc;
}

int xchg_topology_kind(MPI_Comm comm, int *kind)
{
#ifdef SMPI_H
    (void)comm;
    *kind = MPI_UNDEFINED;
    return MPI_SUCCESS;
#else
    int rc = MPI_Topo_test(comm, kind);
    return rc == MPI_SUCCESS ? rc : xchg_error(rc, "MPI_Topo_test failed");
#endif
}

void xchg_topology_free(xchg_topology *t)
{
    free(t->node_of_rank);
    free(t->local_rank_of);
    free(t->node_size);
    free(t->node_first);
    free(t->ranks_by_node);
    memset(t, 0, sizeof *t);
}
