/*
 * xchg: all-to-all collectives on top of any MPI.
 *
 * Every function takes a plain MPI_Comm and MPI's own argument lists and returns
 * an MPI error code. Errors are raised through the communicator's error handler,
 * exactly as MPI does: under MPI_ERRORS_RETURN the code comes back to the caller,
 * and XCHG_Last_error() gives a message that says what was wrong.
 *
 * Algorithm selection for a collective, highest priority first:
 *   1. XCHG_Comm_set_algorithm(comm, "alltoallv", "scattered:batch=8")
 *      (for a persistent request: its info key "xchg_algorithm" first)
 *   2. the environment: XCHG_ALLTOALL, XCHG_ALLTOALLV, XCHG_ALLTOALLW,
 *      XCHG_ALLGATHER, XCHG_ALLGATHERV, XCHG_NEIGHBOR_ALLTOALLV
 *   3. a rule of the tuning file named by XCHG_TUNING_FILE (written by
 *      tools/xchg-tune, or by a previous run through XCHG_TUNING_OUT)
 *   4. online selection (blocking alltoall, alltoallv, allgather): a call
 *      signature (collective, communicator, size class) that repeats is
 *      decided by timing a few candidates, the MPI library's own collective
 *      ("mpi") always among them, on the slowest rank; every rank keeps the
 *      same winner. A persistent request takes the winner its signature
 *      learned, if any, at init. XCHG_ONLINE=0 turns it off.
 *   5. xchg's cost model (src/select/model.h; alltoallv, alltoallw: on sizes
 *      agreed by an MPI_Allreduce on a sampled schedule, XCHG_AGREE;
 *      allgatherv: on the recvcounts every rank passes), or a fixed rule
 *      where it has no inputs (alltoallv under XCHG_AGREE=never)
 * A selection string is "name" or "name:param=value,param=value".
 *
 * Device (GPU) buffers: a call whose buffers are GPU memory (CUDA; ROCm when
 * the program has loaded HIP) runs the MPI library's own collective when the
 * MPI reports device support, ahead of any selection, and otherwise fails
 * with MPI_ERR_BUFFER without touching them: xchg's algorithms never access
 * device memory. Managed and pinned memory are host memory. Pass device
 * buffers on every rank of a call or on none; XCHG_DEVICE=agree (one more
 * MPI_Allreduce per call) allows mixing, XCHG_DEVICE=off skips the check
 * (docs/design.md, "Device buffers").
 *
 * Threads (MPI_THREAD_MULTIPLE): threads may call xchg at the same time on
 * different communicators. On one communicator, as MPI requires for its
 * collectives, calls must not overlap; that includes the XCHG_Comm_* queries,
 * which read what the last call on that communicator recorded.
 */
#ifndef XCHG_H
#define XCHG_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XCHG_VERSION_MAJOR 0
#define XCHG_VERSION_MINOR 2
#define XCHG_VERSION_PATCH 0

int XCHG_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);

int XCHG_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);

int XCHG_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);

/*
 * MPI_Alltoallw's arguments: per-peer counts, displacements in BYTES, and a
 * datatype per peer on each side. MPI_IN_PLACE: the receive side's counts,
 * displacements and types describe the blocks to send (the send arguments
 * are ignored). Served by every alltoallv algorithm (the direct ones post
 * each peer's block with that peer's datatype; those that forward pack each
 * block with its own), and by "mpi" (PMPI_Alltoallw). Selection as for
 * alltoallv, under the name "alltoallw": XCHG_Comm_set_algorithm(comm,
 * "alltoallw", ...), XCHG_ALLTOALLW, the tuning file's "alltoallw" rules
 * (else its "alltoallv" ones), then the cost model on the agreed bytes.
 * MPI_DATATYPE_NULL is accepted only for a block of count 0. There is no
 * nonblocking XCHG_Ialltoallw: most algorithms are multi-round schedules
 * that xchg, without a progress thread, would run inside the starting call.
 */
int XCHG_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);

/*
 * MPI_Allgatherv's arguments: rank p's block (sendcount of sendtype there)
 * lands at displs[p] extents of recvtype into recvbuf, recvcounts[p]
 * elements, the same recvcounts and displs on every rank. Counts may be
 * zero; displacements may be in any order and leave gaps; with sendbuf
 * MPI_IN_PLACE the own block is already at displs[rank]. Selection as for
 * the others ("allgatherv", XCHG_ALLGATHERV); since every rank knows every
 * block's size, automatic selection sees the real sizes (the mean and the
 * largest block) without any agreement. There is no nonblocking form yet
 * (see XCHG_Allgatherv_init for the persistent one).
 */
int XCHG_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, const int recvcounts[], const int displs[],
                    MPI_Datatype recvtype, MPI_Comm comm);

/*
 * Persistent collectives (MPI-4's MPI_Alltoall_init etc., plus xchg's own
 * request type). An *_init call is collective: it selects the algorithm and
 * builds its plan once (sub-communicators, schedules, and everything that
 * follows from the fixed counts, e.g. ParLogNa's S_max and every round's
 * metadata), so each start only moves data. The buffers, counts,
 * displacements and datatypes are fixed at init, as in MPI; the contents of
 * the send buffer (and, with MPI_IN_PLACE, of the receive buffer) may change
 * between starts.
 *
 * `info` may be MPI_INFO_NULL. The key "xchg_algorithm" selects the
 * algorithm for this request ("parlogna:radix=4"; the same on every rank), ahead of
 * XCHG_Comm_set_algorithm and the environment.
 *
 * XCHG_Request is xchg's own handle, not an MPI_Request: pass it to
 * XCHG_Start / XCHG_Startall / XCHG_Wait / XCHG_Test / XCHG_Request_free,
 * never to MPI_Wait. (The drop-in library, which routes MPI's own calls, passes
 * MPI_Alltoall_init and friends to the MPI library; see the README.)
 *
 * Progress. Algorithms whose schedule is one round of messages (nonblocking,
 * linear, mpi) post them in XCHG_Start and complete in XCHG_Test / XCHG_Wait,
 * as MPI's own persistent collectives do. Every other algorithm runs its
 * whole multi-round exchange in XCHG_Start (xchg has no progress thread to
 * advance rounds in the background), and XCHG_Wait and XCHG_Test complete
 * at once. For those, a program must respect one rule that MPI does not
 * impose: between XCHG_Start and XCHG_Wait a rank must not block on a
 * message that another rank sends only after its own XCHG_Start of the same
 * request (xchg would deadlock there).
 */
typedef struct xchg_request *XCHG_Request;
#define XCHG_REQUEST_NULL ((XCHG_Request)0)

int XCHG_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                       MPI_Info info, XCHG_Request *request);

int XCHG_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Info info, XCHG_Request *request);

/* The datatype arrays are read at init (their handles must stay valid, and
 * the datatypes committed, until the request is freed). */
int XCHG_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                        MPI_Info info, XCHG_Request *request);

int XCHG_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Info info, XCHG_Request *request);

int XCHG_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         void *recvbuf, const int recvcounts[], const int displs[],
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                         XCHG_Request *request);

/*
 * Neighbourhood alltoallv (MPI-4's MPI_Neighbor_alltoallv_init, same
 * arguments): `comm` is a distributed-graph communicator
 * (MPI_Dist_graph_create_adjacent or MPI_Dist_graph_create); block i of the
 * send side goes to the i-th destination and block i of the receive side
 * comes from the i-th source, in MPI_Dist_graph_neighbors' order. A rank
 * may be its own neighbour and may appear several times (the k-th block
 * for a rank meets the k-th block from it). Displacements are in extents of
 * the datatypes, as in MPI; MPI_IN_PLACE is not allowed. The request is an
 * XCHG_Request like the others. Selection: info key "xchg_algorithm",
 * XCHG_Comm_set_algorithm(comm, "neighbor_alltoallv", ...), the environment
 * XCHG_NEIGHBOR_ALLTOALLV, a tuning file's rule, then the cost model (standard
 * or locality, from the pattern agreed by one MPI_Allreduce at init).
 * Errors: MPI_ERR_TOPOLOGY when comm has no distributed graph.
 */
int XCHG_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[],
                                 const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                 const int recvcounts[], const int rdispls[],
                                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 XCHG_Request *request);

/* The blocking and nonblocking forms. Their plans are cached on the
 * communicator, keyed by the pattern (neighbour lists, counts,
 * displacements, datatypes; not the buffers): a pattern repeated every
 * iteration pays the algorithm's setup once. Where that setup communicates
 * (e.g. "locality"), each call adds one MPI_Allreduce of an int, so that all
 * ranks agree whether the cached plan still fits; "standard" adds nothing.
 * The nonblocking request completes in XCHG_Wait / XCHG_Test, which free it
 * and set it to XCHG_REQUEST_NULL. */
int XCHG_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int XCHG_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             XCHG_Request *request);

/*
 * A neighbourhood without a graph communicator (like MPI Advance's
 * MPIL_Topo): sources and destinations are ranks of `comm`, the lists are
 * copied. Local (no messages). XCHG_Neighbor_alltoallv_topo_init then runs
 * on any communicator of the same size; if that communicator has a
 * distributed graph too, its neighbour lists must equal the topology's
 * (MPI_ERR_TOPOLOGY otherwise).
 */
typedef struct xchg_topo *XCHG_Topo;
#define XCHG_TOPO_NULL ((XCHG_Topo)0)

int XCHG_Topo_create(MPI_Comm comm, int indegree, const int sources[], int outdegree,
                     const int destinations[], XCHG_Topo *topo);
int XCHG_Topo_free(XCHG_Topo *topo);

int XCHG_Neighbor_alltoallv_topo_init(XCHG_Topo topo, const void *sendbuf,
                                      const int sendcounts[], const int sdispls[],
                                      MPI_Datatype sendtype, void *recvbuf,
                                      const int recvcounts[], const int rdispls[],
                                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                      XCHG_Request *request);

/*
 * The duplicate-removal extension (Collom et al. 2023, section 3.3): the same
 * init with one 64-bit global index per value. Value k of send block i (one
 * element of sendtype) has index global_sindices[sdispls[i] + k]; value k of
 * receive block i has index global_rindices[rdispls[i] + k]. Values with the
 * same index are the same value (a rank may send it to several neighbours),
 * so with the algorithm "locality:dedup=1" a value that several ranks of one
 * region need crosses between regions once. Indices must match the counts:
 * the k-th index of the block rank s sends to rank d equals the k-th index
 * of the block d receives from s (MPI_ERR_ARG otherwise, nothing written).
 * So both ends of an edge count the same elements (sendtype and recvtype
 * describe one value alike). The init checks this collectively (one
 * message per edge with the block's count and a hash of its indices, then
 * an agreement): a disagreement anywhere fails the init on every rank.
 * The indices are copied; "standard" ignores them, and "locality:dedup=1"
 * without them (the plain inits) is "locality:dedup=0".
 */
int XCHG_Neighbor_alltoallv_init_ext(const void *sendbuf, const int sendcounts[],
                                     const int sdispls[], const int64_t global_sindices[],
                                     MPI_Datatype sendtype, void *recvbuf,
                                     const int recvcounts[], const int rdispls[],
                                     const int64_t global_rindices[], MPI_Datatype recvtype,
                                     MPI_Comm comm, MPI_Info info, XCHG_Request *request);
int XCHG_Neighbor_alltoallv_topo_init_ext(XCHG_Topo topo, const void *sendbuf,
                                          const int sendcounts[], const int sdispls[],
                                          const int64_t global_sindices[],
                                          MPI_Datatype sendtype, void *recvbuf,
                                          const int recvcounts[], const int rdispls[],
                                          const int64_t global_rindices[],
                                          MPI_Datatype recvtype, MPI_Comm comm,
                                          MPI_Info info, XCHG_Request *request);

/*
 * What one start of a neighbourhood request sends from this rank, split by
 * region (the regions of the plan's algorithm; nodes by default): messages
 * and bytes to ranks of other regions and to other ranks of its own region
 * (messages to itself are not counted). Local; MPI_ERR_REQUEST for a request
 * that is not a neighbourhood request. An algorithm that forwards data
 * ("locality") counts its own messages; for the others every non-empty
 * block is one direct message (what "standard" and MPI's own schedule
 * send). The numbers of the paper's Figures 8-10 are their maxima over
 * ranks.
 */
typedef struct XCHG_Neighbor_stats {
    int inter_messages, intra_messages;
    long long inter_bytes, intra_bytes;
} XCHG_Neighbor_stats;
int XCHG_Neighbor_stats_get(XCHG_Request request, XCHG_Neighbor_stats *stats);

/* Start an inactive request (MPI_ERR_REQUEST if it is active or NULL). */
int XCHG_Start(XCHG_Request *request);
int XCHG_Startall(int count, XCHG_Request requests[]);

/* Complete a started request; it becomes inactive and may be started again.
 * On an inactive request both return at once (flag = 1). The status, unless
 * MPI_STATUS_IGNORE, is empty (MPI_ANY_SOURCE, MPI_ANY_TAG) with MPI_ERROR
 * set to the operation's error code. Errors of the exchange are raised here,
 * through the communicator's error handler. */
int XCHG_Wait(XCHG_Request *request, MPI_Status *status);
int XCHG_Test(XCHG_Request *request, int *flag, MPI_Status *status);

/* Free the request and its plan; *request becomes XCHG_REQUEST_NULL. A
 * started request is completed first. */
int XCHG_Request_free(XCHG_Request *request);

/*
 * Choose the algorithm that `collective` ("alltoall", "alltoallv", "alltoallw",
 * "allgather", "allgatherv", "neighbor_alltoallv")
 * uses on `comm` from now on. `selection` is "name[:param=value,...]"; NULL or ""
 * removes the choice, so the environment or the default applies again. Call it
 * on every rank of `comm` with the same choice: the first xchg call on a
 * communicator is collective (it duplicates the communicator), later ones are
 * local.
 * Returns MPI_ERR_ARG, with a message listing the valid choices, when the
 * string names no algorithm or a parameter is unknown or out of range.
 */
int XCHG_Comm_set_algorithm(MPI_Comm comm, const char *collective, const char *selection);

/*
 * What `collective` on `comm` would use now (when `last_used` is 0), or what
 * its last call did use (when `last_used` is 1), written as a full selection
 * string with every parameter, e.g. "scattered:batch=32", into `buf`
 * (`buflen` bytes, always NUL-terminated). What would be used may depend on
 * the message size: `bytes_per_peer` is the block size in bytes to ask about
 * (alltoallv: the mean block of the busiest rank; -1: unknown; ignored when
 * last_used is 1). Local: asks the tuning file and the cost model without
 * the agreement a call of alltoallv makes. Writes "" when the collective was
 * never called.
 */
int XCHG_Comm_get_algorithm(MPI_Comm comm, const char *collective, int last_used,
                            long long bytes_per_peer, char *buf, int buflen);

/* Peak scratch memory (bytes) the last call of `collective` on `comm` held. */
int XCHG_Comm_get_scratch_peak(MPI_Comm comm, const char *collective, long long *bytes);

/*
 * Time (seconds, this rank) that the last collective call on `comm` spent in
 * each named phase, in the order the phases first occurred: hierarchical
 * algorithms report "gather", "inter-node", "intra-node", "scatter" and
 * "repack" (packing and copying); flat algorithms report none. Up to `max`
 * entries go to names[] (static strings) and seconds[]; *count is how many.
 */
int XCHG_Comm_get_phase_times(MPI_Comm comm, int max, const char **names, double *seconds,
                              int *count);

/* The detail of the last error xchg raised on this thread ("" if none). */
const char *XCHG_Last_error(void);

/* Number of registered algorithms for `collective`, and the i-th one's name
 * and a description of its parameters ("batch=32 [1..P]" style). */
int XCHG_Algorithm_count(const char *collective, int *count);
int XCHG_Algorithm_describe(const char *collective, int index, char *name, int namelen,
                            char *params, int paramslen);

#ifdef __cplusplus
}
#endif

#endif /* XCHG_H */
