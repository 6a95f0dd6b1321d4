/*
 * The nonblocking and persistent dense collectives of a plain MPI program
 * (it knows nothing of xchg and runs the same with or without
 * libxchg-mpi.so): MPI_Ialltoall, MPI_Ialltoallv, MPI_Ialltoallw,
 * MPI_Iallgather, MPI_Iallgatherv and their persistent forms (MPI-4's
 * MPI_Alltoall_init, ... or Open MPI's MPIX_Alltoall_init, ..., whichever
 * the MPI has). Every result is compared byte for byte, gaps included, with
 * the MPI library's own blocking collective (PMPI_Alltoall, ...) on the same
 * arguments. The cases: uneven counts with zero blocks and gaps, blocks of
 * count 0 everywhere, MPI_IN_PLACE (every collective, symmetric counts
 * where MPI needs them), a derived datatype (a strided vector of ints) on
 * the send side, on the receive side, and per peer (alltoallw).
 *   - nonblocking: all cases in flight at once on one communicator, in one
 *     MPI_Waitall array with the program's own MPI_Isend/MPI_Irecv and an
 *     MPI_REQUEST_NULL; then completed by an MPI_Testany loop, then by
 *     MPI_Waitsome, and one by an MPI_Test loop;
 *   - persistent: every case initialised once, started three times with new
 *     data (MPI_Startall over the xchg-backed requests and the program's own
 *     persistent send and receive, MPI_Start), completed by MPI_Waitall,
 *     an MPI_Testany loop and MPI_Wait / MPI_Test, then MPI_Request_free;
 *     and one freed without ever being started;
 *   - MPI_Ialltoall and MPI_Iallgather on an inter-communicator (the drop-in
 *     passes them to MPI).
 * Rank 0 prints one PASS/FAIL line per check, the calls made per rank
 * ("calls ..." routed, "to_mpi ..." passed to MPI, by the names of
 * XCHG_COUNT_FILE) and "requests: N passed, N failed"; exits 1 on failure.
 * One file of about 570 lines: run.sh builds each test program here from one
 * source with the MPI's compiler wrapper, and its cases share one table.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if !(MPI_VERSION >= 4) && defined(OPEN_MPI) && OPEN_MPI && defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

/* The persistent collectives, by the name this MPI gives them. */
#if MPI_VERSION >= 4
#define PERSISTENT 1
#define INIT(coll) MPI_##coll##_init
#define INIT_NAME "MPI_"
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
#define PERSISTENT 1
#define INIT(coll) MPIX_##coll##_init
#define INIT_NAME "MPIX_"
#else
#define PERSISTENT 0
#endif

static int rank, size, passed, failed;

enum { A2A, A2AV, A2AW, AG, AGV, NCOLL };
static const char *const coll_names[NCOLL] = {"alltoall", "alltoallv", "alltoallw", "allgather",
                                              "allgatherv"};
static int nb_calls[NCOLL], init_calls[NCOLL], nb_to_mpi[NCOLL];

static void check(const char *what, int ok)
{
    int all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0) printf("%s %s\n", all_ok ? "PASS" : "FAIL", what);
    if (all_ok) passed++; else failed++;
}

/* ---- cases -------------------------------------------------------------- */

#define SLOT 16 /* extents of the block type between two peers' blocks */
#define INTS (3 * SLOT * 64 + 64) /* ints in each buffer (worlds up to 64) */

typedef struct {
    const char *name;
    int coll, in_place;
    int scount, rcount;                   /* uniform collectives */
    int *scounts, *sdispls, *rcounts, *rdispls;
    MPI_Datatype stype, rtype, *stypes, *rtypes;
    int *send, *recv, *expect, *initial;  /* INTS ints each */
} dcase;

static MPI_Datatype strided; /* 2 ints, 1 apart: extent 3 ints */

/* Blocks of uneven size: 0..3 elements, a zero wherever (s, d, salt) says;
 * symmetric in (s, d) when `sym` (MPI_IN_PLACE needs that). */
static int uneven(int s, int d, int salt, int sym)
{
    return sym ? (s + d + salt) % 4 : (s * 7 + d * 3 + salt) % 4;
}

static int *ints(int n)
{
    int *p = calloc((size_t)(n > 0 ? n : 1), sizeof(int));
    if (!p) MPI_Abort(MPI_COMM_WORLD, 2);
    return p;
}

/* New contents: send values, receive sentinels (and the in-place data). */
static void fill(dcase *c, int salt)
{
    for (int i = 0; i < INTS; i++) {
        c->send[i] = rank * 1000003 + i * 7 + salt * 131;
        c->recv[i] = -1 - i - salt;
    }
    if (c->in_place) /* the own data, where MPI_IN_PLACE finds it */
        for (int i = 0; i < INTS; i++) c->recv[i] = rank * 1000003 + i * 11 + salt * 17;
    memcpy(c->initial, c->recv, INTS * sizeof(int));
}

static char *at(void *buf, int displ, MPI_Datatype type) /* displ extents of type */
{
    MPI_Aint lb, extent;
    MPI_Type_get_extent(type, &lb, &extent);
    return (char *)buf + (MPI_Aint)displ * extent;
}

/* On one rank each collective is a typed copy from the send to the receive
 * buffer (none with MPI_IN_PLACE). That is the reference there: Open MPI
 * 4.1's blocking MPI_Alltoallw on one rank takes byte displacements for
 * elements, MPICH 4.0's MPI_Allgatherv ignores displs. */
static void reference_one_rank(dcase *c)
{
    if (c->in_place) return;
    void *dst = c->expect;
    const void *src = c->send;
    int sn = c->scount, rn = c->rcount;
    MPI_Datatype st = c->stype, rt = c->rtype;
    if (c->coll == A2AV) {
        src = at(c->send, c->sdispls[0], st), sn = c->scounts[0];
        dst = at(c->expect, c->rdispls[0], rt), rn = c->rcounts[0];
    } else if (c->coll == A2AW) {
        src = (char *)c->send + c->sdispls[0], sn = c->scounts[0], st = c->stypes[0];
        dst = (char *)c->expect + c->rdispls[0], rn = c->rcounts[0], rt = c->rtypes[0];
    } else if (c->coll == AGV) {
        dst = at(c->expect, c->rdispls[0], rt), rn = c->rcounts[0];
    }
    PMPI_Sendrecv(src, sn, st, 0, 0, dst, rn, rt, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
}

/* The MPI library's own blocking collective into c->expect. */
static void reference(dcase *c, MPI_Comm comm)
{
    memcpy(c->expect, c->initial, INTS * sizeof(int));
    if (size == 1) {
        reference_one_rank(c);
        return;
    }
    const void *s = c->in_place ? MPI_IN_PLACE : c->send;
    switch (c->coll) {
    case A2A:
        PMPI_Alltoall(s, c->scount, c->stype, c->expect, c->rcount, c->rtype, comm);
        break;
    case A2AV:
        PMPI_Alltoallv(s, c->scounts, c->sdispls, c->stype, c->expect, c->rcounts, c->rdispls,
                       c->rtype, comm);
        break;
    case A2AW:
        PMPI_Alltoallw(s, c->scounts, c->sdispls, c->stypes, c->expect, c->rcounts, c->rdispls,
                       c->rtypes, comm);
        break;
    case AG:
        PMPI_Allgather(s, c->scount, c->stype, c->expect, c->rcount, c->rtype, comm);
        break;
    case AGV:
        PMPI_Allgatherv(s, c->scount, c->stype, c->expect, c->rcounts, c->rdispls, c->rtype,
                        comm);
        break;
    }
}

static int matches(const dcase *c)
{
    if (memcmp(c->recv, c->expect, INTS * sizeof(int)) == 0) return 1;
    for (int i = 0; i < INTS; i++)
        if (c->recv[i] != c->expect[i]) {
            printf("rank %d, %s: first difference at int %d: %d, MPI's own gives %d\n", rank,
                   c->name, i, c->recv[i], c->expect[i]);
            break;
        }
    return 0;
}

static void start_nonblocking(dcase *c, MPI_Comm comm, MPI_Request *req)
{
    const void *s = c->in_place ? MPI_IN_PLACE : c->send;
    int rc = MPI_ERR_OTHER;
    nb_calls[c->coll]++;
    switch (c->coll) {
    case A2A:
        rc = MPI_Ialltoall(s, c->scount, c->stype, c->recv, c->rcount, c->rtype, comm, req);
        break;
    case A2AV:
        rc = MPI_Ialltoallv(s, c->scounts, c->sdispls, c->stype, c->recv, c->rcounts, c->rdispls,
                            c->rtype, comm, req);
        break;
    case A2AW:
        rc = MPI_Ialltoallw(s, c->scounts, c->sdispls, c->stypes, c->recv, c->rcounts,
                            c->rdispls, c->rtypes, comm, req);
        break;
    case AG:
        rc = MPI_Iallgather(s, c->scount, c->stype, c->recv, c->rcount, c->rtype, comm, req);
        break;
    case AGV:
        rc = MPI_Iallgatherv(s, c->scount, c->stype, c->recv, c->rcounts, c->rdispls, c->rtype,
                             comm, req);
        break;
    }
    if (rc != MPI_SUCCESS) {
        printf("FAIL rank %d: nonblocking %s returned %d\n", rank, c->name, rc);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

#if PERSISTENT
static void init_persistent(dcase *c, MPI_Comm comm, MPI_Request *req)
{
    const void *s = c->in_place ? MPI_IN_PLACE : c->send;
    int rc = MPI_ERR_OTHER;
    init_calls[c->coll]++;
    switch (c->coll) {
    case A2A:
        rc = INIT(Alltoall)(s, c->scount, c->stype, c->recv, c->rcount, c->rtype, comm,
                            MPI_INFO_NULL, req);
        break;
    case A2AV:
        rc = INIT(Alltoallv)(s, c->scounts, c->sdispls, c->stype, c->recv, c->rcounts,
                             c->rdispls, c->rtype, comm, MPI_INFO_NULL, req);
        break;
    case A2AW:
        rc = INIT(Alltoallw)(s, c->scounts, c->sdispls, c->stypes, c->recv, c->rcounts,
                             c->rdispls, c->rtypes, comm, MPI_INFO_NULL, req);
        break;
    case AG:
        rc = INIT(Allgather)(s, c->scount, c->stype, c->recv, c->rcount, c->rtype, comm,
                             MPI_INFO_NULL, req);
        break;
    case AGV:
        rc = INIT(Allgatherv)(s, c->scount, c->stype, c->recv, c->rcounts, c->rdispls, c->rtype,
                              comm, MPI_INFO_NULL, req);
        break;
    }
    if (rc != MPI_SUCCESS) {
        printf("FAIL rank %d: persistent %s returned %d\n", rank, c->name, rc);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}
#endif

/* A case with buffers and, for the v/w forms, arrays of `size`. */
static dcase *new_case(dcase *c, const char *name, int coll, int in_place)
{
    memset(c, 0, sizeof *c);
    c->name = name;
    c->coll = coll;
    c->in_place = in_place;
    c->stype = c->rtype = MPI_INT;
    c->send = ints(INTS), c->recv = ints(INTS), c->expect = ints(INTS), c->initial = ints(INTS);
    c->scounts = ints(size), c->sdispls = ints(size), c->rcounts = ints(size),
    c->rdispls = ints(size);
    c->stypes = calloc((size_t)size, sizeof(MPI_Datatype));
    c->rtypes = calloc((size_t)size, sizeof(MPI_Datatype));
    return c;
}

static void free_case(dcase *c)
{
    free(c->send), free(c->recv), free(c->expect), free(c->initial);
    free(c->scounts), free(c->sdispls), free(c->rcounts), free(c->rdispls);
    free(c->stypes), free(c->rtypes);
}

/* v forms: block p at p * SLOT extents; counts from uneven(). */
static void v_layout(dcase *c, int salt, int sym, int send_mult, int recv_mult)
{
    for (int p = 0; p < size; p++) {
        c->scounts[p] = send_mult * uneven(rank, p, salt, sym);
        c->rcounts[p] = recv_mult * uneven(p, rank, salt, sym);
        c->sdispls[p] = p * SLOT;
        c->rdispls[p] = p * SLOT + 1; /* a gap before each block */
    }
}

static int make_cases(dcase *cs)
{
    int n = 0;
    dcase *c;
    /* alltoall */
    c = new_case(&cs[n++], "alltoall ints", A2A, 0);
    c->scount = c->rcount = 3;
    c = new_case(&cs[n++], "alltoall strided send", A2A, 0);
    c->stype = strided, c->scount = 2, c->rcount = 4;
    c = new_case(&cs[n++], "alltoall strided receive", A2A, 0);
    c->rtype = strided, c->scount = 2, c->rcount = 1;
    c = new_case(&cs[n++], "alltoall count 0", A2A, 0);
    c = new_case(&cs[n++], "alltoall in place", A2A, 1);
    c->rcount = 2;
    /* alltoallv */
    c = new_case(&cs[n++], "alltoallv uneven, zero blocks", A2AV, 0);
    v_layout(c, 1, 0, 1, 1);
    c = new_case(&cs[n++], "alltoallv strided send", A2AV, 0);
    v_layout(c, 2, 0, 1, 2);
    c->stype = strided;
    c = new_case(&cs[n++], "alltoallv in place", A2AV, 1);
    v_layout(c, 3, 1, 1, 1);
    /* alltoallw: per peer, ints or the strided vector (received as 2 ints);
     * displacements in bytes */
    c = new_case(&cs[n++], "alltoallw per-peer types", A2AW, 0);
    v_layout(c, 1, 0, 1, 1);
    for (int p = 0; p < size; p++) {
        c->stypes[p] = p % 2 ? strided : MPI_INT;
        c->rtypes[p] = MPI_INT;
        if (rank % 2) c->rcounts[p] *= 2; /* p sent strided to me */
        c->sdispls[p] *= 3 * (int)sizeof(int);
        c->rdispls[p] *= 3 * (int)sizeof(int);
    }
    c = new_case(&cs[n++], "alltoallw in place", A2AW, 1);
    v_layout(c, 2, 1, 1, 1);
    for (int p = 0; p < size; p++) {
        c->rtypes[p] = (rank + p) % 2 ? strided : MPI_INT; /* symmetric */
        c->stypes[p] = MPI_DATATYPE_NULL;
        c->rdispls[p] *= 3 * (int)sizeof(int);
    }
    /* allgather */
    c = new_case(&cs[n++], "allgather ints", AG, 0);
    c->scount = c->rcount = 3;
    c = new_case(&cs[n++], "allgather strided send", AG, 0);
    c->stype = strided, c->scount = 1, c->rcount = 2;
    c = new_case(&cs[n++], "allgather count 0", AG, 0);
    c = new_case(&cs[n++], "allgather in place", AG, 1);
    c->rtype = strided, c->rcount = 2;
    /* allgatherv: block p has uneven(p, 0) elements; zero blocks, gaps */
    c = new_case(&cs[n++], "allgatherv uneven, zero blocks", AGV, 0);
    for (int p = 0; p < size; p++)
        c->rcounts[p] = uneven(p, 0, 1, 0), c->rdispls[p] = (size - 1 - p) * SLOT + 2;
    c->scount = c->rcounts[rank];
    c = new_case(&cs[n++], "allgatherv strided send", AGV, 0);
    for (int p = 0; p < size; p++)
        c->rcounts[p] = 2 * uneven(p, 0, 2, 0), c->rdispls[p] = p * SLOT;
    c->stype = strided, c->scount = c->rcounts[rank] / 2;
    c = new_case(&cs[n++], "allgatherv in place", AGV, 1);
    for (int p = 0; p < size; p++)
        c->rcounts[p] = uneven(p, 0, 3, 0), c->rdispls[p] = p * SLOT + 1;
    return n;
}

/* ---- the checks ------------------------------------------------------------ */

#define MAXCASES 24

/* The program's own messages: a ring exchange of one int. */
typedef struct { int in, out; } ring;

static void ring_post(ring *r, MPI_Request *rreq, MPI_Request *sreq, int tag)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    r->in = -1;
    r->out = rank * 10 + tag;
    MPI_Irecv(&r->in, 1, MPI_INT, left, tag, MPI_COMM_WORLD, rreq);
    MPI_Isend(&r->out, 1, MPI_INT, right, tag, MPI_COMM_WORLD, sreq);
}

static int ring_ok(const ring *r, int tag)
{
    return r->in == ((rank + size - 1) % size) * 10 + tag;
}

/* Every case in flight at once; completed by `how`: 0 MPI_Waitall, 1 an
 * MPI_Testany loop, 2 MPI_Waitsome. */
static void nonblocking_all(dcase *cs, int n, MPI_Comm comm, int how, int salt)
{
    static const char *const hows[] = {"MPI_Waitall", "MPI_Testany loop", "MPI_Waitsome"};
    MPI_Request reqs[MAXCASES + 3];
    int slot[MAXCASES], k = 0, ok = 1;
    ring r;
    for (int i = 0; i < n; i++) {
        fill(&cs[i], salt + i);
        reference(&cs[i], comm);
    }
    ring_post(&r, &reqs[k], &reqs[k + 1], salt);
    k += 2;
    reqs[k++] = MPI_REQUEST_NULL;
    for (int i = 0; i < n; i++) start_nonblocking(&cs[i], comm, &reqs[slot[i] = k++]);
    if (how == 0) {
        MPI_Waitall(k, reqs, MPI_STATUSES_IGNORE);
    } else if (how == 1) {
        int index, flag, done = 0, spins = 0;
        for (;;) {
            MPI_Testany(k, reqs, &index, &flag, MPI_STATUS_IGNORE);
            if (flag && index == MPI_UNDEFINED) break;
            if (flag) done++;
            if (++spins > 100000000) { ok = 0; break; }
        }
        ok &= done == n + 2;
    } else {
        int outcount, indices[MAXCASES + 3], done = 0;
        for (;;) {
            MPI_Waitsome(k, reqs, &outcount, indices, MPI_STATUSES_IGNORE);
            if (outcount == MPI_UNDEFINED) break;
            done += outcount;
        }
        ok &= done == n + 2;
    }
    for (int i = 0; i < n; i++) {
        int good = matches(&cs[i]) && reqs[slot[i]] == MPI_REQUEST_NULL;
        if (!good) printf("FAIL rank %d: nonblocking %s (%s)\n", rank, cs[i].name, hows[how]);
        ok &= good;
    }
    char what[160];
    snprintf(what, sizeof what,
             "%d nonblocking collectives in flight + the program's Isend/Irecv, %s", n, hows[how]);
    check(what, ok && ring_ok(&r, salt));
}

/* One at a time, completed by an MPI_Test loop. */
static void nonblocking_test_loop(dcase *cs, int n, MPI_Comm comm)
{
    int ok = 1;
    for (int i = 0; i < n; i++) {
        MPI_Request req;
        int flag = 0;
        fill(&cs[i], 50 + i);
        reference(&cs[i], comm);
        start_nonblocking(&cs[i], comm, &req);
        do MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        while (!flag);
        ok &= matches(&cs[i]) && req == MPI_REQUEST_NULL;
    }
    check("each nonblocking collective alone, MPI_Test loop", ok);
}

#if PERSISTENT
static void persistent_all(dcase *cs, int n, MPI_Comm comm)
{
    MPI_Request reqs[MAXCASES + 2];
    int ok = 1, in = -1, out = rank, right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < n; i++) {
        fill(&cs[i], 0);
        init_persistent(&cs[i], comm, &reqs[i]);
    }
    /* the program's own persistent messages, in the same arrays */
    MPI_Recv_init(&in, 1, MPI_INT, left, 99, MPI_COMM_WORLD, &reqs[n]);
    MPI_Send_init(&out, 1, MPI_INT, right, 99, MPI_COMM_WORLD, &reqs[n + 1]);
    for (int start = 0; start < 3; start++) {
        for (int i = 0; i < n; i++) { /* new data each start */
            fill(&cs[i], 100 * (start + 1) + i);
            reference(&cs[i], comm);
        }
        in = -1;
        out = rank + 1000 * start;
        MPI_Startall(n + 2, reqs);
        if (start == 0) {
            MPI_Waitall(n + 2, reqs, MPI_STATUSES_IGNORE);
        } else if (start == 1) {
            int index, flag;
            do MPI_Testany(n + 2, reqs, &index, &flag, MPI_STATUS_IGNORE);
            while (!(flag && index == MPI_UNDEFINED));
        } else {
            for (int i = 0; i < n + 2; i++) {
                if (i % 2) {
                    MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
                } else {
                    int flag = 0;
                    do MPI_Test(&reqs[i], &flag, MPI_STATUS_IGNORE);
                    while (!flag);
                }
            }
        }
        for (int i = 0; i < n; i++) {
            int good = matches(&cs[i]) && reqs[i] != MPI_REQUEST_NULL;
            if (!good) printf("FAIL rank %d: persistent %s, start %d\n", rank, cs[i].name, start);
            ok &= good;
        }
        ok &= in == left + 1000 * start;
    }
    /* one more start of each alone, by MPI_Start and MPI_Wait */
    for (int i = 0; i < n; i++) {
        fill(&cs[i], 400 + i);
        reference(&cs[i], comm);
        MPI_Start(&reqs[i]);
        MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
        ok &= matches(&cs[i]);
    }
    for (int i = 0; i < n + 2; i++) {
        MPI_Request_free(&reqs[i]);
        ok &= reqs[i] == MPI_REQUEST_NULL;
    }
    char what[320];
    snprintf(what, sizeof what,
             "%d persistent collectives (" INIT_NAME "..._init), 4 starts each, new data each "
             "(MPI_Startall with the program's own persistent requests; MPI_Waitall, "
             "MPI_Testany, MPI_Wait/MPI_Test), MPI_Request_free",
             n);
    check(what, ok);

    /* freed without a start */
    MPI_Request req;
    fill(&cs[0], 500);
    init_persistent(&cs[0], comm, &req);
    MPI_Request_free(&req);
    check("a persistent collective freed without a start", req == MPI_REQUEST_NULL);
}
#endif

/* MPI_Ialltoall and MPI_Iallgather on an inter-communicator: MPI's own. */
static void intercomm_check(void)
{
    if (size < 2) return;
    MPI_Comm half, inter;
    int color = rank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 5, &inter);
    int remote = 0;
    MPI_Comm_remote_size(inter, &remote);
    int *send = ints(2 * remote), *recv = ints(2 * remote), *expect = ints(2 * remote);
    for (int i = 0; i < 2 * remote; i++) send[i] = rank * 100 + i, recv[i] = expect[i] = -1;
    MPI_Request reqs[2];
    nb_to_mpi[A2A]++;
    MPI_Ialltoall(send, 2, MPI_INT, recv, 2, MPI_INT, inter, &reqs[0]);
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    PMPI_Alltoall(send, 2, MPI_INT, expect, 2, MPI_INT, inter);
    int ok = memcmp(recv, expect, 2 * remote * sizeof(int)) == 0;
    for (int i = 0; i < 2 * remote; i++) recv[i] = expect[i] = -1;
    nb_to_mpi[AG]++;
    MPI_Iallgather(send, 2, MPI_INT, recv, 2, MPI_INT, inter, &reqs[1]);
    MPI_Waitall(1, &reqs[1], MPI_STATUSES_IGNORE);
    PMPI_Allgather(send, 2, MPI_INT, expect, 2, MPI_INT, inter);
    ok &= memcmp(recv, expect, 2 * remote * sizeof(int)) == 0;
    check("MPI_Ialltoall, MPI_Iallgather on an inter-communicator", ok);
    free(send), free(recv), free(expect);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

static void print_counts(void)
{
    printf("calls alltoall=0");
    for (int c = 0; c < NCOLL; c++) printf(" i%s=%d", coll_names[c], nb_calls[c]);
    for (int c = 0; c < NCOLL; c++) printf(" %s_init=%d", coll_names[c], init_calls[c]);
    printf("\nto_mpi alltoall=0");
    for (int c = 0; c < NCOLL; c++) printf(" i%s=%d", coll_names[c], nb_to_mpi[c]);
    printf("\n");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 64) MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Type_vector(2, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    dcase cs[MAXCASES];
    int n = make_cases(cs);

    for (int how = 0; how < 3; how++) nonblocking_all(cs, n, comm, how, 10 * how);
    nonblocking_test_loop(cs, n, MPI_COMM_WORLD);
#if PERSISTENT
    persistent_all(cs, n, comm);
#else
    if (rank == 0) printf("SKIP persistent: this MPI has neither MPI_ nor MPIX_Alltoall_init\n");
#endif
    intercomm_check();

    if (rank == 0) {
        print_counts();
        printf("requests: %d passed, %d failed\n", passed, failed);
    }
    for (int i = 0; i < n; i++) free_case(&cs[i]);
    MPI_Comm_free(&comm);
    MPI_Type_free(&strided);
    MPI_Finalize();
    return failed ? 1 : 0;
}
