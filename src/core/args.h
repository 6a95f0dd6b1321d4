/*
 * Normalized arguments. Every entry point converts its arguments once into an
 * xchg_args: per-peer element counts, 64-bit byte offsets and byte sizes, and
 * what the datatypes look like. MPI_IN_PLACE is resolved here: the blocks to
 * send are copied out of the receive buffer into scratch memory first, so no
 * algorithm ever sees MPI_IN_PLACE. The copy is taken only after the device
 * check (xchg_device_route, device.h: the CPU never reads device memory), by
 * xchg_args_refresh_in_place.
 *
 * Direct algorithms hand the user's datatypes straight to MPI
 * (xchg_side_block_ptr with side->counts and xchg_side_type). Algorithms that
 * forward data through other ranks move packed bytes: xchg_pack_block and
 * xchg_unpack_block convert between a block and its packed form.
 *
 * Alltoallw has a datatype per peer on each side (side->types). Algorithms
 * never read side->type's datatype, size or extent directly: they ask
 * xchg_side_type(side, peer), which is the per-peer one for alltoallw and the
 * side's one datatype otherwise, and xchg_side_contiguous(side) (every block
 * is a run of bytes). So every alltoallv algorithm serves alltoallw.
 */
#ifndef XCHG_CORE_ARGS_H
#define XCHG_CORE_ARGS_H

#include "pmpi.h"
#include <stdint.h>
#include <stddef.h>

typedef enum {
    XCHG_ALLTOALL = 0,
    XCHG_ALLTOALLV = 1,
    XCHG_ALLGATHER = 2,
    XCHG_NEIGHBOR_ALLTOALLV = 3, /* sides indexed by neighbour, not by rank */
    XCHG_ALLTOALLW = 4,          /* a datatype per peer: alltoallv's algorithms serve it */
    XCHG_ALLGATHERV = 5,         /* per-peer contributions, the same everywhere */
    XCHG_NUM_COLL = 6
} xchg_coll;

/* The dense collectives (every rank pair): the ones the harness sweeps.
 * XCHG_NUM_DENSE_COLL counts the first three; the ones appended after the
 * neighbourhood collective (alltoallw, allgatherv) are dense too
 * (xchg_coll_is_dense). */
#define XCHG_NUM_DENSE_COLL 3
static inline int xchg_coll_is_dense(int coll) { return coll != XCHG_NEIGHBOR_ALLTOALLV; }

/* Whether `coll` has per-peer counts (alltoallv, alltoallw): the
 * collectives whose sizes differ between ranks and are agreed. */
static inline int xchg_coll_is_v(xchg_coll coll)
{
    return coll == XCHG_ALLTOALLV || coll == XCHG_ALLTOALLW;
}

const char *xchg_coll_name(xchg_coll coll);
int xchg_coll_from_name(const char *name, xchg_coll *coll);

typedef struct xchg_type_info {
    MPI_Datatype type;
    int64_t size;        /* bytes of data in one element */
    int64_t extent;      /* stride between consecutive elements */
    int64_t true_lb;     /* first byte touched, relative to the element start */
    int64_t true_extent; /* bytes spanned by one element */
    int contiguous;      /* one element is `size` contiguous bytes at offset 0
                            and elements follow each other without gaps */
} xchg_type_info;

/* One side (send or receive) of an exchange. */
typedef struct xchg_side {
    char *buf;               /* base address */
    int *counts;             /* [P] elements per peer */
    int64_t *offsets;        /* [P] byte offset of each peer's block from buf */
    int64_t *bytes;          /* [P] packed bytes per peer (counts * type size) */
    xchg_type_info type;     /* the datatype of every block; for alltoallw only
                                `contiguous` is set (every peer's type is) and
                                `type` is MPI_DATATYPE_NULL: use xchg_side_type */
    const xchg_type_info *types; /* alltoallw: [P] datatype of each peer's block
                                    (owned by the args); NULL otherwise */
} xchg_side;

/* The datatype of `peer`'s block on one side. */
static inline const xchg_type_info *xchg_side_type(const xchg_side *s, int peer)
{
    return s->types ? &s->types[peer] : &s->type;
}

/* Every block of the side is its packed bytes, contiguous at its address. */
static inline int xchg_side_contiguous(const xchg_side *s)
{
    return s->type.contiguous;
}

/* What only a neighbourhood call's arguments have (XCHG_NEIGHBOR_ALLTOALLV):
 * its graph, and the global indices of the _ext inits. Embedded in
 * xchg_args, not pointed to: it is owned and moved with the args (a request
 * takes them by value), costs a dense call no allocation and no failure
 * path, and stays zero there, so generic code never reads its members.
 * send.* is indexed by destination index (outdegree entries), recv.* by
 * source index (indegree entries). A rank may appear more than once in
 * either list, and may be this rank. */
typedef struct xchg_neighbor_args {
    int indegree, outdegree;
    int *sources, *destinations; /* ranks of comm, in the user's order; one
                                    allocation, sources first (owned) */
    /* From the _ext inits (include/xchg.h): one global index per element,
     * packed block after block in neighbour order (block i's counts[i]
     * indices follow block i-1's); NULL otherwise. One allocation,
     * send_gindex first (xchg_args_free). */
    int64_t *send_gindex, *recv_gindex;
} xchg_neighbor_args;

typedef struct xchg_args {
    xchg_coll coll;
    MPI_Comm comm;           /* xchg's private duplicate of the user's comm */
    int rank, size;
    xchg_side send, recv;
    int in_place;            /* send blocks were copied out of recvbuf */
    int on_device;           /* device buffers, run by `mpi` (device.c): no copy taken */
    int64_t uniform_bytes;   /* packed bytes per peer for alltoall/allgather, else -1 */
    /* XCHG_ALLGATHERV: recv.bytes[p] is rank p's contribution, the same on
     * every rank (MPI requires matching type signatures); the send side is
     * the one block sent to everyone (send.counts[p] and offsets[p] are the
     * same for every p). */
    void *owned;             /* per-peer arrays (freed by xchg_args_free) */
    xchg_type_info *owned_types; /* alltoallw: the per-peer types of both sides */
    void *owned_copy;        /* the MPI_IN_PLACE copy of the send blocks */
    MPI_Datatype *held_types; /* duplicates of the caller's derived types that
                                 the args use instead (xchg_args_hold_types) */
    int num_held;
    const char *in_place_source; /* where that copy was taken from in the receive */
    size_t in_place_bytes;       /* buffer, and its size */
    xchg_neighbor_args neighbor; /* XCHG_NEIGHBOR_ALLTOALLV only; zero otherwise */
} xchg_args;

/* Fill a type description; MPI_ERR_TYPE for MPI_DATATYPE_NULL. */
int xchg_type_describe(MPI_Datatype type, xchg_type_info *info);

/* Validate and normalize the three collectives' arguments (local; no messages). */
int xchg_args_alltoallv(xchg_args *a, const void *sendbuf, const int *sendcounts,
                        const int *sdispls, MPI_Datatype sendtype, void *recvbuf,
                        const int *recvcounts, const int *rdispls, MPI_Datatype recvtype,
                        MPI_Comm comm, int rank, int size);
int xchg_args_alltoall(xchg_args *a, const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, int rank, int size);
int xchg_args_allgather(xchg_args *a, const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm, int rank, int size);
/* Alltoallw: MPI's arguments (byte displacements, a datatype per peer on
 * each side). With MPI_IN_PLACE the receive side's counts, displacements and
 * types describe the blocks to send, and the send arguments are ignored. */
int xchg_args_alltoallw(xchg_args *a, const void *sendbuf, const int *sendcounts,
                        const int *sdispls, const MPI_Datatype *sendtypes, void *recvbuf,
                        const int *recvcounts, const int *rdispls,
                        const MPI_Datatype *recvtypes, MPI_Comm comm, int rank, int size);
/* Allgatherv: MPI's recvcounts and displs (in extents of recvtype). With
 * sendbuf MPI_IN_PLACE the own block is taken from recvbuf at displs[rank]. */
int xchg_args_allgatherv(xchg_args *a, const void *sendbuf, int sendcount,
                         MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                         const int *displs, MPI_Datatype recvtype, MPI_Comm comm, int rank,
                         int size);
/* Neighbourhood alltoallv (neighbor_args.c): counts and displacements per
 * neighbour; the lists are copied into args->neighbor. MPI_IN_PLACE is
 * refused, as MPI does for neighbour collectives. */
int xchg_args_neighbor_alltoallv(xchg_args *a, int indegree, const int *sources, int outdegree,
                                 const int *destinations, const void *sendbuf,
                                 const int *sendcounts, const int *sdispls, MPI_Datatype sendtype,
                                 void *recvbuf, const int *recvcounts, const int *rdispls,
                                 MPI_Datatype recvtype, MPI_Comm comm, int rank, int size);
void xchg_args_free(xchg_args *a);

/* A nonblocking or persistent call outlives the call that made it, and MPI
 * lets the program free its datatypes right after (the operation completes
 * normally): use duplicates of the derived types (MPI_Type_dup), freed with
 * the args. Predefined types are kept as they are. */
int xchg_args_hold_types(xchg_args *a);

/* A deep copy of a neighbourhood call's arguments (the buffers are shared;
 * the global indices are not copied: they are not part of a pattern). */
int xchg_args_copy(xchg_args *dst, const xchg_args *src);

/* Free what a neighbourhood call's own part holds (xchg_args_free calls it;
 * nothing for the dense collectives, whose part is zero). */
void xchg_neighbor_args_free(xchg_neighbor_args *n);

/* MPI_IN_PLACE: take the copy of the send blocks from the receive buffer as
 * it is now (a blocking call once its buffers are known to be host memory:
 * xchg_device_route; each start of a persistent call). */
void xchg_args_refresh_in_place(xchg_args *a);

/* Address of `peer`'s block on one side. */
static inline char *xchg_side_block_ptr(const xchg_side *s, int peer)
{
    return s->buf + s->offsets[peer];
}

/* Pack `peer`'s block of `side` into `dst` (side->bytes[peer] bytes; pack.c). */
int xchg_pack_block(const xchg_side *side, int peer, void *dst);
/* Unpack side->bytes[peer] packed bytes from `src` into `peer`'s block. */
int xchg_unpack_block(const xchg_side *side, int peer, const void *src);

/* Copy the own block from the send side to the receive side. */
int xchg_copy_self_block(const xchg_args *a);

/* Largest packed block this rank sends or receives. */
int64_t xchg_max_block_bytes(const xchg_args *a);

#endif
