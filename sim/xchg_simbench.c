/*
 * xchg-simbench: a small timing and checking driver for the simulation
 * runner (sim/run) and the SMPI smoke test (sim/smoke). It also builds and
 * runs with a real MPI.
 *
 *   xchg-simbench [--coll alltoall|alltoallv|allgather|allgatherv] [-s BYTES] [--dist uniform|normal|powerlaw|sparse]
 *                 [-i ITERS] [-x WARMUP] [--no-verify] [--shared-buffers] [--p2p-barrier] [--header]
 *                 [--skew MIF [--skew-dist uniform|one-late]] ALGO...
 *
 * ALGO is an xchg selection string ("pairwise", "scattered:batch=8"), "auto"
 * (automatic selection: no choice set on the communicator), or
 * "mpi" for the MPI library's own MPI_Alltoall(v) (under SMPI: the built-in
 * implementation chosen by --cfg=smpi/coll-selector or smpi/alltoallv).
 *
 * allgather: each rank's block of S bytes (MPI_BYTE) to every rank; "mpi" is
 * MPI_Allgather, the byte counts of the row are those of an alltoall of S.
 *
 * allgatherv: rank i contributes the block the distribution gives from rank
 * i to rank i+1 (mod P) (uniform: S from everyone; normal, powerlaw: uneven;
 * sparse: S from one rank in eight, nothing from the others), packed in rank
 * order; "mpi" is MPI_Allgatherv. Its byte counts are what any schedule
 * must move (for sim/run's lower bound): every block leaves its rank and its
 * node once (max_rank_send, the node sums), a node receives every block of
 * the other nodes once (max_node_offnode_recv), and every block reaches
 * each other node (total_offnode: block x (nodes - 1)); no links line (the
 * per-block routes of a direct exchange bound no allgather).
 *
 * Block sizes (bytes from rank i to rank j, MPI_BYTE):
 *   uniform   S
 *   normal    max(0, round(N(S, (S/4)^2)))
 *   powerlaw  Pareto(alpha=2, xm=S/2) (mean S), capped at 32*S
 *   sparse    S to one peer in eight (a fixed random pattern) and to itself, 0 to the rest
 * drawn from a hash of (seed, i, j), so every rank knows the whole matrix.
 *
 * For each ALGO: WARMUP untimed calls, then ITERS timed calls; the time of a
 * call is the maximum over ranks of MPI_Wtime() around it (after a barrier).
 * Every received byte is checked after the first call (unless --no-verify).
 * --shared-buffers (SMPI only) allocates the buffers with SMPI_SHARED_MALLOC
 * (one physical copy for all ranks, no data copies: needed for P=1024 at
 * large S), which implies --no-verify.
 *
 * --skew MIF: imbalanced process arrival patterns, with the definitions of
 * tools/xchg-bench --skew (Qian & Afsahi 2011, Section 3.2). T(S) is half
 * the round trip of an S-byte ping-pong between ranks 0 and 1 (fastest of 20
 * after 2 untimed), measured once in the run (under SMPI: simulated time).
 * After the barrier each rank waits its delay, then enters the call:
 *   uniform   each rank U[0, MIF x T(S))
 *   one-late  one rank per iteration MIF x T(S) late, the others on time
 * drawn from a hash of (--seed, iteration index): the same function as
 * xchg-bench, so every ALGO sees the same pattern (warm-up calls use indices
 * -1, -2, ...). The wait is a spin on MPI_Wtime with a real MPI; under SMPI
 * it is nanosleep, which SMPI intercepts (smpi_nanosleep) and turns into
 * simulated time (an MPI_Wtime spin does not advance simulated time with
 * smpi/simulate-computation:no). A call's time is then the completion time:
 * mean over ranks of (exit - own arrival); span = last exit - first arrival
 * (times relative to each rank's barrier exit).
 *
 * Rank 0 prints one CSV row per ALGO:
 *   coll,algo,P,nodes,Q,S,dist,iters,t_min,t_avg,t_max,
 *   max_rank_send,max_rank_offnode_send,max_node_offnode_send,max_node_offnode_recv,
 *   total_offnode,verified
 * (bytes, without the rank's own block; total_offnode: all bytes that cross
 * the network) for the lower bound in sim/run. With --skew, t_min/t_avg/t_max
 * are completion times over the iterations and the row ends with
 *   skew_mif,skew_dist,message_us,span_min,span_avg,span_max  (span in seconds)
 * Under SMPI (built with XCHG_SIMGRID_ROUTES) rank 0 first prints
 *   links,NET_LINK,NET_S,NODE_LINK,NODE_S
 * the busiest shared link of the platform when every block travels its own
 * route (SimGrid's routing, sg_host_get_route), as bytes / bandwidth in
 * seconds: NET among the network's links, NODE among the node links of
 * sim/node_platform.cpp (names with "-core" or "-mem"; "-" when there are
 * none). Fat-pipe links are left out (they limit each flow, not the sum).
 * sim/run uses both for the achievable bound (sim/README.md).
 * Nodes: ranks whose processor name (the SimGrid host) starts with the same
 * "node-N" (sim/platforms.py's names), otherwise MPI_COMM_TYPE_SHARED.
 * Exits 1 if a check failed or an xchg call returned an error.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "xchg.h"
#ifdef XCHG_SIMGRID_ROUTES
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/dynar.h>
#endif

typedef enum { DIST_UNIFORM, DIST_NORMAL, DIST_POWERLAW, DIST_SPARSE, NUM_DISTS } dist_kind;
/* Every MPI call outside the timed collective: a failure aborts the run
 * with the call, its line and MPI's message (MPI_COMM_WORLD returns errors). */
#define CHECK(call) check_mpi((call), #call, __LINE__)
static void check_mpi(int rc, const char *call, int line)
{
    if (rc == MPI_SUCCESS) return;
    char message[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, message, &len) != MPI_SUCCESS) snprintf(message, sizeof message, "code %d", rc);
    fprintf(stderr, "xchg-simbench: line %d: %s failed: %s\n", line, call, message);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static const char *const dist_names[] = {"uniform", "normal", "powerlaw", "sparse"};

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* Uniform in (0, 1) from (seed, i, j, stream). */
static double unit(uint64_t seed, int i, int j, int stream)
{
    uint64_t h = mix(seed ^ mix(((uint64_t)i << 32) ^ (uint64_t)j ^ ((uint64_t)stream << 60)));
    return ((double)(h >> 11) + 0.5) / 9007199254740992.0;
}

static int block_bytes(dist_kind d, int64_t s, uint64_t seed, int i, int j)
{
    double v = (double)s;
    if (d == DIST_NORMAL) {
        double g = sqrt(-2.0 * log(unit(seed, i, j, 0))) * cos(2 * 3.14159265358979323846 * unit(seed, i, j, 1));
        v = s + g * s / 4.0;
    } else if (d == DIST_POWERLAW) {
        v = (s / 2.0) / sqrt(unit(seed, i, j, 0)); /* Pareto, alpha = 2 */
        if (v > 32.0 * s) v = 32.0 * s;
    } else if (d == DIST_SPARSE) {
        v = i != j && unit(seed, i, j, 0) >= 1.0 / 8 ? 0 : s; /* one peer in eight */
    }
    return v < 0 ? 0 : (int)llround(v);
}

static unsigned char pattern(int from, int to, int64_t k)
{
    return (unsigned char)(from * 131 + to * 31 + k * 7 + (k >> 8));
}

static void *alloc_buffer(size_t n, int shared)
{
#ifdef SMPI_SHARED_MALLOC
    if (shared) return SMPI_SHARED_MALLOC(n ? n : 1);
#else
    (void)shared;
#endif
    return malloc(n ? n : 1);
}

static void free_buffer(void *p, int shared)
{
#ifdef SMPI_SHARED_FREE
    if (shared) { SMPI_SHARED_FREE(p); return; }
#else
    (void)shared;
#endif
    free(p);
}

/* --skew: same hash and delay law as tools/xchg_bench.c (skew_delay). */
enum { SKEW_UNIFORM, SKEW_ONE_LATE };

static double skew_delay(double mif, int skew_dist, double message_us, uint64_t seed,
                         long index, int rank, int nranks)
{
    double bound = mif * message_us * 1e-6;
    uint64_t h = mix(seed * 0x100000001b3ULL ^ (uint64_t)index);
    if (skew_dist == SKEW_ONE_LATE) return (int)(h % (uint64_t)nranks) == rank ? bound : 0;
    uint64_t r = mix(h ^ ((uint64_t)(rank + 1) << 32));
    return bound * (double)(r >> 11) / 9007199254740992.0; /* U[0, bound) */
}

/* --skew: T(S), the time of one S-byte message (src/core/pingpong.h: half
 * the round trip of a ping-pong between ranks 0 and 1, fastest of 20),
 * broadcast; aborts the run if it cannot be measured. */
static double measure_message_us(int64_t s)
{
    double seconds;
    if (XCHG_Comm_message_time(MPI_COMM_WORLD, s, 20, &seconds) != MPI_SUCCESS) {
        fprintf(stderr, "xchg-simbench: T(S): %s\n", XCHG_Last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return seconds * 1e6;
}

/* --skew: wait d seconds from tb (MPI_Wtime at barrier exit). */
static void skew_wait(double tb, double d)
{
    if (d <= 0) return;
#ifdef SMPI_H
    (void)tb;
    struct timespec ts;
    ts.tv_sec = (time_t)d;
    ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
    nanosleep(&ts, NULL); /* smpi_nanosleep: advances simulated time */
#else
    while (MPI_Wtime() - tb < d) {
    }
#endif
}

/* The barrier before each timed call. By default MPI_Barrier, which under
 * SMPI is the coll-selector's: rows run under different selectors then start
 * from barriers with different exit skew, and the skew is part of the time
 * (docs/results/selection/grid/README.md). --p2p-barrier uses the same
 * dissemination barrier (ceil(log2 P) zero-byte Sendrecv rounds) for every
 * row, whatever the selector. */
static int timing_barrier(int p2p, int rank, int size)
{
    if (!p2p) return MPI_Barrier(MPI_COMM_WORLD);
    int rc = MPI_SUCCESS;
    for (int k = 1; k < size && rc == MPI_SUCCESS; k <<= 1)
        rc = MPI_Sendrecv(NULL, 0, MPI_BYTE, (rank + k) % size, 4242, NULL, 0, MPI_BYTE,
                          (rank - k + size) % size, 4242, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return rc;
}

static void usage(void)
{
    fprintf(stderr, "usage: xchg-simbench [--coll alltoall|alltoallv|allgather|allgatherv] [-s BYTES] "
                    "[--dist uniform|normal|powerlaw|sparse] [-i ITERS] [-x WARMUP] [--seed N] "
                    "[--no-verify] [--shared-buffers] [--p2p-barrier] [--header]\n"
                    "                     [--skew MIF [--skew-dist uniform|one-late]] ALGO...\n"
                    "  ALGO: xchg selection string (e.g. scattered:batch=8) or mpi\n");
}

/* The ranks of one node: the same "node-N" prefix of the processor name
 * (sim/platforms.py's hosts node-N and node-N-C), else MPI's shared split. */
static void split_nodes(int rank, MPI_Comm *node)
{
    char name[MPI_MAX_PROCESSOR_NAME];
    int len, number = -1, all_named;
    CHECK(MPI_Get_processor_name(name, &len));
    if (sscanf(name, "node-%d", &number) != 1) number = -1;
    int named = number >= 0;
    CHECK(MPI_Allreduce(&named, &all_named, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
    if (all_named)
        CHECK(MPI_Comm_split(MPI_COMM_WORLD, number, rank, node));
    else
        CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node));
}

#ifdef XCHG_SIMGRID_ROUTES
static int is_node_link(const char *name) { return strstr(name, "-core") || strstr(name, "-mem"); }

/* Bytes per platform link when every block of this rank takes its route,
 * summed over ranks; rank 0 prints the busiest shared network and node links. */
static void print_busiest_links(const int *scounts, int rank, int size)
{
    size_t nlinks = sg_link_count();
    sg_link_t *links = sg_link_list();
    if (rank == 0) /* the ranks share one address space: number the links once */
        for (size_t l = 0; l < nlinks; l++) sg_link_set_data(links[l], (void *)(intptr_t)(l + 1));
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    char *names = malloc((size_t)size * MPI_MAX_PROCESSOR_NAME), mine[MPI_MAX_PROCESSOR_NAME] = {0};
    int len;
    CHECK(MPI_Get_processor_name(mine, &len));
    CHECK(MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                  MPI_COMM_WORLD));
    double *load = calloc(nlinks, sizeof(double)), *total = calloc(nlinks, sizeof(double));
    sg_host_t self = sg_host_by_name(mine);
    xbt_dynar_t route = xbt_dynar_new(sizeof(sg_link_t), NULL);
    for (int p = 0; p < size; p++) {
        if (p == rank || scounts[p] == 0) continue;
        xbt_dynar_reset(route);
        sg_host_get_route(self, sg_host_by_name(names + (size_t)p * MPI_MAX_PROCESSOR_NAME), route);
        unsigned i;
        sg_link_t link;
        xbt_dynar_foreach (route, i, link) {
            intptr_t id = (intptr_t)sg_link_get_data(link);
            if (id > 0) load[id - 1] += scounts[p];
        }
    }
    xbt_dynar_free(&route);
    CHECK(MPI_Reduce(load, total, (int)nlinks, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
    if (rank == 0) {
        double worst[2] = {0, 0};
        const char *which[2] = {"-", "-"};
        for (size_t l = 0; l < nlinks; l++) {
            if (!sg_link_is_shared(links[l]) || total[l] == 0) continue;
            const char *name = sg_link_get_name(links[l]);
            int k = is_node_link(name);
            double t = total[l] / sg_link_get_bandwidth(links[l]);
            if (t > worst[k]) worst[k] = t, which[k] = name;
        }
        printf("links,%s,%.9g,%s,%.9g\n", which[0], worst[0], which[1], worst[1]);
    }
    xbt_free(links);
    free(names);
    free(load);
    free(total);
}
#else
static void print_busiest_links(const int *scounts, int rank, int size)
{
    (void)scounts, (void)rank, (void)size;
}
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, status = 0;
    CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    const char *coll = "alltoallv";
    int64_t s = 1024;
    dist_kind dist = DIST_UNIFORM;
    int iters = 2, warmup = 0, verify = 1, shared = 0, header = 0, p2p_barrier = 0;
    uint64_t seed = 1;
    double skew_mif = 0;
    int skew_dist = SKEW_UNIFORM;
    int first_algo = argc;
    for (int a = 1; a < argc; a++) {
        const char *o = argv[a];
        int has_val = a + 1 < argc;
        if (!strcmp(o, "--coll") && has_val) coll = argv[++a];
        else if (!strcmp(o, "-s") && has_val) s = atoll(argv[++a]);
        else if (!strcmp(o, "-i") && has_val) iters = atoi(argv[++a]);
        else if (!strcmp(o, "-x") && has_val) warmup = atoi(argv[++a]);
        else if (!strcmp(o, "--seed") && has_val) seed = strtoull(argv[++a], NULL, 10);
        else if (!strcmp(o, "--no-verify")) verify = 0;
        else if (!strcmp(o, "--shared-buffers")) shared = 1, verify = 0;
        else if (!strcmp(o, "--header")) header = 1;
        else if (!strcmp(o, "--p2p-barrier")) p2p_barrier = 1;
        else if (!strcmp(o, "--skew") && has_val) {
            skew_mif = atof(argv[++a]);
            if (!(skew_mif > 0)) { if (!rank) usage(); MPI_Finalize(); return 2; }
        } else if (!strcmp(o, "--skew-dist") && has_val) {
            const char *d = argv[++a];
            if (strcmp(d, "uniform") && strcmp(d, "one-late")) { if (!rank) usage(); MPI_Finalize(); return 2; }
            skew_dist = strcmp(d, "one-late") ? SKEW_UNIFORM : SKEW_ONE_LATE;
        }
        else if (!strcmp(o, "--dist") && has_val) {
            const char *d = argv[++a];
            int k = 0;
            while (k < NUM_DISTS && strcmp(d, dist_names[k])) k++;
            if (k == NUM_DISTS) { if (!rank) usage(); MPI_Finalize(); return 2; }
            dist = (dist_kind)k;
        } else if (o[0] == '-') {
            if (!rank) usage();
            MPI_Finalize();
            return 2;
        } else {
            first_algo = a;
            break;
        }
    }
    int is_alltoall = !strcmp(coll, "alltoall"), is_allgather = !strcmp(coll, "allgather");
    int is_allgatherv = !strcmp(coll, "allgatherv");
    if ((!is_alltoall && !is_allgather && !is_allgatherv && strcmp(coll, "alltoallv")) ||
        first_algo == argc ||
        iters < 1 || ((is_alltoall || is_allgather) && dist != DIST_UNIFORM) || s < 0 ||
        s > INT32_MAX / 64) {
        if (!rank) usage();
        MPI_Finalize();
        return 2;
    }

    /* Counts and displacements (bytes) of this rank, both directions. */
    int *scounts = malloc(size * sizeof(int)), *rcounts = malloc(size * sizeof(int));
    int *sdispls = malloc(size * sizeof(int)), *rdispls = malloc(size * sizeof(int));
    int64_t stotal = 0, rtotal = 0;
    for (int p = 0; p < size; p++) {
        scounts[p] = is_allgatherv ? block_bytes(dist, s, seed, rank, (rank + 1) % size)
                                   : block_bytes(dist, s, seed, rank, p);
        rcounts[p] = is_allgatherv ? block_bytes(dist, s, seed, p, (p + 1) % size)
                                   : block_bytes(dist, s, seed, p, rank);
        sdispls[p] = (int)stotal;
        rdispls[p] = (int)rtotal;
        stotal += scounts[p];
        rtotal += rcounts[p];
    }
    if (stotal > INT32_MAX || rtotal > INT32_MAX) {
        if (!rank) fprintf(stderr, "xchg-simbench: buffers over 2 GiB\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    unsigned char *sbuf = alloc_buffer(stotal, shared), *rbuf = alloc_buffer(rtotal, shared);
    /* allgather sends block 0, pattern(rank, 0, k), to everyone; the other
     * blocks differ, so sending from the wrong place fails the check */
    if (verify)
        for (int p = 0; p < size; p++)
            for (int64_t k = 0; k < scounts[p]; k++) sbuf[sdispls[p] + k] = pattern(rank, p, k);

    /* Node layout (MPI_COMM_TYPE_SHARED) and bytes that leave ranks and nodes. */
    MPI_Comm node;
    int node_rank, q, nodes, is_leader;
    split_nodes(rank, &node);
    CHECK(MPI_Comm_rank(node, &node_rank));
    CHECK(MPI_Comm_size(node, &q));
    is_leader = node_rank == 0;
    CHECK(MPI_Allreduce(&is_leader, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    int leader = rank;
    CHECK(MPI_Bcast(&leader, 1, MPI_INT, 0, node));
    int *leader_of = malloc(size * sizeof(int));
    CHECK(MPI_Allgather(&leader, 1, MPI_INT, leader_of, 1, MPI_INT, MPI_COMM_WORLD));
    int64_t mine[3] = {0, 0, 0}, node_sums[2], maxes[4];
    for (int p = 0; p < size; p++) {
        if (p != rank) mine[0] += scounts[p];
        if (leader_of[p] != leader) mine[1] += scounts[p], mine[2] += rcounts[p];
    }
    CHECK(MPI_Allreduce(mine + 1, node_sums, 2, MPI_INT64_T, MPI_SUM, node));
    int64_t local4[4] = {mine[0], mine[1], node_sums[0], node_sums[1]};
    CHECK(MPI_Allreduce(local4, maxes, 4, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD));
    int64_t total_offnode = 0, crossings = mine[1];
    if (is_allgatherv) { /* what any schedule must move (header) */
        int64_t offnode_in = 0;
        for (int p = 0; p < size; p++)
            if (leader_of[p] != leader) offnode_in += rcounts[p];
        int64_t out_in[2] = {nodes > 1 ? scounts[0] : 0, is_leader ? offnode_in : 0};
        CHECK(MPI_Allreduce(out_in, node_sums, 2, MPI_INT64_T, MPI_SUM, node));
        int64_t once[4] = {scounts[0], out_in[0], node_sums[0], node_sums[1]};
        CHECK(MPI_Allreduce(once, maxes, 4, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD));
        crossings = scounts[0] * (int64_t)(nodes - 1);
    }
    CHECK(MPI_Allreduce(&crossings, &total_offnode, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));

    /* The collectives run on a duplicate of MPI_COMM_WORLD that is freed
     * before MPI_Finalize: xchg's per-communicator state (e.g. the MPI windows
     * of rma_direct and shm_direct) is then released by a collective
     * MPI_Win_free while every rank is still alive. Left to MPI_Finalize (an
     * attribute of MPI_COMM_WORLD), SMPI 3.32 aborts in that MPI_Win_free
     * ("Actor pid=N is gone??", smpi_request.cpp:531): its barrier meets
     * ranks that have already finalized. */
    MPI_Comm work;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &work));

    double message_us = skew_mif > 0 ? measure_message_us(s) : 0;
    if (!is_allgatherv) print_busiest_links(scounts, rank, size);

    if (rank == 0 && header)
        printf("coll,algo,P,nodes,Q,S,dist,iters,t_min,t_avg,t_max,max_rank_send,"
               "max_rank_offnode_send,max_node_offnode_send,max_node_offnode_recv,total_offnode,verified%s\n",
               skew_mif > 0 ? ",skew_mif,skew_dist,message_us,span_min,span_avg,span_max" : "");

    for (int a = first_algo; a < argc; a++) {
        const char *algo = argv[a];
        int use_mpi = !strcmp(algo, "mpi"), rc = MPI_SUCCESS, bad = 0;
        if (!use_mpi) {
            /* "auto": no choice on the communicator, xchg selects by itself */
            rc = XCHG_Comm_set_algorithm(work, coll, strcmp(algo, "auto") ? algo : "");
            if (rc != MPI_SUCCESS) {
                if (!rank) fprintf(stderr, "xchg-simbench: %s: %s\n", algo, XCHG_Last_error());
                status = 1;
                continue;
            }
        }
        double tmin = 1e300, tsum = 0, tmax = 0, smin = 1e300, ssum = 0, smax = 0;
        for (int it = 0; it < warmup + iters; it++) {
            if (verify && it == 0) memset(rbuf, 0xA5, rtotal);
            CHECK(timing_barrier(p2p_barrier, rank, size));
            double t0 = MPI_Wtime(), tb = t0;
            if (skew_mif > 0) {
                skew_wait(tb, skew_delay(skew_mif, skew_dist, message_us, seed,
                                         it < warmup ? -1 - it : it - warmup, rank, size));
                t0 = MPI_Wtime();
            }
            if (is_alltoall)
                rc = use_mpi ? MPI_Alltoall(sbuf, (int)s, MPI_BYTE, rbuf, (int)s, MPI_BYTE, work)
                             : XCHG_Alltoall(sbuf, (int)s, MPI_BYTE, rbuf, (int)s, MPI_BYTE, work);
            else if (is_allgather)
                rc = use_mpi ? MPI_Allgather(sbuf, (int)s, MPI_BYTE, rbuf, (int)s, MPI_BYTE, work)
                             : XCHG_Allgather(sbuf, (int)s, MPI_BYTE, rbuf, (int)s, MPI_BYTE, work);
            else if (is_allgatherv) /* the own block, sbuf's first, to everyone */
                rc = use_mpi ? MPI_Allgatherv(sbuf, scounts[0], MPI_BYTE, rbuf, rcounts, rdispls,
                                              MPI_BYTE, work)
                             : XCHG_Allgatherv(sbuf, scounts[0], MPI_BYTE, rbuf, rcounts, rdispls,
                                               MPI_BYTE, work);
            else
                rc = use_mpi ? MPI_Alltoallv(sbuf, scounts, sdispls, MPI_BYTE, rbuf, rcounts,
                                             rdispls, MPI_BYTE, work)
                             : XCHG_Alltoallv(sbuf, scounts, sdispls, MPI_BYTE, rbuf, rcounts,
                                              rdispls, MPI_BYTE, work);
            double t1 = MPI_Wtime(), t = t1 - t0, tall, span = 0;
            if (rc != MPI_SUCCESS) bad = 1;
            if (verify && it == 0)
                for (int p = 0; p < size && !bad; p++)
                    for (int64_t k = 0; k < rcounts[p]; k++)
                        if (rbuf[rdispls[p] + k] !=
                            pattern(p, is_allgather || is_allgatherv ? 0 : rank, k)) {
                            fprintf(stderr, "xchg-simbench: %s: rank %d: byte %lld from rank %d wrong\n",
                                    algo, rank, (long long)k, p);
                            bad = 1;
                            break;
                        }
            if (skew_mif > 0) { /* completion time (mean) and span */
                double arr = t0 - tb, lv = t1 - tb, first, last;
                CHECK(MPI_Allreduce(&t, &tall, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
                tall /= size;
                CHECK(MPI_Allreduce(&arr, &first, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD));
                CHECK(MPI_Allreduce(&lv, &last, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
                span = last - first;
            } else {
                CHECK(MPI_Allreduce(&t, &tall, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
            }
            if (it >= warmup) {
                tmin = tall < tmin ? tall : tmin;
                tmax = tall > tmax ? tall : tmax;
                tsum += tall;
                smin = span < smin ? span : smin;
                smax = span > smax ? span : smax;
                ssum += span;
            }
        }
        int anybad = 0;
        CHECK(MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
        if (anybad) status = 1;
        if (rank == 0) {
            printf("%s,%s,%d,%d,%d,%lld,%s,%d,%.9g,%.9g,%.9g,%lld,%lld,%lld,%lld,%lld,%s", coll,
                   algo, size, nodes, q, (long long)s, dist_names[dist], iters, tmin, tsum / iters,
                   tmax, (long long)maxes[0], (long long)maxes[1], (long long)maxes[2],
                   (long long)maxes[3], (long long)total_offnode, anybad ? "FAIL" : verify ? "ok" : "skipped");
            if (skew_mif > 0)
                printf(",%g,%s,%.6g,%.9g,%.9g,%.9g", skew_mif,
                       skew_dist == SKEW_ONE_LATE ? "one-late" : "uniform", message_us, smin,
                       ssum / iters, smax);
            printf("\n");
            fflush(stdout);
        }
    }
    free(leader_of);
    CHECK(MPI_Comm_free(&work));
    CHECK(MPI_Comm_free(&node));
    free_buffer(sbuf, shared);
    free_buffer(rbuf, shared);
    free(scounts); free(rcounts); free(sdispls); free(rdispls);
    MPI_Finalize();
    return status;
}
