/*
 * xchg-harness: checks every registered algorithm byte for byte against the
 * MPI library's own collective (PMPI_Alltoallv, PMPI_Alltoall,
 * PMPI_Allgather, PMPI_Allgatherv, PMPI_Alltoallw: tests/alltoallw.c).
 *
 * One launch covers many communicator sizes: for each P in --sizes the first
 * P ranks of MPI_COMM_WORLD form a communicator (the others wait). For each
 * virtual node layout (XCHG_VIRTUAL_NODES / XCHG_VIRTUAL_PLACEMENT, read when
 * xchg first sees a communicator) a fresh duplicate is made. On it, for every
 * algorithm of the registry and every parameter point generated from its
 * descriptor, a rotating set of cases runs: count patterns, datatypes,
 * displacement layouts and MPI_IN_PLACE. Both receive buffers start with the
 * same bytes and are compared whole, gaps included.
 *
 * Usage: xchg-harness [--quick] [--sizes=1,2,3] [--layouts=N] [--points=N]
 *                     [--points-small=N] [--layouts-large=N] [--no-sweep] [--no-bad-input]
 *                     [--leak-test=N] [--seed=S] [--case-timeout=SEC] [--verbose]
 *                     [--only=alltoallv[:scattered]]
 * e.g. mpirun -n 8 build/tests/xchg-harness --quick --sizes=5,8 --only=alltoall:bruck
 * The last line on rank 0 is "N passed, N failed"; the exit status is non-zero
 * on any failure, on every rank.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <unistd.h>

#include "../src/core/context.h"
#include "../src/core/topology.h"
#include "harness.h"

typedef struct options {
    int sizes[32], num_sizes;
    int quick, verbose, sweep, bad_input, leak_iterations;
    int num_layouts;         /* how many of the layout table to use */
    int num_layouts_large;   /* the same for P > 8 */
    int max_points;          /* per algorithm per (P, layout) */
    int max_points_small;    /* the same at P <= 4 */
    uint64_t seed;
    const char *only;        /* "alltoallv" or "alltoallv:scattered": sweep only that */
} options;

typedef struct layout {
    const char *nodes, *placement, *name;
} layout;

/* "" = no virtual nodes: the real topology (one node on one machine). */
static const layout layouts[] = {
    {"", "", "one_node"},          {"2", "block", "nodes_of_2"},
    {"3", "cyclic", "nodes_of_3_cyclic"}, {"4", "block", "nodes_of_4"},
    {"3,2,4", "block", "3,2,4_block"}, {"1,5", "cyclic", "1,5_cyclic"},
    {"4", "cyclic", "nodes_of_4_cyclic"}, {"3,2,4", "cyclic", "3,2,4_cyclic"},
    {"1,5", "block", "1,5_block"},   {"3", "block", "nodes_of_3"},
    {"2", "cyclic", "nodes_of_2_cyclic"}, {"1", "block", "nodes_of_1"},
};
#define NUM_LAYOUTS ((int)(sizeof layouts / sizeof layouts[0]))

static const char *const coll_names[XCHG_NUM_COLL] = {
    [XCHG_ALLTOALL] = "alltoall", [XCHG_ALLTOALLV] = "alltoallv", [XCHG_ALLGATHER] = "allgather",
    [XCHG_NEIGHBOR_ALLTOALLV] = "neighbor_alltoallv", [XCHG_ALLTOALLW] = "alltoallw",
    [XCHG_ALLGATHERV] = "allgatherv"};
/* The collectives the sweep covers, in order. */
static const xchg_coll swept[] = {XCHG_ALLTOALL, XCHG_ALLTOALLV, XCHG_ALLGATHER, XCHG_ALLTOALLW,
                                  XCHG_ALLGATHERV};
#define NUM_SWEPT ((int)(sizeof swept / sizeof swept[0]))
const char *coll_name(xchg_coll coll) { return coll_names[coll]; }

char current_case[1024];
static int world_rank;
static test_type *types;
static int num_types;

int is_world_root(void) { return world_rank == 0; }

int fail_msg(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "FAIL %s [world rank %d]: %s\n", current_case, world_rank, msg);
    fflush(stderr);
    return 0;
}

int record_case(MPI_Comm comm, int ok, tally *t)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (world_rank == 0) {
        if (all) t->passed++;
        else t->failed++;
    }
    return all;
}

/* ---- checking one call ---------------------------------------------------- */

static int check_buffers(const unsigned char *got, const unsigned char *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            return fail_msg("first differing byte at offset %zu of %zu: xchg 0x%02x, MPI 0x%02x",
                            i, n, got[i], want[i]);
    return 1;
}

int harness_check_call(MPI_Comm comm, xchg_coll coll, int rc, const char *selection,
                       const unsigned char *got, const unsigned char *want, size_t n)
{
    char used[512];
    if (rc != MPI_SUCCESS)
        return fail_msg("returned error %d: %s", rc, XCHG_Last_error());
    if (!check_buffers(got, want, n)) return 0;
    XCHG_Comm_get_algorithm(comm, coll_names[coll], 1, 0, used, sizeof used);
    if (strcmp(used, selection) != 0)
        return fail_msg("last used algorithm is '%s', expected '%s'", used, selection);
    return 1;
}

typedef struct case_spec {
    xchg_coll coll;
    const char *selection;   /* full selection string */
    const char *layout;
    int pattern;             /* alltoallv, allgatherv (contributions) */
    int block;               /* alltoall/allgather: receive elements per peer */
    const test_type *type;
    int displ;               /* alltoallv, allgatherv */
    int in_place;
    int starts;              /* > 0: a persistent request (XCHG_*_init), started
                                this many times with new data each time */
    uint64_t seed;
} case_spec;

/* An info object that selects `selection` for a persistent request. */
static MPI_Info selection_info(const char *selection)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "xchg_algorithm", selection);
    return info;
}

/* Start and complete a persistent request: with XCHG_Wait, or (`poll`) by
 * calling XCHG_Test until it reports completion. Error codes pass on. */
int harness_start_and_wait(XCHG_Request *req, int poll)
{
    int rc = XCHG_Start(req), flag = 0;
    if (rc != MPI_SUCCESS) return rc;
    if (!poll) return XCHG_Wait(req, MPI_STATUS_IGNORE);
    while (rc == MPI_SUCCESS && !flag) rc = XCHG_Test(req, &flag, MPI_STATUS_IGNORE);
    return rc;
}

static void describe_case(MPI_Comm comm, const case_spec *c)
{
    int size;
    MPI_Comm_size(comm, &size);
    if (xchg_coll_is_v(c->coll) || c->coll == XCHG_ALLGATHERV)
        snprintf(current_case, sizeof current_case,
                 "%s algo=%s P=%d layout=%s pattern=%s type=%s displs=%s in_place=%d "
                 "starts=%d seed=%llu",
                 coll_names[c->coll], c->selection, size, c->layout, pattern_names[c->pattern],
                 c->coll == XCHG_ALLTOALLW ? "per-peer" : c->type->name,
                 displ_names[c->displ], c->in_place, c->starts, (unsigned long long)c->seed);
    else
        snprintf(current_case, sizeof current_case,
                 "%s algo=%s P=%d layout=%s block=%d type=%s in_place=%d starts=%d seed=%llu",
                 coll_names[c->coll], c->selection, size, c->layout, c->block, c->type->name,
                 c->in_place, c->starts, (unsigned long long)c->seed);
}

static int run_alltoallv(MPI_Comm comm, const case_spec *c)
{
    int rank, size, ok = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const test_type *t = c->type;
    int *sc = malloc(4 * (size_t)size * sizeof(int));
    int *sd = sc + size, *rcnt = sd + size, *rd = rcnt + size;
    for (int p = 0; p < size; p++) {
        rcnt[p] = pattern_count(c->pattern, c->seed, p, rank, size, t->size, c->in_place);
        sc[p] = pattern_count(c->pattern, c->seed, rank, p, size, t->size, c->in_place);
        if (!c->in_place) sc[p] *= t->send_mult;
    }
    int64_t rspan = layout_displs(c->displ, rcnt, size, rd);
    int64_t sspan = layout_displs(c->displ, sc, size, sd);
    size_t rbytes = (size_t)(rspan * t->recv_extent) + 64, sbytes = (size_t)(sspan * t->send_extent) + 64;
    unsigned char *sendbuf = malloc(sbytes), *got = malloc(rbytes), *want = malloc(rbytes);
    const void *sb = c->in_place ? MPI_IN_PLACE : sendbuf;
    const int *scounts = c->in_place ? rcnt : sc, *sdispls = c->in_place ? rd : sd;
    MPI_Datatype stype = c->in_place ? t->recv : t->send;
    XCHG_Request req = XCHG_REQUEST_NULL;
    int rc = MPI_SUCCESS;
    ok = 1;
    if (c->starts) {
        MPI_Info info = selection_info(c->selection);
        rc = XCHG_Alltoallv_init(sb, scounts, sdispls, stype, got, rcnt, rd, t->recv, comm, info,
                                 &req);
        MPI_Info_free(&info);
        if (rc != MPI_SUCCESS) ok = fail_msg("XCHG_Alltoallv_init: %d: %s", rc, XCHG_Last_error());
    }
    /* Every rank makes every call, also after a failure (no rank may leave a
     * collective the others enter); the first failure is reported. */
    for (int call = 0; call < (c->starts ? c->starts : 1); call++) {
        fill_bytes(sendbuf, sbytes, c->seed + (uint64_t)call, rank, 2);
        fill_bytes(got, rbytes, c->seed + (uint64_t)call, rank, 3);
        memcpy(want, got, rbytes);
        if (c->starts) rc = req ? harness_start_and_wait(&req, call % 2) : rc;
        else rc = XCHG_Alltoallv(sb, scounts, sdispls, stype, got, rcnt, rd, t->recv, comm);
        int rrc = PMPI_Alltoallv(sb, scounts, sdispls, stype, want, rcnt, rd, t->recv, comm);
        if (rrc != MPI_SUCCESS) ok = ok && fail_msg("the reference PMPI_Alltoallv failed (%d)", rrc);
        else ok = ok && harness_check_call(comm, XCHG_ALLTOALLV, rc, c->selection, got, want, rbytes);
    }
    if (req) XCHG_Request_free(&req);
    free(sendbuf);
    free(got);
    free(want);
    free(sc);
    return ok;
}

/*
 * PMPI_Allgatherv, except on one rank without MPI_IN_PLACE: MPICH 4.0 then
 * copies the send block to the start of the receive buffer, ignoring
 * displs[0] (Open MPI places it right). There the reference is that copy,
 * made with MPI_Sendrecv on MPI_COMM_SELF, which is all the call does.
 */
static int reference_allgatherv(const void *sb, int sn, MPI_Datatype st, unsigned char *rb,
                                const int *rcnt, const int *rd, MPI_Datatype rt, MPI_Comm comm)
{
    int size;
    MPI_Aint lb, extent;
    MPI_Comm_size(comm, &size);
    if (size > 1 || sb == MPI_IN_PLACE) return PMPI_Allgatherv(sb, sn, st, rb, rcnt, rd, rt, comm);
    MPI_Type_get_extent(rt, &lb, &extent);
    return PMPI_Sendrecv(sb, sn, st, 0, 0, rb + (MPI_Aint)rd[0] * extent, rcnt[0], rt, 0, 0,
                         MPI_COMM_SELF, MPI_STATUS_IGNORE);
}

/*
 * Allgatherv: rank p contributes pattern_count(pattern, seed, p, p) receive
 * elements (patterns: all zero, one hot rank, sparse contributions, a large
 * one, ...), placed by the displacement layout (packed in rank order, or in
 * reverse rank order with gaps); the same counts and displacements on every
 * rank, as MPI requires.
 */
static int run_allgatherv(MPI_Comm comm, const case_spec *c)
{
    int rank, size, ok = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const test_type *t = c->type;
    int *rcnt = malloc(2 * (size_t)size * sizeof(int)), *rd = rcnt + size;
    for (int p = 0; p < size; p++) rcnt[p] = pattern_count(c->pattern, c->seed, p, p, size, t->size, 0);
    int64_t rspan = layout_displs(c->displ, rcnt, size, rd);
    int sn = c->in_place ? rcnt[rank] : rcnt[rank] * t->send_mult;
    size_t rbytes = (size_t)(rspan * t->recv_extent) + 64;
    size_t sbytes = (size_t)sn * (size_t)t->send_extent + 64;
    unsigned char *sendbuf = malloc(sbytes), *got = malloc(rbytes), *want = malloc(rbytes);
    const void *sb = c->in_place ? MPI_IN_PLACE : sendbuf;
    MPI_Datatype stype = c->in_place ? t->recv : t->send;
    XCHG_Request req = XCHG_REQUEST_NULL;
    int rc = MPI_SUCCESS;
    if (c->starts) {
        MPI_Info info = selection_info(c->selection);
        rc = XCHG_Allgatherv_init(sb, sn, stype, got, rcnt, rd, t->recv, comm, info, &req);
        MPI_Info_free(&info);
        if (rc != MPI_SUCCESS) ok = fail_msg("XCHG_Allgatherv_init: %d: %s", rc, XCHG_Last_error());
    }
    for (int call = 0; call < (c->starts ? c->starts : 1); call++) {
        fill_bytes(sendbuf, sbytes, c->seed + (uint64_t)call, rank, 2);
        fill_bytes(got, rbytes, c->seed + (uint64_t)call, rank, 3);
        memcpy(want, got, rbytes);
        if (c->starts) rc = req ? harness_start_and_wait(&req, call % 2) : rc;
        else rc = XCHG_Allgatherv(sb, sn, stype, got, rcnt, rd, t->recv, comm);
        int rrc = reference_allgatherv(sb, sn, stype, want, rcnt, rd, t->recv, comm);
        if (rrc != MPI_SUCCESS) ok = ok && fail_msg("the reference PMPI_Allgatherv failed (%d)", rrc);
        else ok = ok && harness_check_call(comm, XCHG_ALLGATHERV, rc, c->selection, got, want, rbytes);
    }
    if (req) XCHG_Request_free(&req);
    free(sendbuf);
    free(got);
    free(want);
    free(rcnt);
    return ok;
}

/*
 * PMPI_Alltoall, except where send and receive types differ: Open MPI 4.1's
 * coll/tuned alltoall (Bruck, chosen for small blocks at P >= 16) places
 * received blocks by the send type's extent and writes past the receive
 * buffer (vector(3,1,2,int) sent, contiguous(3,int) received: 960 bytes
 * written into 576). There the reference is PMPI_Alltoallv with uniform
 * counts, which defines the same result.
 */
static int reference_alltoall(const void *sb, int sn, MPI_Datatype st, void *rb, int rn,
                              MPI_Datatype rt, MPI_Comm comm)
{
    if (sb == MPI_IN_PLACE || st == rt) return PMPI_Alltoall(sb, sn, st, rb, rn, rt, comm);
    int size, rc;
    MPI_Comm_size(comm, &size);
    int *arrays = malloc(4 * (size_t)size * sizeof(int));
    int *sc = arrays, *sd = sc + size, *rc_ = sd + size, *rd = rc_ + size;
    for (int p = 0; p < size; p++) sc[p] = sn, sd[p] = p * sn, rc_[p] = rn, rd[p] = p * rn;
    rc = PMPI_Alltoallv(sb, sc, sd, st, rb, rc_, rd, rt, comm);
    free(arrays);
    return rc;
}

static int run_uniform(MPI_Comm comm, const case_spec *c)
{
    int rank, size, ok = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const test_type *t = c->type;
    int gather = c->coll == XCHG_ALLGATHER;
    int n = c->block, sn = c->in_place ? n : n * t->send_mult;
    size_t rbytes = (size_t)size * (size_t)n * (size_t)t->recv_extent + 64;
    size_t sbytes = (size_t)(gather ? 1 : size) * (size_t)sn * (size_t)t->send_extent + 64;
    unsigned char *sendbuf = malloc(sbytes), *got = malloc(rbytes), *want = malloc(rbytes);
    const void *sb = c->in_place ? MPI_IN_PLACE : sendbuf;
    MPI_Datatype stype = c->in_place ? t->recv : t->send;
    XCHG_Request req = XCHG_REQUEST_NULL;
    int rc = MPI_SUCCESS, rrc;
    ok = 1;
    if (c->starts) {
        MPI_Info info = selection_info(c->selection);
        rc = gather ? XCHG_Allgather_init(sb, sn, stype, got, n, t->recv, comm, info, &req)
                    : XCHG_Alltoall_init(sb, sn, stype, got, n, t->recv, comm, info, &req);
        MPI_Info_free(&info);
        if (rc != MPI_SUCCESS) ok = fail_msg("XCHG_*_init: %d: %s", rc, XCHG_Last_error());
    }
    for (int call = 0; call < (c->starts ? c->starts : 1); call++) {
        fill_bytes(sendbuf, sbytes, c->seed + (uint64_t)call, rank, 2);
        fill_bytes(got, rbytes, c->seed + (uint64_t)call, rank, 3);
        memcpy(want, got, rbytes);
        if (c->starts) rc = req ? harness_start_and_wait(&req, call % 2) : rc;
        else if (gather) rc = XCHG_Allgather(sb, sn, stype, got, n, t->recv, comm);
        else rc = XCHG_Alltoall(sb, sn, stype, got, n, t->recv, comm);
        rrc = gather ? PMPI_Allgather(sb, sn, stype, want, n, t->recv, comm)
                     : reference_alltoall(sb, sn, stype, want, n, t->recv, comm);
        if (rrc != MPI_SUCCESS) ok = ok && fail_msg("the reference PMPI call failed (%d)", rrc);
        else ok = ok && harness_check_call(comm, c->coll, rc, c->selection, got, want, rbytes);
    }
    if (req) XCHG_Request_free(&req);
    free(sendbuf);
    free(got);
    free(want);
    return ok;
}

/* A case that hangs (a deadlocked algorithm) names itself before the
 * launch's timeout kills everything: the watchdog prints the case and exits. */
static int case_timeout = 120;

static void watchdog(int sig)
{
    static const char head[] = "FAIL (hang: no progress for --case-timeout seconds) ";
    (void)sig;
    if (write(2, head, sizeof head - 1) < 0 ||
        write(2, current_case, strlen(current_case)) < 0 || write(2, "\n", 1) < 0)
        _exit(3);
    _exit(3);
}

static int run_case(MPI_Comm comm, const case_spec *c, tally *t)
{
    describe_case(comm, c);
    alarm((unsigned)case_timeout);
    int ok = c->coll == XCHG_ALLTOALLW
                 ? run_alltoallw(comm, c->selection, c->pattern, c->displ, c->in_place, c->starts,
                                 c->seed)
             : c->coll == XCHG_ALLTOALLV   ? run_alltoallv(comm, c)
             : c->coll == XCHG_ALLGATHERV ? run_allgatherv(comm, c)
                                          : run_uniform(comm, c);
    return record_case(comm, ok, t);
}

/* ---- a refused parameter point ------------------------------------------- */

/* applicable() refuses `selection` here: XCHG_Comm_set_algorithm must fail
 * with MPI_ERR_ARG, and a call that selects it through the environment must
 * fail without touching the receive buffer. */
static int check_refused(MPI_Comm comm, xchg_coll coll, const char *selection, const char *why)
{
    static const char *const env[XCHG_NUM_COLL] = {
        [XCHG_ALLTOALL] = "XCHG_ALLTOALL", [XCHG_ALLTOALLV] = "XCHG_ALLTOALLV",
        [XCHG_ALLGATHER] = "XCHG_ALLGATHER", [XCHG_ALLTOALLW] = "XCHG_ALLTOALLW",
        [XCHG_ALLGATHERV] = "XCHG_ALLGATHERV"};
    int rank, size, cls = -1, ok = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int rc = XCHG_Comm_set_algorithm(comm, coll_names[coll], selection);
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_ARG)
        ok = fail_msg("applicable() refuses (%s) but XCHG_Comm_set_algorithm returned %d", why, rc);
    else if (!XCHG_Last_error()[0])
        ok = fail_msg("refused selection left XCHG_Last_error() empty");

    XCHG_Comm_set_algorithm(comm, coll_names[coll], NULL);
    setenv(env[coll], selection, 1);
    int *counts = malloc(2 * (size_t)size * sizeof(int)), *displs = counts + size;
    int elems = 4 * size;
    int *sendbuf = malloc((size_t)elems * sizeof(int)), *recvbuf = malloc((size_t)elems * sizeof(int));
    int *before = malloc((size_t)elems * sizeof(int));
    for (int i = 0; i < elems; i++) sendbuf[i] = i, recvbuf[i] = before[i] = -1 - i;
    for (int p = 0; p < size; p++) counts[p] = 4, displs[p] = 4 * p;
    MPI_Datatype *types = malloc((size_t)size * sizeof(MPI_Datatype));
    int *bdispls = malloc((size_t)size * sizeof(int));
    for (int p = 0; p < size; p++) types[p] = MPI_INT, bdispls[p] = displs[p] * (int)sizeof(int);
    if (coll == XCHG_ALLTOALLV)
        rc = XCHG_Alltoallv(sendbuf, counts, displs, MPI_INT, recvbuf, counts, displs, MPI_INT, comm);
    else if (coll == XCHG_ALLTOALLW)
        rc = XCHG_Alltoallw(sendbuf, counts, bdispls, types, recvbuf, counts, bdispls, types, comm);
    else if (coll == XCHG_ALLTOALL)
        rc = XCHG_Alltoall(sendbuf, 4, MPI_INT, recvbuf, 4, MPI_INT, comm);
    else if (coll == XCHG_ALLGATHERV)
        rc = XCHG_Allgatherv(sendbuf, 4, MPI_INT, recvbuf, counts, displs, MPI_INT, comm);
    else
        rc = XCHG_Allgather(sendbuf, 4, MPI_INT, recvbuf, 4, MPI_INT, comm);
    unsetenv(env[coll]);
    cls = -1;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    if (ok && cls != MPI_ERR_ARG)
        ok = fail_msg("a call selecting a refused algorithm returned %d, not MPI_ERR_ARG", rc);
    if (ok && memcmp(recvbuf, before, (size_t)elems * sizeof(int)) != 0)
        ok = fail_msg("a refused call changed the receive buffer");
    free(counts);
    free(types);
    free(bdispls);
    free(sendbuf);
    free(recvbuf);
    free(before);
    return ok;
}

/* ---- the sweep ------------------------------------------------------------- */

typedef struct skip_stats {
    long long kept[XCHG_NUM_COLL][64], total[XCHG_NUM_COLL][64];
} skip_stats;

static int pick(uint64_t r, int n) { return (int)(r % (uint64_t)n); }

/* Cases for one parameter point: each pattern (or block size) once, with
 * datatype, displacement layout and MPI_IN_PLACE rotated by `rot`; `full`
 * runs every pattern with every datatype. */
static void run_point(MPI_Comm comm, xchg_coll coll, const char *selection, const char *lname,
                      uint64_t rot, int full, const options *o, tally *t)
{
    static const int blocks[] = {0, 1, 3, 64, 0 /* large: set below */};
    case_spec c = {.coll = coll, .selection = selection, .layout = lname};
    /* by pattern (alltoallv, alltoallw, allgatherv), else by block size */
    const int v = xchg_coll_is_v(coll) || coll == XCHG_ALLGATHERV;
    int ncases = v ? NUM_PATTERNS : 5;
    if (o->quick && !full) ncases = v ? 3 : 2;
    int ntypes = full ? num_types : 1;
    for (int i = 0; i < ncases; i++) {
        for (int k = 0; k < ntypes; k++) {
            int j = full ? i : (int)((i + rot) % (uint64_t)(v ? NUM_PATTERNS : 5));
            c.seed = h_hash(o->seed, rot, (uint64_t)i, (uint64_t)k);
            c.type = &types[full ? k : pick(rot + (uint64_t)i * 3, num_types)];
            c.pattern = j;
            c.block = v ? 0 : blocks[j];
            if (!v && j == 4) c.block = (int)((66000 + c.type->size - 1) / c.type->size);
            c.displ = pick(rot / 3 + (uint64_t)i + (uint64_t)k, NUM_DISPL);
            c.in_place = pick(rot / 7 + (uint64_t)i + (uint64_t)k, 3) == 0;
            /* One case in four is a persistent request started twice (the
             * second start sees new data, replays what the first recorded,
             * and completes by polling XCHG_Test). */
            c.starts = pick(rot / 11 + (uint64_t)i + 2 * (uint64_t)k, 4) == 0 ? 2 : 0;
            run_case(comm, &c, t);
        }
    }
}

static int selected(const options *o, xchg_coll coll, const xchg_algorithm *algo)
{
    char name[2 * XCHG_MAX_NAME];
    if (!o->only) return 1;
    snprintf(name, sizeof name, "%s:%s", coll_names[coll], algo->name);
    size_t n = strlen(o->only);
    return strncmp(name, o->only, n) == 0 && (name[n] == '\0' || name[n] == ':');
}

static void sweep_layout(MPI_Comm comm, int layout_index, int first_layout, const options *o,
                         tally *t, skip_stats *skips)
{
    int size;
    MPI_Comm_size(comm, &size);
    const char *lname = layouts[layout_index].name;
    for (int ci = 0; ci < NUM_SWEPT; ci++) {
        const int coll = (int)swept[ci];
        int n = xchg_registry_count((xchg_coll)coll);
        for (int a = 0; a < n && a < 64; a++) {
            const xchg_algorithm *algo = xchg_registry_get((xchg_coll)coll, a);
            if (!selected(o, (xchg_coll)coll, algo)) continue;
            int cap = size <= 4 ? o->max_points_small : o->max_points;
            /* alltoallw runs alltoallv's algorithms on the same paths with a
             * datatype per peer: a quarter of the points keeps the sweep's
             * time in bounds (every algorithm still runs every pattern). */
            if (coll == XCHG_ALLTOALLW) cap = (cap + 3) / 4;
            uint64_t salt = h_hash(o->seed, (uint64_t)size, (uint64_t)layout_index, (uint64_t)a);
            point_list pl;
            points_generate(algo, size, cap, salt, &pl);
            skips->kept[coll][a] += pl.count;
            skips->total[coll][a] += pl.total;
            if (o->verbose && pl.count < pl.total && is_world_root())
                printf("sampled %d of %d points: %s %s P=%d layout=%s\n", pl.count, pl.total,
                       coll_names[coll], algo->name, size, lname);
            for (int k = 0; k < pl.count; k++) {
                const char *sel = pl.text[k];
                xchg_choice choice;
                xchg_context *ctx;
                snprintf(current_case, sizeof current_case, "%s algo=%s P=%d layout=%s",
                         coll_names[coll], sel, size, lname);
                if (xchg_choice_parse((xchg_coll)coll, sel, &choice) != MPI_SUCCESS) {
                    record_case(comm, fail_msg("generated point does not parse: %s",
                                               XCHG_Last_error()), t);
                    continue;
                }
                xchg_context_get(comm, &ctx);
                const char *why = algo->applicable ? algo->applicable(ctx, &choice) : NULL;
                if (why) {
                    record_case(comm, check_refused(comm, (xchg_coll)coll, sel, why), t);
                    continue;
                }
                int rc = XCHG_Comm_set_algorithm(comm, coll_names[coll], sel);
                if (!record_case(comm, rc == MPI_SUCCESS || fail_msg("set_algorithm failed: %s",
                                                                      XCHG_Last_error()), t))
                    continue;
                uint64_t rot = h_hash(o->seed, (uint64_t)k, (uint64_t)layout_index, (uint64_t)size);
                run_point(comm, (xchg_coll)coll, sel, lname, rot, first_layout && k == 0, o, t);
            }
            points_free(&pl);
            XCHG_Comm_set_algorithm(comm, coll_names[coll], NULL);
        }
    }
}

/* The node of each rank under a layout, to skip layouts equal to one done. */
static void layout_nodes(int index, int size, int *node_of_rank)
{
    if (!layouts[index].nodes[0]) {
        for (int r = 0; r < size; r++) node_of_rank[r] = 0;
        return;
    }
    xchg_virtual_layout(layouts[index].nodes, layouts[index].placement, size, node_of_rank);
}

static void set_layout_env(int index)
{
    if (layouts[index].nodes[0]) {
        setenv("XCHG_VIRTUAL_NODES", layouts[index].nodes, 1);
        setenv("XCHG_VIRTUAL_PLACEMENT", layouts[index].placement, 1);
    } else {
        unsetenv("XCHG_VIRTUAL_NODES");
        unsetenv("XCHG_VIRTUAL_PLACEMENT");
    }
}

static void sweep_size(MPI_Comm comm, const options *o, tally *t, skip_stats *skips)
{
    int size;
    MPI_Comm_size(comm, &size);
    int *seen = malloc((size_t)NUM_LAYOUTS * (size_t)size * sizeof(int));
    int num_seen = 0;
    int num_layouts = size > 8 ? o->num_layouts_large : o->num_layouts;
    for (int l = 0; l < num_layouts && l < NUM_LAYOUTS; l++) {
        int *nodes = seen + (size_t)num_seen * (size_t)size, dup = 0;
        layout_nodes(l, size, nodes);
        for (int s = 0; s < num_seen && !dup; s++)
            dup = memcmp(seen + (size_t)s * (size_t)size, nodes, (size_t)size * sizeof(int)) == 0;
        if (dup) continue;
        num_seen++;
        double t0 = MPI_Wtime();
        long long before = t->passed + t->failed;
        set_layout_env(l);
        MPI_Comm lcomm;
        MPI_Comm_dup(comm, &lcomm);
        MPI_Comm_set_errhandler(lcomm, MPI_ERRORS_RETURN);
        if (o->sweep) sweep_layout(lcomm, l, num_seen == 1, o, t, skips);
        if (o->sweep) bottom_run(lcomm, layouts[l].name, t);
        if (o->bad_input && num_seen == 1) badinput_run(lcomm, layouts[l].name, t);
        if (o->bad_input && num_seen == 1) alltoallw_badinput_run(lcomm, layouts[l].name, t);
        if (o->bad_input && num_seen == 1) requests_run(lcomm, layouts[l].name, t);
        MPI_Comm_free(&lcomm);
        set_layout_env(0);
        if (is_world_root()) {
            printf("P=%-2d layout=%-18s %6lld cases %6.1f s\n", size, layouts[l].name,
                   t->passed + t->failed - before, MPI_Wtime() - t0);
            fflush(stdout);
        }
    }
    free(seen);
}

/* Wait for every rank without spinning: ranks outside the current
 * communicator would otherwise take CPU from the ones testing. */
static void idle_barrier(MPI_Comm comm)
{
    MPI_Request req;
    int done = 0;
    struct timespec nap = {0, 2000000};
    MPI_Ibarrier(comm, &req);
    while (!done) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (!done) nanosleep(&nap, NULL);
    }
}

static int parse_options(int argc, char **argv, options *o)
{
    static const int default_sizes[] = {1, 2, 3, 4, 5, 7, 8, 12, 16};
    memset(o, 0, sizeof *o);
    o->sweep = o->bad_input = 1;
    o->num_layouts = NUM_LAYOUTS;
    o->num_layouts_large = -1;
    o->max_points = 8;
    o->max_points_small = 64;
    o->seed = 1;
    o->num_sizes = -1;
    if (getenv("XCHG_TEST_QUICK") && strcmp(getenv("XCHG_TEST_QUICK"), "1") == 0) o->quick = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--quick") == 0) o->quick = 1;
        else if (strcmp(a, "--verbose") == 0) o->verbose = 1;
        else if (strcmp(a, "--no-sweep") == 0) o->sweep = 0;
        else if (strcmp(a, "--no-bad-input") == 0) o->bad_input = 0;
        else if (strncmp(a, "--leak-test=", 12) == 0) o->leak_iterations = atoi(a + 12);
        else if (strncmp(a, "--layouts=", 10) == 0) o->num_layouts = atoi(a + 10);
        else if (strncmp(a, "--layouts-large=", 16) == 0) o->num_layouts_large = atoi(a + 16);
        else if (strncmp(a, "--points=", 9) == 0) o->max_points = atoi(a + 9);
        else if (strncmp(a, "--points-small=", 15) == 0) o->max_points_small = atoi(a + 15);
        else if (strncmp(a, "--only=", 7) == 0) o->only = a + 7;
        else if (strncmp(a, "--case-timeout=", 15) == 0) case_timeout = atoi(a + 15);
        else if (strncmp(a, "--seed=", 7) == 0) o->seed = strtoull(a + 7, NULL, 10);
        else if (strncmp(a, "--sizes=", 8) == 0) {
            o->num_sizes = 0;
            for (char *p = (char *)a + 8; *p && o->num_sizes < 32;) {
                o->sizes[o->num_sizes++] = (int)strtol(p, &p, 10);
                if (*p == ',') p++;
            }
        } else {
            if (is_world_root()) fprintf(stderr, "xchg-harness: unknown option %s\n", a);
            return 1;
        }
    }
    if (o->num_sizes < 0) {
        o->num_sizes = 0;
        for (size_t i = 0; i < sizeof default_sizes / sizeof default_sizes[0]; i++)
            o->sizes[o->num_sizes++] = default_sizes[i];
    }
    if (o->quick) {
        if (o->num_layouts > 5) o->num_layouts = 5;
        if (o->max_points > 4) o->max_points = 4;
        if (o->max_points_small > 16) o->max_points_small = 16;
    }
    if (o->num_layouts_large < 0 || o->num_layouts_large > o->num_layouts)
        o->num_layouts_large = o->num_layouts;
    return 0;
}

/*
 * The registry is consistent: names are unique per collective and each
 * descriptor serves the collective it is listed under. (That every algorithm
 * the library defines is registered, and nothing else, is checked on the
 * built library by tests/check-inventory.sh, so adding an algorithm needs no
 * edit here.)
 * The sweep reaches the shared code through the algorithms built on it:
 * src/coll/nodeaware/engine.c (hierarchical, multileader, node_aware,
 * locality_aware, multileader_node_aware, every layout, blocking and
 * persistent), src/coll/nodeaware/regions.c (locality_aware:groups=numa and
 * groups=socket, swept as the parameter's special values) and
 * src/coll/alltoallv/parlinna_common.c (parlinna_coalesced and
 * parlinna_staggered, one node and several, blocking and persistent).
 */
static void check_registry(tally *t)
{
    for (int c = 0; c < XCHG_NUM_COLL; c++)
        for (int i = 0; i < xchg_registry_count((xchg_coll)c); i++) {
            const xchg_algorithm *algo = xchg_registry_get((xchg_coll)c, i);
            snprintf(current_case, sizeof current_case, "registry: %s %s", coll_names[c],
                     algo->name);
            /* alltoallw is served by alltoallv's descriptors (registry.c) */
            xchg_coll table = c == XCHG_ALLTOALLW ? XCHG_ALLTOALLV : (xchg_coll)c;
            int ok = algo->coll == table && algo->run != NULL &&
                     xchg_registry_find((xchg_coll)c, algo->name) == algo &&
                     (algo->init != NULL || algo->destroy == NULL);
            if (!ok) fail_msg("inconsistent descriptor (collective, name, run, init/destroy)");
            record_case(MPI_COMM_WORLD, ok, t);
        }
}

int main(int argc, char **argv)
{
    options o;
    tally t = {0, 0};
    static skip_stats skips;
    int world_size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (parse_options(argc, argv, &o)) {
        MPI_Finalize();
        return 2;
    }
    /* The harness chooses algorithms itself; stray settings would interfere. */
    unsetenv("XCHG_ALLTOALL");
    unsetenv("XCHG_ALLTOALLV");
    unsetenv("XCHG_ALLGATHER");
    unsetenv("XCHG_ALLTOALLW");
    unsetenv("XCHG_ALLGATHERV");
    set_layout_env(0);
    types_create(&types, &num_types);
    alltoallw_types_create();
    signal(SIGALRM, watchdog);
    double t0 = MPI_Wtime();
    check_registry(&t);

    for (int i = 0; i < o.num_sizes; i++) {
        int size = o.sizes[i];
        if (size < 1 || size > world_size) continue;
        MPI_Comm comm;
        MPI_Comm_split(MPI_COMM_WORLD, world_rank < size ? 0 : MPI_UNDEFINED, world_rank, &comm);
        if (comm != MPI_COMM_NULL) {
            MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
            sweep_size(comm, &o, &t, &skips);
            MPI_Comm_free(&comm);
        }
        idle_barrier(MPI_COMM_WORLD);
    }
    alarm(0);
    if (o.leak_iterations > 0) leaks_run(MPI_COMM_WORLD, o.leak_iterations, &t);

    if (is_world_root()) {
        for (int c = 0; c < XCHG_NUM_COLL; c++)
            for (int a = 0; a < xchg_registry_count((xchg_coll)c) && a < 64; a++)
                if (skips.kept[c][a] < skips.total[c][a])
                    printf("sampled: %s %s ran %lld of %lld parameter points (skipped %lld)\n",
                           coll_names[c], xchg_registry_get((xchg_coll)c, a)->name,
                           skips.kept[c][a], skips.total[c][a],
                           skips.total[c][a] - skips.kept[c][a]);
        printf("world size %d, %.1f s\n", world_size, MPI_Wtime() - t0);
    }
    types_free(types, num_types);
    alltoallw_types_free();
    long long failed = t.failed;
    MPI_Bcast(&failed, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (is_world_root()) {
        printf("%lld passed, %lld failed\n", t.passed, t.failed);
        fflush(stdout);
    }
    MPI_Finalize();
    return failed ? 1 : 0;
}
