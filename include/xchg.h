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
 *   4. online selection (blocking alltoall, alltoallv, alltoallw, allgather,
 *      allgatherv): a call signature (collective, communicator, size class)
 *      that repeats is decided by timing up to six candidates (the cost
 *      model's best three, node_aware and rma_direct where they apply, and
 *      the MPI library's own collective, "mpi", always), on the slowest
 *      rank: 5 samples each, up to 10 while they spread (40 short calls);
 *      clear losers stop early; another candidate replaces "mpi" only when
 *      faster by more than their samples' spread (1% to 5%). Every rank
 *      keeps the same winner, re-checked rarely; a winner other than "mpi"
 *      is confirmed against "mpi" soon after and then now and then. A call
 *      decided for "mpi" then goes straight to the MPI library. Nonblocking
 *      and persistent calls never explore. A nonblocking call runs "mpi",
 *      or the winner its signature learned in blocking calls where that
 *      winner posts its messages in one round ("nonblocking", "linear");
 *      alltoallv, alltoallw and the neighbourhood alltoallv look none up
 *      (their sizes or pattern are not agreed); a repeated "mpi" call goes
 *      straight to the library's nonblocking collective. A persistent request takes the winner its signature
 *      learned in blocking calls, if any, else measures at init: its
 *      candidates (as above; for
 *      the neighbourhood alltoallv step 5's choice, its best of standard
 *      and locality, "mpi" on a distributed-graph communicator) run on
 *      scratch buffers (5 samples of up to 4 runs each), and the fastest
 *      is kept as above.
 *      XCHG_ONLINE=0 turns it off; XCHG_VERBOSE=1 prints what was tried and
 *      decided; XCHG_TUNING_OUT=path writes the decisions at MPI_Finalize
 *      as a tuning file for step 3 of the next run.
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
 * (else its "alltoallv" ones), then online selection and the cost model
 * on the agreed bytes.
 * MPI_DATATYPE_NULL is accepted only for a block of count 0. Nonblocking:
 * XCHG_Ialltoallw, below; persistent: XCHG_Alltoallw_init.
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
 * the others ("allgatherv", XCHG_ALLGATHERV, online selection); since every
 * rank knows every block's size, automatic selection sees the real sizes
 * (the mean and the largest block) without any agreement. Nonblocking:
 * XCHG_Iallgatherv, below; persistent: XCHG_Allgatherv_init.
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
 * never to MPI_Wait. (The drop-in library, which routes MPI's own calls,
 * gives a program real MPI_Requests for MPI_Ialltoall, MPI_Alltoall_init
 * and friends; see the README.)
 *
 * Progress, as MPI specifies it for nonblocking and persistent collectives:
 * XCHG_Start (and every nonblocking call, XCHG_Ialltoall etc.) returns
 * without waiting for any other rank, whatever the algorithm; the exchange
 * goes on in XCHG_Test / XCHG_Wait, in every other xchg call, in the
 * drop-in's MPI_Test / MPI_Wait families, and, with
 * XCHG_PROGRESS_THREAD=1 (needs MPI_THREAD_MULTIPLE), in a thread of its
 * own. Single-round algorithms (nonblocking, linear, mpi) have all their
 * messages in flight when the start returns; multi-round ones advance a
 * round at each progress, so a program that computes for long without
 * calling MPI gets more overlap from testing now and then. A communicator's
 * calls run in the order they were started (every rank starts them in the
 * same order); several may be outstanding and complete in any order.
 * Nonblocking calls choose as a persistent init would (online selection
 * serves blocking calls). Algorithms whose setup creates sub-communicators
 * (the node-aware family, ParLinNa, locality) build them inside the call
 * without waiting for another rank. An algorithm whose setup creates
 * windows (shm_direct, rma_direct: MPI has no nonblocking way to) runs in a
 * nonblocking call only once a blocking call or persistent init on that
 * communicator has built its plan; until then the MPI library's own
 * collective runs in its place. Persistent init is collective and may wait
 * for the other ranks, as MPI-4.1 allows.
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
 * and set it to XCHG_REQUEST_NULL. Selection as for the init, but the cost
 * model's "standard" runs as "mpi" (the MPI library's own sends the same
 * messages), its pattern agreed on XCHG_AGREE's schedule, and a repeated
 * blocking "mpi" call goes straight to the library between agreements; a
 * nonblocking call runs "mpi" unless a tuning rule or XCHG_ONLINE=0 lets
 * the model decide. */
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
/*
 * Nonblocking collectives (MPI-3's MPI_Ialltoall etc.): the same selection as
 * the blocking call down to the tuning file; then the MPI library's own
 * nonblocking collective, or a single-round winner that blocking calls of
 * the same signature learned (step 4 above: online selection never times a
 * nonblocking call). A call whose choice needs no agreement and posts in
 * one round posts at the call; the request completes in XCHG_Wait /
 * XCHG_Test, which free it and set it to XCHG_REQUEST_NULL.
 */
int XCHG_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, XCHG_Request *request);
int XCHG_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                    XCHG_Request *request);
int XCHG_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    XCHG_Request *request);
int XCHG_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, XCHG_Request *request);
int XCHG_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, const int recvcounts[], const int displs[],
                     MPI_Datatype recvtype, MPI_Comm comm, XCHG_Request *request);

/* Advance every outstanding nonblocking call and persistent start of this
 * process once (what XCHG_Test does for all of them); *pending (may be
 * NULL): whether any is still in flight. For programs that compute long
 * between a start and its wait and want their exchanges to move on. */
int XCHG_Progress(int *pending);

int XCHG_Start(XCHG_Request *request);
int XCHG_Startall(int count, XCHG_Request requests[]);

/* Complete a started request; it becomes inactive and may be started again.
 * On an inactive request both return at once (flag = 1). The status, unless
 * MPI_STATUS_IGNORE, is empty (MPI_ANY_SOURCE, MPI_ANY_TAG) with MPI_ERROR
 * set to the operation's error code. Errors of the exchange are raised here,
 * through the communicator's error handler. */
int XCHG_Wait(XCHG_Request *request, MPI_Status *status);
int XCHG_Test(XCHG_Request *request, int *flag, MPI_Status *status);

/* Free the request and its plan; *request becomes XCHG_REQUEST_NULL. As
 * MPI_Request_free: a started request (or a nonblocking call's) is not
 * waited for; its exchange goes on under progress (any xchg call,
 * XCHG_Progress) and frees what it holds when it completes; its buffers
 * must stay untouched until then (the program knows by other means, e.g. a
 * later blocking xchg call on the same communicator, which completes it
 * first). An error of that exchange is printed to stderr. Every request
 * keeps its communicator's xchg state alive: MPI_Comm_free with requests
 * alive or calls in flight lets them complete and be used normally. */
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

/* The detail of the last error xchg raised on this thread ("" if none), and
 * forgetting it (so that a later XCHG_Last_error() is this call's). */
const char *XCHG_Last_error(void);
void XCHG_Clear_error(void);

/*
 * Introspection: what the registry holds, what the cost model predicts and
 * what selection chooses, for tools and bindings (xchg-info, the Python
 * package). Every function returns an MPI error code (MPI_ERR_ARG, with a
 * message in XCHG_Last_error(), for an unknown collective, an index out of
 * range or a bad selection string). Those without a communicator are local
 * and raise no error handler. Strings returned as `const char *` are static:
 * they live as long as the program and are never NULL ("" for none).
 * Collectives are named as everywhere: "alltoall", "alltoallv", "allgather",
 * "neighbor_alltoallv"; algorithms by their index, 0..count-1.
 */

/* The collectives, index 0..count-1. */
int XCHG_Collective_count(int *count);
int XCHG_Collective_get_name(int index, const char **name);

/* Number of registered algorithms for `collective`, and the i-th one's name
 * and a description of its parameters ("batch=32 [1..P]" style, the text of
 * the listings; "" for none). */
int XCHG_Algorithm_count(const char *collective, int *count);
int XCHG_Algorithm_describe(const char *collective, int index, char *name, int namelen,
                            char *params, int paramslen);

/* The i-th algorithm: its name, a one-line summary, the publication it
 * follows (short form, "Fan et al. 2025"; "" for none), whether it is
 * hierarchical (uses the node structure; 0: flat, usable as the inner
 * exchange of a hierarchical one) and how many parameters it has. Any
 * output pointer may be NULL. */
int XCHG_Algorithm_get_info(const char *collective, int index, const char **name,
                            const char **summary, const char **reference, int *hierarchical,
                            int *num_params);

/* Whether algorithm `index`'s setup creates windows, which MPI can only
 * create with blocking calls: a nonblocking call runs it once a blocking
 * call or a persistent init on the communicator has built its plan, and
 * until then the MPI library's own collective (neighbor_alltoallv:
 * "standard") in its place. (Sub-communicators do not count: inside a
 * nonblocking call xchg makes them without blocking.) */
int XCHG_Algorithm_setup_blocks(const char *collective, int index, int *blocks);

/* Kinds of parameters. */
#define XCHG_PARAM_KIND_INTEGER 0   /* an integer in [min, max], or one of its names: special
                                       values outside the range, name i meaning -(i+1) */
#define XCHG_PARAM_KIND_NAME 1      /* one of its names; the value is the name's index */
#define XCHG_PARAM_KIND_ALGORITHM 2 /* its names: the flat algorithms of a collective (the
                                       inner exchange); the value is the name's index */
/* Range bounds that are not numbers. */
#define XCHG_BOUND_P (-1LL)                     /* the communicator's size P */
#define XCHG_BOUND_UNLIMITED 9223372036854775807LL /* no upper bound */

/* Parameter `param` (0..num_params-1) of algorithm `index`: its name, kind,
 * default (integer: the value, negative for a named special value; name and
 * algorithm kinds: the index of the default name), range [min, max] (integer
 * kind; bounds may be XCHG_BOUND_P or XCHG_BOUND_UNLIMITED; 0 and
 * num_names-1 for the others), how many names it has, and a help line. Any
 * output pointer may be NULL. */
int XCHG_Param_get_info(const char *collective, int index, int param, const char **name,
                        int *kind, long long *default_value, long long *min, long long *max,
                        int *num_names, const char **help);
/* Name `i` (0..num_names-1) of that parameter. */
int XCHG_Param_get_name(const char *collective, int index, int param, int i, const char **name);
/* The parameter as listings show it: "batch=32 [1..P]". */
int XCHG_Param_describe(const char *collective, int index, int param, char *buf, int buflen);

/* `selection` ("name[:param=value,...]") for `collective` written out in
 * full, every parameter with its value ("scattered" -> "scattered:batch=32"),
 * into `buf`; MPI_ERR_ARG, with a message naming the valid choices, when it
 * names no algorithm or a parameter is unknown or out of the range valid on
 * every communicator. */
int XCHG_Selection_normalize(const char *collective, const char *selection, char *buf,
                             int buflen);

/*
 * Whether `selection` can run on `comm` for `collective`: *applicable is 1
 * and `text` gets the full selection as it would run there (parameters
 * whose range ends at P clamped to the communicator), or *applicable is 0 and
 * `text` says why not (e.g. pairwise:order=xor at a P that is not a power of
 * two). A selection that does not parse is an error (MPI_ERR_ARG), raised
 * on `comm`. Collective on the first xchg call on `comm`, local afterwards.
 */
int XCHG_Comm_check_algorithm(MPI_Comm comm, const char *collective, const char *selection,
                              int *applicable, char *text, int textlen);

/* The topology of `comm` as xchg sees it (real nodes, or virtual ones from
 * XCHG_VIRTUAL_NODES): the number of nodes, whether they are virtual, and
 * whether every node holds consecutive ranks. Any output may be NULL.
 * Collective on the first xchg call on `comm`, local afterwards. */
int XCHG_Comm_get_topology(MPI_Comm comm, int *num_nodes, int *is_virtual, int *is_block);
/* The ranks of `comm` on node `node`, in order (at most `maxranks` of
 * them into ranks[], which may be NULL), and *node_size, how many it has. */
int XCHG_Comm_get_node(MPI_Comm comm, int node, int maxranks, int ranks[], int *node_size);

/* *seconds = T(bytes), the time of one message of `bytes` bytes on `comm`:
 * half the round trip of the fastest of `samples` ping-pongs between ranks 0
 * and 1 (after two untimed ones), the same on every rank; with one rank, the
 * model 1 us + bytes / (1 GB/s). The unit of the drop-in's arrival
 * imbalance factors (XCHG_PROFILE) and of xchg-bench --skew. Collective
 * over `comm`; its messages cannot match the caller's. MPI_ERR_COUNT when
 * bytes exceeds an int, MPI_ERR_ARG for samples < 1. */
int XCHG_Comm_message_time(MPI_Comm comm, long long bytes, int samples, double *seconds);

/*
 * A case for the cost model and selection: a collective, P ranks on nodes,
 * and the block size in bytes (alltoall, allgather: bytes per block;
 * alltoallv: the busiest rank's mean block). The model sees the size
 * rounded down to a quarter octave (XCHG_Case_get_shape says what it sees).
 *   XCHG_Case_create: P ranks on ceil(P/Q) nodes of Q ranks (the last one may
 *     be smaller), on any machine, no communicator: selection asks a rule of
 *     the tuning file (XCHG_TUNING_FILE), else the cost model.
 *   XCHG_Comm_case_create: the topology of `comm` (collective on the first
 *     xchg call on `comm`); selection honours XCHG_Comm_set_algorithm and the
 *     environment as a call would, and applicability is judged on `comm`.
 *     Free the case before the communicator.
 * Cases are local objects; free them with XCHG_Case_free.
 */
typedef struct xchg_case *XCHG_Case;
int XCHG_Case_create(const char *collective, int ranks, int ranks_per_node, long long bytes,
                     XCHG_Case *xcase);
int XCHG_Comm_case_create(MPI_Comm comm, const char *collective, long long bytes,
                          XCHG_Case *xcase);
int XCHG_Case_free(XCHG_Case *xcase);
/* alltoallv: at most `peers` non-empty blocks per rank (a sparse exchange;
 * default P-1). */
int XCHG_Case_set_peers(XCHG_Case xcase, int peers);
/* alltoallv, allgatherv: the largest block (allgatherv: the largest
 * contribution, the case's bytes being the mean one); default: the mean. */
int XCHG_Case_set_max_block(XCHG_Case xcase, long long bytes);
/* neighbor_alltoallv: the busiest rank's messages to or from other nodes and
 * its own node, their bytes, and the other nodes it exchanges with (each the
 * largest over ranks, as a call agrees them); the block size follows. */
int XCHG_Case_set_neighbor_pattern(XCHG_Case xcase, long long remote_msgs, long long local_msgs,
                                   long long remote_bytes, long long local_bytes,
                                   long long remote_nodes);
/* What the model sees: P, the nodes, the smallest and largest node, and the
 * block size (rounded). Any output may be NULL. */
int XCHG_Case_get_shape(XCHG_Case xcase, int *ranks, int *num_nodes, int *min_node_size,
                        int *max_node_size, long long *model_bytes);

/* Why selection chose what it chose. */
#define XCHG_REASON_COMM 1        /* XCHG_Comm_set_algorithm */
#define XCHG_REASON_ENV 2         /* the environment (XCHG_ALLTOALLV...) */
#define XCHG_REASON_TUNING_RULE 3 /* a rule of the tuning file */
#define XCHG_REASON_MODEL 4       /* the cost model */
#define XCHG_REASON_FIXED 5       /* the fixed rule (when the model cannot decide) */

/* The selection for the case, as a full selection string into `selection`;
 * *reason (XCHG_REASON_*) and *why (in words: "XCHG_ALLTOALLV", "a rule of
 * the tuning file", "the cost model"...) say what decided. *reason and *why
 * may be NULL. */
int XCHG_Case_select(XCHG_Case xcase, char *selection, int len, int *reason, const char **why);
/* The cost model's predicted time (seconds) of `selection` in the case, or
 * -1 when the algorithm has no cost model; MPI_ERR_ARG, with the reason in
 * XCHG_Last_error(), when it cannot run there. */
int XCHG_Case_predict(XCHG_Case xcase, const char *selection, double *seconds);
/* The model's ranking of every candidate that can run in the case, cheapest
 * first: *count candidates; candidate i's full selection, predicted seconds,
 * and the terms the prediction is made of (latency, overhead, bandwidth,
 * copy: four seconds into terms[], which may be NULL). */
int XCHG_Case_rank(XCHG_Case xcase, int *count);
int XCHG_Case_get_candidate(XCHG_Case xcase, int i, char *selection, int len, double *seconds,
                            double terms[4]);
/* Whether the model's platform constants are the tuning file's (1) or built
 * in (0); the tuning file's error if it cannot be read. */
int XCHG_Model_get_constants_source(int *from_tuning_file);

#ifdef __cplusplus
}
#endif

#endif /* XCHG_H */
