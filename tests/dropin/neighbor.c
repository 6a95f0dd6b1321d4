/*
 * The neighbourhood alltoallv of a plain MPI program (it knows nothing of
 * xchg and runs the same with or without libxchg-mpi.so), checked against
 * the MPI library's own PMPI_Neighbor_alltoallv on the same communicator:
 *   - a random distributed graph (self loops, repeated neighbours, a rank
 *     without neighbours), MPI_Neighbor_alltoallv called 40 times over three
 *     count patterns in turn (the plan cache keyed by the pattern hits and
 *     misses), and once with a pattern that only rank 0 changes;
 *   - MPI_Ineighbor_alltoallv completed by MPI_Wait, an MPI_Test loop,
 *     MPI_Waitall together with the program's own Isend/Irecv, MPI_Waitany,
 *     MPI_Testsome, MPI_Testall and MPI_Request_get_status, and two calls in
 *     flight at once;
 *   - MPI_Neighbor_alltoallv_init (MPI-4 libraries; Open MPI 4.1's
 *     MPIX_Neighbor_alltoallv_init, its "pcollreq" extension) started five times with
 *     MPI_Start / MPI_Startall, completed by MPI_Wait / MPI_Test, freed;
 *   - a Cartesian communicator (passed to MPI by the drop-in) still right.
 * Rank 0 prints one PASS/FAIL line per check, the calls made ("calls ..."
 * for distributed graphs, "to_mpi ..." the Cartesian one) and
 * "neighbor: N passed, N failed"; exits 1 if anything failed.
 */
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI && defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h> /* MPIX_Neighbor_alltoallv_init */
#endif
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, nranks, passed, failed;
static int routed_calls, to_mpi_calls;

static void check(const char *what, int ok)
{
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0) printf("%s %s\n", all_ok ? "PASS" : "FAIL", what);
    if (all_ok) passed++; else failed++;
}

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* This rank's neighbour lists of a random multigraph (the same on every
 * rank): each edge s->d with probability 1/2, repeated edges and self loops
 * included; the last rank has no edges. */
typedef struct lists { int in, out, *src, *dst; } lists;

static void make_lists(lists *l)
{
    int cap = 4 * nranks + 4;
    l->src = malloc(cap * sizeof(int));
    l->dst = malloc(cap * sizeof(int));
    l->in = l->out = 0;
    for (int s = 0; s < nranks; s++)
        for (int d = 0; d < nranks; d++) {
            if (nranks > 2 && (s == nranks - 1 || d == nranks - 1)) continue;
            int copies = (int)(mix((uint64_t)s * 977 + d) % 4); /* 0..3 edges */
            for (int c = 0; c < copies && c < 2; c++) {
                if (s == rank) l->dst[l->out++] = d;
                if (d == rank) l->src[l->in++] = s;
            }
        }
}

/* Counts and displacements of one pattern; `salt` varies them, `shift`
 * leaves gaps. Blocks from/to the same rank pair agree on both sides. */
typedef struct pattern { int *scount, *sdispl, *rcount, *rdispl; int stotal, rtotal; } pattern;

static int edge_count(int s, int d, int k, int salt) /* the k-th edge s->d */
{
    return (int)(mix(((uint64_t)s << 40) ^ ((uint64_t)d << 20) ^ (uint64_t)(k * 131 + salt)) % 5);
}

static void make_pattern(const lists *l, int salt, pattern *p)
{
    p->scount = calloc(l->out + 1, sizeof(int));
    p->sdispl = calloc(l->out + 1, sizeof(int));
    p->rcount = calloc(l->in + 1, sizeof(int));
    p->rdispl = calloc(l->in + 1, sizeof(int));
    p->stotal = p->rtotal = 0;
    for (int i = 0; i < l->out; i++) { /* k: earlier edges to the same rank */
        int k = 0;
        for (int j = 0; j < i; j++) k += l->dst[j] == l->dst[i];
        p->scount[i] = edge_count(rank, l->dst[i], k, salt);
        p->sdispl[i] = p->stotal + 1; /* a gap before each block */
        p->stotal += p->scount[i] + 1;
    }
    for (int i = 0; i < l->in; i++) {
        int k = 0;
        for (int j = 0; j < i; j++) k += l->src[j] == l->src[i];
        p->rcount[i] = edge_count(l->src[i], rank, k, salt);
        p->rdispl[i] = p->rtotal;
        p->rtotal += p->rcount[i] + 2;
    }
    p->stotal++;
    p->rtotal++;
}

static void free_pattern(pattern *p)
{
    free(p->scount); free(p->sdispl); free(p->rcount); free(p->rdispl);
}

/* One exchange's buffers: send values, the result and the reference. */
typedef struct exchange { double *send, *recv, *expect; } exchange;

static void setup(exchange *x, const pattern *p, MPI_Comm comm, int salt)
{
    x->send = malloc(p->stotal * sizeof(double));
    x->recv = malloc(p->rtotal * sizeof(double));
    x->expect = malloc(p->rtotal * sizeof(double));
    for (int i = 0; i < p->stotal; i++) x->send[i] = rank * 1000.0 + i + salt * 0.5;
    for (int i = 0; i < p->rtotal; i++) x->recv[i] = x->expect[i] = -1.0;
    PMPI_Neighbor_alltoallv(x->send, p->scount, p->sdispl, MPI_DOUBLE, x->expect, p->rcount,
                            p->rdispl, MPI_DOUBLE, comm);
}

static int matches(const exchange *x, const pattern *p)
{
    return memcmp(x->recv, x->expect, p->rtotal * sizeof(double)) == 0;
}

static void release(exchange *x)
{
    free(x->send); free(x->recv); free(x->expect);
}

#define ICALL(p, x, comm, req)                                                            \
    (routed_calls++, MPI_Ineighbor_alltoallv((x)->send, (p)->scount, (p)->sdispl, MPI_DOUBLE, \
                                             (x)->recv, (p)->rcount, (p)->rdispl, MPI_DOUBLE, \
                                             comm, req))

static void blocking_checks(MPI_Comm comm, const lists *l)
{
    pattern p[3];
    for (int s = 0; s < 3; s++) make_pattern(l, s, &p[s]);
    int ok = 1;
    for (int call = 0; call < 40; call++) {
        pattern *q = &p[call % 3];
        exchange x;
        setup(&x, q, comm, call);
        routed_calls++;
        MPI_Neighbor_alltoallv(x.send, q->scount, q->sdispl, MPI_DOUBLE, x.recv, q->rcount,
                               q->rdispl, MPI_DOUBLE, comm);
        ok &= matches(&x, q);
        release(&x);
    }
    check("MPI_Neighbor_alltoallv, 40 calls over 3 patterns", ok);

    /* Rank 0 alone changes its pattern (its receive counts and a displacement
     * stay consistent with the senders: only a gap moves). */
    pattern changed;
    make_pattern(l, 0, &changed);
    if (rank == 0 && l->out > 0) changed.sdispl[0] = 0;
    exchange x;
    setup(&x, &changed, comm, 99);
    routed_calls++;
    MPI_Neighbor_alltoallv(x.send, changed.scount, changed.sdispl, MPI_DOUBLE, x.recv,
                           changed.rcount, changed.rdispl, MPI_DOUBLE, comm);
    check("MPI_Neighbor_alltoallv, a pattern only rank 0 changed", matches(&x, &changed));
    release(&x);
    free_pattern(&changed);
    for (int s = 0; s < 3; s++) free_pattern(&p[s]);
}

static void nonblocking_checks(MPI_Comm comm, const lists *l)
{
    pattern p, q;
    make_pattern(l, 1, &p);
    make_pattern(l, 2, &q);
    exchange x, y;
    MPI_Request req, reqs[4];
    int flag, index, outcount, indices[4];

    setup(&x, &p, comm, 1);
    ICALL(&p, &x, comm, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    check("MPI_Ineighbor_alltoallv + MPI_Wait", matches(&x, &p) && req == MPI_REQUEST_NULL);
    release(&x);

    setup(&x, &p, comm, 2);
    ICALL(&p, &x, comm, &req);
    do MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    while (!flag);
    check("MPI_Ineighbor_alltoallv + MPI_Test loop", matches(&x, &p) && req == MPI_REQUEST_NULL);
    release(&x);

    /* With the program's own messages in one array (a ring). */
    int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks, in = -1, out = rank;
    setup(&x, &p, comm, 3);
    MPI_Irecv(&in, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &reqs[0]);
    ICALL(&p, &x, comm, &reqs[1]);
    MPI_Isend(&out, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &reqs[2]);
    MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE);
    check("MPI_Ineighbor_alltoallv + MPI_Waitall with the program's Isend/Irecv",
          matches(&x, &p) && in == left && reqs[1] == MPI_REQUEST_NULL);
    release(&x);

    /* Two in flight; MPI_Waitany until both are done. */
    setup(&x, &p, comm, 4);
    setup(&y, &q, comm, 5);
    ICALL(&p, &x, comm, &reqs[0]);
    ICALL(&q, &y, comm, &reqs[1]);
    int done = 0, seen[2] = {0, 0}, any_ok = 1;
    while (done < 2) {
        MPI_Waitany(2, reqs, &index, MPI_STATUS_IGNORE);
        if (index < 0 || index > 1 || seen[index]) { any_ok = 0; break; }
        seen[index] = 1;
        done++;
    }
    MPI_Waitany(2, reqs, &index, MPI_STATUS_IGNORE);
    check("two MPI_Ineighbor_alltoallv in flight + MPI_Waitany",
          any_ok && index == MPI_UNDEFINED && matches(&x, &p) && matches(&y, &q));
    release(&x);
    release(&y);

    /* MPI_Testsome, then MPI_Testall and MPI_Request_get_status. */
    setup(&x, &p, comm, 6);
    setup(&y, &q, comm, 7);
    ICALL(&p, &x, comm, &reqs[0]);
    ICALL(&q, &y, comm, &reqs[1]);
    done = 0;
    while (done < 2) {
        MPI_Testsome(2, reqs, &outcount, indices, MPI_STATUSES_IGNORE);
        if (outcount == MPI_UNDEFINED) break;
        done += outcount;
    }
    check("MPI_Ineighbor_alltoallv + MPI_Testsome",
          done == 2 && matches(&x, &p) && matches(&y, &q));
    release(&x);
    release(&y);

    setup(&x, &p, comm, 8);
    ICALL(&p, &x, comm, &reqs[0]);
    do MPI_Request_get_status(reqs[0], &flag, MPI_STATUS_IGNORE);
    while (!flag);
    do MPI_Testall(1, reqs, &flag, MPI_STATUSES_IGNORE);
    while (!flag);
    check("MPI_Ineighbor_alltoallv + MPI_Request_get_status + MPI_Testall",
          matches(&x, &p) && reqs[0] == MPI_REQUEST_NULL);
    release(&x);
    free_pattern(&p);
    free_pattern(&q);
}

#if MPI_VERSION >= 4
#define HAVE_NEIGHBOR_INIT 1
#define NEIGHBOR_ALLTOALLV_INIT MPI_Neighbor_alltoallv_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define HAVE_NEIGHBOR_INIT 1
#define NEIGHBOR_ALLTOALLV_INIT MPIX_Neighbor_alltoallv_init
#endif

#ifdef HAVE_NEIGHBOR_INIT
#define NAME_OF_(f) #f
#define NAME_OF(f) NAME_OF_(f)
static void persistent_checks(MPI_Comm comm, const lists *l)
{
    pattern p;
    make_pattern(l, 1, &p);
    exchange x;
    setup(&x, &p, comm, 0);
    MPI_Request req[2];
    routed_calls++;
    NEIGHBOR_ALLTOALLV_INIT(x.send, p.scount, p.sdispl, MPI_DOUBLE, x.recv, p.rcount, p.rdispl,
                            MPI_DOUBLE, comm, MPI_INFO_NULL, &req[0]);
    int ok = 1, flag;
    for (int start = 0; start < 5; start++) {
        for (int i = 0; i < p.stotal; i++) x.send[i] += 1.0; /* new data each start */
        PMPI_Neighbor_alltoallv(x.send, p.scount, p.sdispl, MPI_DOUBLE, x.expect, p.rcount,
                                p.rdispl, MPI_DOUBLE, comm);
        if (start % 2) MPI_Startall(1, req);
        else MPI_Start(&req[0]);
        if (start == 3) {
            do MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE);
            while (!flag);
        } else {
            MPI_Wait(&req[0], MPI_STATUS_IGNORE);
        }
        ok &= matches(&x, &p) && req[0] != MPI_REQUEST_NULL;
    }
    MPI_Request_free(&req[0]);
    check(NAME_OF(NEIGHBOR_ALLTOALLV_INIT) ", 5 starts, new data each", ok && req[0] == MPI_REQUEST_NULL);
    release(&x);
    free_pattern(&p);
}
#endif

static void cartesian_check(void)
{
    int dims[1] = {nranks}, periods[1] = {1};
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    int counts[2] = {1, 1}, displs[2] = {0, 1};
    double send[2] = {rank + 0.25, rank + 0.75}, recv[2] = {-1, -1};
    to_mpi_calls++;
    MPI_Neighbor_alltoallv(send, counts, displs, MPI_DOUBLE, recv, counts, displs, MPI_DOUBLE,
                           cart);
    int left = (rank + nranks - 1) % nranks, right = (rank + 1) % nranks;
    check("MPI_Neighbor_alltoallv on a Cartesian communicator",
          recv[0] == left + 0.75 && recv[1] == right + 0.25);
    MPI_Comm_free(&cart);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    lists l;
    make_lists(&l);
    MPI_Comm graph;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, l.in, l.src, MPI_UNWEIGHTED, l.out, l.dst,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
    blocking_checks(graph, &l);
    nonblocking_checks(graph, &l);
#ifdef HAVE_NEIGHBOR_INIT
    persistent_checks(graph, &l);
#endif
    cartesian_check();
    MPI_Comm_free(&graph);
    if (rank == 0) {
        printf("calls alltoall=0 alltoallv=0 allgather=0 neighbor_alltoallv=%d\n", routed_calls);
        printf("to_mpi alltoall=0 alltoallv=0 allgather=0 neighbor_alltoallv=%d\n",
               to_mpi_calls);
        printf("neighbor: %d passed, %d failed\n", passed, failed);
    }
    free(l.src);
    free(l.dst);
    MPI_Finalize();
    return failed ? 1 : 0;
}
