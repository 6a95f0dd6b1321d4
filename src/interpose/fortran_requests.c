/*
 * Open MPI's Fortran nonblocking and persistent collectives: MPI_IALLTOALL,
 * MPI_IALLTOALLV, MPI_IALLTOALLW, MPI_IALLGATHER, MPI_IALLGATHERV and
 * Open MPI 4.1's MPIX_ALLTOALL_INIT, MPIX_ALLTOALLV_INIT,
 * MPIX_ALLTOALLW_INIT, MPIX_ALLGATHER_INIT, MPIX_ALLGATHERV_INIT (its
 * "pcollreq" extension: mpif-ext.h, `use mpi_ext`, `use mpi_f08_ext`).
 * Its Fortran MPIX_NEIGHBOR_ALLTOALLV_INIT is not defined here and reaches
 * Open MPI unrouted (c_bindings.c routes the C form).
 *
 * Open MPI's bindings convert the arguments and call PMPI_Ialltoall,
 * PMPIX_Alltoall_init, ... directly (libmpi_mpifh; libmpi_usempif08's
 * mpi_ialltoall_f08_ and mpix_alltoall_init_f08_ call them through
 * ompi_ialltoall_f, ...), so the C entry points of c_bindings.c never see
 * a Fortran call. As for the blocking forms (fortran.c), the Fortran symbols
 * are defined here in the four manglings of mpif.h and `use mpi`, and, on
 * Open MPI 4 (mpi_f08 passes buffers as addresses, handles as one INTEGER,
 * an absent ierror as NULL), under their mpi_f08 names.
 *
 * One section per collective: its converter (uniform_f for alltoall and
 * allgather, which take the same arguments, with their routes; alltoallv_f,
 * ...), then its nonblocking entry point, then its persistent one, each a
 * single call of the converter. The converter does what both forms share: it converts the
 * arguments as Open MPI's own binding does (handles with PMPI_*_f2c, a
 * datatype array handle by handle, INTEGER arrays copied where INTEGER is
 * not a C int, MPI_IN_PLACE and MPI_BOTTOM with Open MPI's own tests),
 * calls the route the C form takes (route_requests.c: xchg under the
 * blocking form's rule, else Open MPI's PMPI_ function; counted under the
 * form's name), frees its copies when that returns (xchg copies counts and
 * describes datatypes at the start) and returns the request as a Fortran
 * handle (PMPI_Request_c2f). Its last argument, `mpi_init`, is the form:
 * NULL for the nonblocking one (to xchg_ip_ialltoallv, ...), else Open MPI's
 * PMPIX_Alltoallv_init, ... for the persistent one (to
 * xchg_ip_alltoallv_init, ..., with `info`, mpi_init as the pass-through).
 * Completing the request from Fortran is fortran_completion.c's business.
 *
 * MPICH: its Fortran bindings call the C MPI_Ialltoall, ..., which
 * c_bindings.c defines; nothing here.
 */
#include <mpi.h>
#ifdef XCHG_HAVE_MPI_EXT_H
#include <mpi-ext.h> /* PMPIX_Alltoall_init, ... */
#endif

#include "fortran.h"
#include "route.h"

#ifdef XCHG_IP_OMPI_FORTRAN

#define sendbuf_c xchg_ip_f_sendbuf
#define recvbuf_c xchg_ip_f_recvbuf

/* The mpi_f08 name of an entry point (Open MPI 4; Open MPI 5's mpi_f08 may
 * pass descriptors: fortran.c). */
#if OMPI_MAJOR_VERSION < 5
#define XCHG_IP_F08(target, name)                                                            \
    XCHG_EXPORT __typeof__(target) name __attribute__((alias(#target)));
#else
#define XCHG_IP_F08(target, name)
#endif

/* The communicator's size (for the arrays of a v or w form), 0 if none. */
static int comm_size(MPI_Comm comm)
{
    int size = 0;
    if (comm == MPI_COMM_NULL || PMPI_Comm_size(comm, &size) != MPI_SUCCESS) return 0;
    return size;
}

/* A call's result and request back to Fortran. */
static void to_fortran(int rc, MPI_Request request, MPI_Fint *f_request, MPI_Fint *ierr)
{
    if (rc == MPI_SUCCESS) *f_request = PMPI_Request_c2f(request);
    xchg_ip_f_set_ierr(ierr, rc);
}

/* The v forms' arrays as C ints (copies where INTEGER is not a C int: xchg
 * copies the counts at the start, so they need not outlive the call, in
 * either form). */
typedef struct f_arrays {
    const int *a[4];
    int *copy[4];
} f_arrays;

static int f_arrays_get(f_arrays *arr, int n, int size, MPI_Fint *const f[])
{
    int ok = 1;
    for (int i = 0; i < n; i++) {
        arr->a[i] = xchg_ip_f_ints(f[i], size, &arr->copy[i]);
        if (f[i] && !arr->a[i]) ok = 0;
    }
    return ok ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

static void f_arrays_free(f_arrays *arr, int n)
{
    for (int i = 0; i < n; i++) free(arr->copy[i]);
}

/* Alltoallw: the datatype handles are converted one by one (xchg describes
 * them at the start and holds them while the call is in flight). */
typedef struct w_arrays {
    f_arrays ints;
    MPI_Datatype *types; /* send, then receive */
} w_arrays;

static int w_arrays_get(w_arrays *w, int size, int in_place, MPI_Fint *f[4],
                        const MPI_Fint *sendtypes, const MPI_Fint *recvtypes)
{
    w->types = NULL;
    int rc = f_arrays_get(&w->ints, 4, size, f);
    size_t n = (size_t)(size > 0 ? size : 1);
    if (rc == MPI_SUCCESS && !(w->types = malloc(2 * n * sizeof *w->types))) rc = MPI_ERR_NO_MEM;
    for (int p = 0; rc == MPI_SUCCESS && p < size; p++) {
        w->types[p] = in_place ? MPI_DATATYPE_NULL : PMPI_Type_f2c(sendtypes[p]);
        w->types[size + p] = PMPI_Type_f2c(recvtypes[p]);
    }
    return rc;
}

static void w_arrays_free(w_arrays *w)
{
    f_arrays_free(&w->ints, 4);
    free(w->types);
}

/* ---- alltoall --------------------------------------------------------------- */

/* alltoall and allgather take the same arguments: one converter, with the
 * collective's two routes. */
typedef struct uniform_routes {
    int (*nonblocking)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                       MPI_Request *request);
    int (*persistent)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request, xchg_ip_uniform_init_fn *mpi_init);
} uniform_routes;

static const uniform_routes alltoall_routes = {xchg_ip_ialltoall, xchg_ip_alltoall_init};
static const uniform_routes allgather_routes = {xchg_ip_iallgather, xchg_ip_allgather_init};

static void uniform_f(const uniform_routes *route, void *sendbuf, MPI_Fint *sendcount,
                      MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
                      MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request,
                      MPI_Fint *ierr, xchg_ip_uniform_init_fn *mpi_init)
{
    const void *sbuf = sendbuf_c(sendbuf);
    void *rbuf = recvbuf_c(recvbuf);
    int scount = (int)*sendcount, rcount = (int)*recvcount;
    MPI_Datatype stype = PMPI_Type_f2c(*sendtype), rtype = PMPI_Type_f2c(*recvtype);
    MPI_Comm c_comm = PMPI_Comm_f2c(*comm);
    MPI_Request c = MPI_REQUEST_NULL;
    int rc = mpi_init ? route->persistent(sbuf, scount, stype, rbuf, rcount, rtype, c_comm,
                                          PMPI_Info_f2c(*info), &c, mpi_init)
                      : route->nonblocking(sbuf, scount, stype, rbuf, rcount, rtype, c_comm, &c);
    to_fortran(rc, c, request, ierr);
}

void xchg_ip_f_ialltoall(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                         MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm,
                         MPI_Fint *request, MPI_Fint *ierr)
{
    uniform_f(&alltoall_routes, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
              NULL, request, ierr, NULL);
}
XCHG_IP_FORTRAN_NAMES(xchg_ip_f_ialltoall, mpi_ialltoall, MPI_IALLTOALL)
XCHG_IP_F08(xchg_ip_f_ialltoall, mpi_ialltoall_f08_)

#ifdef XCHG_IP_HAVE_MPIX_ALLTOALL_INIT
void xchg_ip_f_alltoall_init(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype,
                             void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype,
                             MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
{
    uniform_f(&alltoall_routes, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
              info, request, ierr, PMPIX_Alltoall_init);
}
XCHG_IP_FORTRAN_NAMES(xchg_ip_f_alltoall_init, mpix_alltoall_init, MPIX_ALLTOALL_INIT)
XCHG_IP_F08(xchg_ip_f_alltoall_init, mpix_alltoall_init_f08_)
#endif

/* ---- alltoallv (with MPI_IN_PLACE the send arrays are not read) -------------- */

static void alltoallv_f(void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls,
                        MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
                        MPI_Fint *rdispls, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *info,
                        MPI_Fint *request, MPI_Fint *ierr, xchg_ip_counts_init_fn *mpi_init)
{
    MPI_Comm c_comm = PMPI_Comm_f2c(*comm);
    const void *sbuf = sendbuf_c(sendbuf);
    void *rbuf = recvbuf_c(recvbuf);
    int in_place = sbuf == MPI_IN_PLACE;
    MPI_Datatype stype = PMPI_Type_f2c(*sendtype), rtype = PMPI_Type_f2c(*recvtype);
    MPI_Request c = MPI_REQUEST_NULL;
    f_arrays arr;
    MPI_Fint *f[4] = {in_place ? NULL : sendcounts, in_place ? NULL : sdispls, recvcounts,
                      rdispls};
    int rc = f_arrays_get(&arr, 4, comm_size(c_comm), f);
    const int **a = arr.a; /* sendcounts, sdispls, recvcounts, rdispls */
    if (rc == MPI_SUCCESS && mpi_init)
        rc = xchg_ip_alltoallv_init(sbuf, a[0], a[1], stype, rbuf, a[2], a[3], rtype, c_comm,
                                    PMPI_Info_f2c(*info), &c, mpi_init);
    else if (rc == MPI_SUCCESS)
        rc = xchg_ip_ialltoallv(sbuf, a[0], a[1], stype, rbuf, a[2], a[3], rtype, c_comm, &c);
    f_arrays_free(&arr, 4);
    to_fortran(rc, c, request, ierr);
}

void xchg_ip_f_ialltoallv(void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls,
                          MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
                          MPI_Fint *rdispls, MPI_Fint *recvtype, MPI_Fint *comm,
                          MPI_Fint *request, MPI_Fint *ierr)
{
    alltoallv_f(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                comm, NULL, request, ierr, NULL);
}
XCHG_IP_FORTRAN_NAMES(xchg_ip_f_ialltoallv, mpi_ialltoallv, MPI_IALLTOALLV)
XCHG_IP_F08(xchg_ip_f_ialltoallv, mpi_ialltoallv_f08_)

#ifdef XCHG_IP_HAVE_MPIX_ALLTOALLV_INIT
void xchg_ip_f_alltoallv_init(void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls,
                              MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
                              MPI_Fint *rdispls, MPI_Fint *recvtype, MPI_Fint *comm,
                              MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
{
    alltoallv_f(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                comm, info, request, ierr, PMPIX_Alltoallv_init);
}
XCHG_IP_FORTRAN_NAMES(xchg_ip_f_alltoallv_init, mpix_alltoallv_init, MPIX_ALLTOALLV_INIT)
XCHG_IP_F08(xchg_ip_f_alltoallv_init, mpix_alltoallv_init_f08_)
#endif

/* ---- alltoallw (with MPI_IN_PLACE the send arrays are not read) -------------- */

static void alltoallw_f(void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls,
                        MPI_Fint *sendtypes, void *recvbuf, MPI_Fint *recvcounts,
                        MPI_Fint *rdispls, MPI_Fint *recvtypes, MPI_Fint *comm, MPI_Fint *info,
                        MPI_Fint *request, MPI_Fint *ierr, xchg_ip_alltoallw_init_fn *mpi_init)
{
    MPI_Comm c_comm = PMPI_Comm_f2c(*comm);
    const void *sbuf = sendbuf_c(sendbuf);
    void *rbuf = recvbuf_c(recvbuf);
    int in_place = sbuf == MPI_IN_PLACE, size = comm_size(c_comm);
    MPI_Request c = MPI_REQUEST_NULL;
    w_arrays w;
    MPI_Fint *f[4] = {in_place ? NULL : sendcounts, in_place ? NULL : sdispls, recvcounts,
                      rdispls};
    int rc = w_arrays_get(&w, size, in_place, f, sendtypes, recvtypes);
    const int **a = w.ints.a; /* sendcounts, sdispls, recvcounts, rdispls */
    if (rc == MPI_SUCCESS && mpi_init)
        rc = xchg_ip_alltoallw_init(sbuf, a[0], a[1], w.types, rbuf, a[2], a[3], w.types + size,
                                    c_comm, PMPI_Info_f2c(*info), &c, mpi_init);
    else if (rc == MPI_SUCCESS)
        rc = xchg_ip_ialltoallw(sbuf, a[0], a[1], w.types, rbuf, a[2], a[3], w.types + size,
                                c_comm, &c);
    w_arrays_free(&w);
    to_fortran(rc, c, request, ierr);
}

void xchg_ip_f_ialltoallw(void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls,
                          MPI_Fint *sendtypes, void *recvbuf, MPI_Fint *recvcounts,
                          MPI_Fint *rdispls, MPI_Fint *recvtypes, MPI_Fint *comm,
                          MPI_Fint *request, MPI_Fint *ierr)
{
    alltoallw_f(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                comm, NULL, request, ierr, NULL);
}
XCHG_IP_FORTRAN_NAMES(xchg_ip_f_ialltoallw, mpi_ialltoallw, MPI_IALLTOALLW)
XCHG_IP_F08(xchg_ip_f_ialltoallw, mpi_ialltoallw_f08_)

#ifdef XCHG_IP_HAVE_MPIX_ALLTOALLW_INIT
void xchg_ip_f_alltoallw_init(void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls,
                              MPI_Fint *sendtypes, void *recvbuf, MPI_Fint *recvcounts,
                              MPI_Fint *rdispls, MPI_Fint *recvtypes, MPI_Fint *comm,
                              MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
{
    alltoallw_f(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                comm, info, request, ierr, PMPIX_Alltoallw_init);
}
XCHG_IP_FORTRAN_NAMES(xchg_ip_f_alltoallw_init, mpix_alltoallw_init, MPIX_ALLTOALLW_INIT)
XCHG_IP_F08(xchg_ip_f_alltoallw_init, mpix_alltoallw_init_f08_)
#endif

/* ---- allgather -------------------------------------------------------------- */

void xchg_ip_f_iallgather(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                          MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm,
                          MPI_Fint *request, MPI_Fint *ierr)
{
    uniform_f(&allgather_routes, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
              NULL, request, ierr, NULL);
}
XCHG_IP_FORTRAN_NAMES(xchg_ip_f_iallgather, mpi_iallgather, MPI_IALLGATHER)
XCHG_IP_F08(xchg_ip_f_iallgather, mpi_iallgather_f08_)

#ifdef XCHG_IP_HAVE_MPIX_ALLGATHER_INIT
void xchg_ip_f_allgather_init(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype,
                              void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype,
                              MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
{
    uniform_f(&allgather_routes, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
              info, request, ierr, PMPIX_Allgather_init);
}
XCHG_IP_FORTRAN_NAMES(xchg_ip_f_allgather_init, mpix_allgather_init, MPIX_ALLGATHER_INIT)
XCHG_IP_F08(xchg_ip_f_allgather_init, mpix_allgather_init_f08_)
#endif

/* ---- allgatherv ------------------------------------------------------------- */

static void allgatherv_f(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                         MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype,
                         MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr,
                         xchg_ip_allgatherv_init_fn *mpi_init)
{
    MPI_Comm c_comm = PMPI_Comm_f2c(*comm);
    const void *sbuf = sendbuf_c(sendbuf);
    void *rbuf = recvbuf_c(recvbuf);
    int scount = (int)*sendcount;
    MPI_Datatype stype = PMPI_Type_f2c(*sendtype), rtype = PMPI_Type_f2c(*recvtype);
    MPI_Request c = MPI_REQUEST_NULL;
    f_arrays arr;
    MPI_Fint *f[2] = {recvcounts, displs};
    int rc = f_arrays_get(&arr, 2, comm_size(c_comm), f);
    const int **a = arr.a; /* recvcounts, displs */
    if (rc == MPI_SUCCESS && mpi_init)
        rc = xchg_ip_allgatherv_init(sbuf, scount, stype, rbuf, a[0], a[1], rtype, c_comm,
                                     PMPI_Info_f2c(*info), &c, mpi_init);
    else if (rc == MPI_SUCCESS)
        rc = xchg_ip_iallgatherv(sbuf, scount, stype, rbuf, a[0], a[1], rtype, c_comm, &c);
    f_arrays_free(&arr, 2);
    to_fortran(rc, c, request, ierr);
}

void xchg_ip_f_iallgatherv(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype,
                           void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *displs,
                           MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request,
                           MPI_Fint *ierr)
{
    allgatherv_f(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, NULL,
                 request, ierr, NULL);
}
XCHG_IP_FORTRAN_NAMES(xchg_ip_f_iallgatherv, mpi_iallgatherv, MPI_IALLGATHERV)
XCHG_IP_F08(xchg_ip_f_iallgatherv, mpi_iallgatherv_f08_)

#ifdef XCHG_IP_HAVE_MPIX_ALLGATHERV_INIT
void xchg_ip_f_allgatherv_init(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype,
                               void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *displs,
                               MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *info,
                               MPI_Fint *request, MPI_Fint *ierr)
{
    allgatherv_f(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, info,
                 request, ierr, PMPIX_Allgatherv_init);
}
XCHG_IP_FORTRAN_NAMES(xchg_ip_f_allgatherv_init, mpix_allgatherv_init, MPIX_ALLGATHERV_INIT)
XCHG_IP_F08(xchg_ip_f_allgatherv_init, mpix_allgatherv_init_f08_)
#endif

#endif /* XCHG_IP_OMPI_FORTRAN */
