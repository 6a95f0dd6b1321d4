/*
 * Fortran entry points: those the C wrappers (c_bindings.c) cannot see.
 *
 * Which ones. Open MPI's Fortran bindings (libmpi_mpifh, and libmpi_usempif08
 * through it) convert the arguments and call the C PMPI_Alltoall directly, so
 * the C wrappers never see a Fortran call: on Open MPI we define the Fortran
 * symbols themselves, in all four manglings (mpi_alltoall_, mpi_alltoall__,
 * mpi_alltoall, MPI_ALLTOALL), for MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw,
 * MPI_Allgather, MPI_Allgatherv and MPI_Finalize. MPICH's Fortran bindings
 * (libmpichfort) call the C MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw,
 * MPI_Allgather, MPI_Allgatherv (mpi_f08 too) and, from mpif.h
 * and `use mpi`, MPI_Finalize, which c_bindings.c already defines: defining
 * them again would gain nothing and would have to redo MPICH's conversions, so
 * on MPICH every Fortran collective reaches xchg exactly once, through C, after
 * MPICH converted it. The one exception is `use mpi_f08`'s MPI_Finalize, which
 * calls PMPI_Finalize in MPICH and in Open MPI alike: we define
 * mpi_finalize_f08_ for every MPI, so XCHG_VERBOSE reports for f08 programs.
 *
 * MPI_IN_PLACE and MPI_BOTTOM (Open MPI). In Fortran they are variables in
 * common blocks; a Fortran program passes their address, which differs from
 * C's MPI_IN_PLACE. We test for them with Open MPI's own
 * OMPI_IS_FORTRAN_IN_PLACE and OMPI_IS_FORTRAN_BOTTOM from
 * <mpif-c-constants-decl.h>, the header Open MPI installs for this purpose
 * (generated for the installation's Fortran name mangling): the same test Open
 * MPI's own bindings make, so we recognize MPI_IN_PLACE exactly when Open MPI
 * would. The alternatives were weaker: a Fortran routine in this library that
 * records the address would define the common block itself and could,
 * preloaded, take the symbol over from the MPI library; dlsym of internal names
 * guesses their mangling.
 *
 * MPICH's mpi_f08 completion functions (mpi_wait_f08_, mpi_start_f08_, ...)
 * call PMPI_Wait, PMPI_Start, ..., while its nonblocking and persistent
 * collectives (mpi_ialltoall_f08ts_, mpi_alltoall_init_f08ts_, ...) call the
 * C MPI_Ialltoall, MPI_Alltoall_init, ... that the drop-in routes: the
 * completion functions would never advance, nor MPI_Start start, the xchg
 * request behind a handle. So on MPICH we define them: each first does what
 * requests.c does for the C ones (drive, start or release the xchg requests
 * among its handles), then calls MPICH's own (dlsym RTLD_NEXT) with the
 * arguments untouched, so statuses, MPI_STATUS_IGNORE and ierror stay
 * MPICH's business. MPI_Waitany and MPI_Waitsome first complete every xchg
 * request in the array (still MPI's semantics: they return at least one).
 * MPI_Request_get_status from mpi_f08 is not wrapped.
 *
 * mpi_f08 collectives (Open MPI). Open MPI 4's MPI_Alltoall_f08 (symbol
 * mpi_alltoall_f08_) passes choice buffers as plain addresses (ignore-TKR),
 * handles as one INTEGER (TYPE(MPI_Comm) has the single component MPI_VAL) and
 * the optional ierror as a null pointer when absent: the calling convention of
 * mpif.h, so the same function serves it. Open MPI 5 may pass buffers as
 * TS 29113 descriptors (MPI_SUBARRAYS_SUPPORTED), so there `use mpi_f08`
 * collectives pass through to MPI unchanged.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <mpi.h>

#include "requests.h"
#include "route.h"

#define XCHG_EXPORT __attribute__((visibility("default")))

/* `use mpi_f08`: MPI_Finalize(ierror), ierror optional (NULL when absent). */
XCHG_EXPORT void mpi_finalize_f08_(MPI_Fint *ierr)
{
    int rc = xchg_ip_finalize();
    if (ierr) *ierr = (MPI_Fint)rc;
}

#if defined(MPICH)

#include <dlfcn.h>
#include <stdlib.h>

/* MPICH's own Fortran function `name`, NULL if absent. */
static void *mpich_own(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

#define OWN(type, name)                                                                      \
    static type *_Atomic own;                                                                \
    if (!own) own = (type *)mpich_own(name);                                                 \
    if (!own) {                                                                              \
        if (ierr) *ierr = MPI_ERR_INTERN;                                                    \
        return;                                                                              \
    }

static void f08_ierr(MPI_Fint *ierr, int rc)
{
    if (ierr) *ierr = (MPI_Fint)rc;
}

/* The C handles of `count` Fortran ones (NULL: out of memory). */
static MPI_Request *c_requests(int count, const MPI_Fint *requests)
{
    MPI_Request *c = malloc((size_t)(count > 0 ? count : 1) * sizeof *c);
    if (c)
        for (int i = 0; i < count; i++) c[i] = PMPI_Request_f2c(requests[i]);
    return c;
}

/* Drive the xchg requests among `count` Fortran handles; 0: go on to MPICH's. */
static int drive_f(int count, const MPI_Fint *requests, int until_done, int *pending,
                   MPI_Fint *ierr)
{
    *pending = 0;
    if (!xchg_ip_requests_live()) return 0;
    MPI_Request *c = c_requests(count, requests);
    int rc = c ? xchg_ip_requests_drive(count, c, until_done, pending) : MPI_ERR_NO_MEM;
    free(c);
    if (rc == MPI_SUCCESS) return 0;
    f08_ierr(ierr, rc);
    return 1;
}

typedef void f08_wait_fn(MPI_Fint *request, void *status, MPI_Fint *ierr);
typedef void f08_waitall_fn(MPI_Fint *count, MPI_Fint *requests, void *statuses,
                            MPI_Fint *ierr);
typedef void f08_test_fn(MPI_Fint *request, MPI_Fint *flag, void *status, MPI_Fint *ierr);
typedef void f08_testall_fn(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag,
                            void *statuses, MPI_Fint *ierr);
typedef void f08_waitany_fn(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, void *status,
                            MPI_Fint *ierr);
typedef void f08_testany_fn(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index,
                            MPI_Fint *flag, void *status, MPI_Fint *ierr);
typedef void f08_some_fn(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,
                         MPI_Fint *indices, void *statuses, MPI_Fint *ierr);
typedef void f08_start_fn(MPI_Fint *request, MPI_Fint *ierr);
typedef void f08_startall_fn(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *ierr);

XCHG_EXPORT void mpi_wait_f08_(MPI_Fint *request, void *status, MPI_Fint *ierr)
{
    OWN(f08_wait_fn, "mpi_wait_f08_")
    int pending;
    if (!drive_f(1, request, 1, &pending, ierr)) own(request, status, ierr);
}

XCHG_EXPORT void mpi_waitall_f08_(MPI_Fint *count, MPI_Fint *requests, void *statuses,
                                  MPI_Fint *ierr)
{
    OWN(f08_waitall_fn, "mpi_waitall_f08_")
    int pending;
    if (!drive_f((int)*count, requests, 1, &pending, ierr)) own(count, requests, statuses, ierr);
}

XCHG_EXPORT void mpi_waitany_f08_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index,
                                  void *status, MPI_Fint *ierr)
{
    OWN(f08_waitany_fn, "mpi_waitany_f08_")
    int pending;
    if (!drive_f((int)*count, requests, 1, &pending, ierr))
        own(count, requests, index, status, ierr);
}

XCHG_EXPORT void mpi_waitsome_f08_(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,
                                   MPI_Fint *indices, void *statuses, MPI_Fint *ierr)
{
    OWN(f08_some_fn, "mpi_waitsome_f08_")
    int pending;
    if (!drive_f((int)*incount, requests, 1, &pending, ierr))
        own(incount, requests, outcount, indices, statuses, ierr);
}

/* An xchg request still in flight: not complete (an inactive persistent
 * handle would report completion). */
XCHG_EXPORT void mpi_test_f08_(MPI_Fint *request, MPI_Fint *flag, void *status, MPI_Fint *ierr)
{
    OWN(f08_test_fn, "mpi_test_f08_")
    int pending;
    if (drive_f(1, request, 0, &pending, ierr)) return;
    if (pending) {
        *flag = 0; /* .false. */
        f08_ierr(ierr, MPI_SUCCESS);
        return;
    }
    own(request, flag, status, ierr);
}

XCHG_EXPORT void mpi_testall_f08_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag,
                                  void *statuses, MPI_Fint *ierr)
{
    OWN(f08_testall_fn, "mpi_testall_f08_")
    int pending;
    if (drive_f((int)*count, requests, 0, &pending, ierr)) return;
    if (pending) {
        *flag = 0;
        f08_ierr(ierr, MPI_SUCCESS);
        return;
    }
    own(count, requests, flag, statuses, ierr);
}

XCHG_EXPORT void mpi_testany_f08_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index,
                                  MPI_Fint *flag, void *status, MPI_Fint *ierr)
{
    OWN(f08_testany_fn, "mpi_testany_f08_")
    int pending;
    if (drive_f((int)*count, requests, 0, &pending, ierr)) return;
    own(count, requests, index, flag, status, ierr);
    /* "no active request" is not true while an xchg request is in flight */
    if (*flag && *index == MPI_UNDEFINED && pending) *flag = 0;
}

XCHG_EXPORT void mpi_testsome_f08_(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,
                                   MPI_Fint *indices, void *statuses, MPI_Fint *ierr)
{
    OWN(f08_some_fn, "mpi_testsome_f08_")
    int pending;
    if (drive_f((int)*incount, requests, 0, &pending, ierr)) return;
    own(incount, requests, outcount, indices, statuses, ierr);
    if (*outcount == MPI_UNDEFINED && pending) *outcount = 0;
}

XCHG_EXPORT void mpi_start_f08_(MPI_Fint *request, MPI_Fint *ierr)
{
    OWN(f08_start_fn, "mpi_start_f08_")
    MPI_Request c = PMPI_Request_f2c(*request);
    int ours, rc = xchg_ip_start_ours(&c, &ours);
    if (ours) f08_ierr(ierr, rc);
    else own(request, ierr);
}

XCHG_EXPORT void mpi_startall_f08_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *ierr)
{
    if (!xchg_ip_requests_live()) {
        OWN(f08_startall_fn, "mpi_startall_f08_")
        own(count, requests, ierr);
        return;
    }
    for (int i = 0; i < (int)*count; i++) {
        mpi_start_f08_(&requests[i], ierr);
        if (ierr && *ierr != MPI_SUCCESS) return;
    }
}

XCHG_EXPORT void mpi_request_free_f08_(MPI_Fint *request, MPI_Fint *ierr)
{
    OWN(f08_start_fn, "mpi_request_free_f08_")
    int rc = xchg_ip_request_release(PMPI_Request_f2c(*request));
    if (rc != MPI_SUCCESS) f08_ierr(ierr, rc);
    else own(request, ierr);
}

#endif /* MPICH */

#if defined(OPEN_MPI) && OPEN_MPI && defined(__has_include)
#if __has_include(<mpif-c-constants-decl.h>)
#define XCHG_IP_OMPI_FORTRAN 1
#endif
#endif

#ifdef XCHG_IP_OMPI_FORTRAN

#include <mpif-c-constants-decl.h>
#include <stdlib.h>

static const void *f2c_sendbuf(void *buf)
{
    if (OMPI_IS_FORTRAN_IN_PLACE(buf)) return MPI_IN_PLACE;
    if (OMPI_IS_FORTRAN_BOTTOM(buf)) return MPI_BOTTOM;
    return buf;
}

static void *f2c_recvbuf(void *buf)
{
    return OMPI_IS_FORTRAN_BOTTOM(buf) ? MPI_BOTTOM : buf;
}

static void set_ierr(MPI_Fint *ierr, int rc)
{
    if (ierr) *ierr = (MPI_Fint)rc; /* absent optional ierror (mpi_f08): NULL */
}

void xchg_ip_f_alltoall(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                        MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    set_ierr(ierr, xchg_ip_alltoall(f2c_sendbuf(sendbuf), (int)*sendcount,
                                    PMPI_Type_f2c(*sendtype), f2c_recvbuf(recvbuf),
                                    (int)*recvcount, PMPI_Type_f2c(*recvtype),
                                    PMPI_Comm_f2c(*comm)));
}

void xchg_ip_f_allgather(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                         MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    set_ierr(ierr, xchg_ip_allgather(f2c_sendbuf(sendbuf), (int)*sendcount,
                                     PMPI_Type_f2c(*sendtype), f2c_recvbuf(recvbuf),
                                     (int)*recvcount, PMPI_Type_f2c(*recvtype),
                                     PMPI_Comm_f2c(*comm)));
}

void xchg_ip_f_alltoallv(void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls,
                         MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
                         MPI_Fint *rdispls, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Comm c_comm = PMPI_Comm_f2c(*comm);
    const void *c_sendbuf = f2c_sendbuf(sendbuf);
    if (sizeof(MPI_Fint) == sizeof(int)) {
        set_ierr(ierr, xchg_ip_alltoallv(c_sendbuf, (const int *)sendcounts, (const int *)sdispls,
                                         PMPI_Type_f2c(*sendtype), f2c_recvbuf(recvbuf),
                                         (const int *)recvcounts, (const int *)rdispls,
                                         PMPI_Type_f2c(*recvtype), c_comm));
        return;
    }
    /* INTEGER is not a C int (e.g. -fdefault-integer-8 builds): copy the arrays. */
    int size = 0, rc = c_comm == MPI_COMM_NULL ? MPI_ERR_COMM : PMPI_Comm_size(c_comm, &size);
    int *arr = rc == MPI_SUCCESS ? malloc(4 * (size_t)(size > 0 ? size : 1) * sizeof(int)) : NULL;
    if (!arr) { /* let MPI report the error on this call */
        set_ierr(ierr, PMPI_Alltoallv(c_sendbuf, NULL, NULL, PMPI_Type_f2c(*sendtype),
                                      f2c_recvbuf(recvbuf), NULL, NULL, PMPI_Type_f2c(*recvtype),
                                      c_comm));
        return;
    }
    int in_place = c_sendbuf == MPI_IN_PLACE;
    for (int p = 0; p < size; p++) {
        arr[p] = in_place ? 0 : (int)sendcounts[p];
        arr[size + p] = in_place ? 0 : (int)sdispls[p];
        arr[2 * size + p] = (int)recvcounts[p];
        arr[3 * size + p] = (int)rdispls[p];
    }
    set_ierr(ierr, xchg_ip_alltoallv(c_sendbuf, arr, arr + size, PMPI_Type_f2c(*sendtype),
                                     f2c_recvbuf(recvbuf), arr + 2 * size, arr + 3 * size,
                                     PMPI_Type_f2c(*recvtype), c_comm));
    free(arr);
}

/* Alltoallw: the datatype handles are converted one by one, so the arrays
 * are always copied. With MPI_IN_PLACE the send arrays are not read. */
void xchg_ip_f_alltoallw(void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls,
                         MPI_Fint *sendtypes, void *recvbuf, MPI_Fint *recvcounts,
                         MPI_Fint *rdispls, MPI_Fint *recvtypes, MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Comm c_comm = PMPI_Comm_f2c(*comm);
    const void *c_sendbuf = f2c_sendbuf(sendbuf);
    int size = 0, rc = c_comm == MPI_COMM_NULL ? MPI_ERR_COMM : PMPI_Comm_size(c_comm, &size);
    size_t n = (size_t)(size > 0 ? size : 1);
    int *arr = rc == MPI_SUCCESS ? malloc(4 * n * sizeof(int)) : NULL;
    MPI_Datatype *types = arr ? malloc(2 * n * sizeof(MPI_Datatype)) : NULL;
    if (!types) { /* let MPI report the error on this call */
        free(arr);
        set_ierr(ierr, PMPI_Alltoallw(c_sendbuf, NULL, NULL, NULL, f2c_recvbuf(recvbuf), NULL,
                                      NULL, NULL, c_comm));
        return;
    }
    int in_place = c_sendbuf == MPI_IN_PLACE;
    for (int p = 0; p < size; p++) {
        arr[p] = in_place ? 0 : (int)sendcounts[p];
        arr[size + p] = in_place ? 0 : (int)sdispls[p];
        arr[2 * size + p] = (int)recvcounts[p];
        arr[3 * size + p] = (int)rdispls[p];
        types[p] = in_place ? MPI_DATATYPE_NULL : PMPI_Type_f2c(sendtypes[p]);
        types[size + p] = PMPI_Type_f2c(recvtypes[p]);
    }
    set_ierr(ierr, xchg_ip_alltoallw(c_sendbuf, arr, arr + size, types, f2c_recvbuf(recvbuf),
                                     arr + 2 * size, arr + 3 * size, types + size, c_comm));
    free(arr);
    free(types);
}

void xchg_ip_f_allgatherv(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                          MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype,
                          MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Comm c_comm = PMPI_Comm_f2c(*comm);
    const void *c_sendbuf = f2c_sendbuf(sendbuf);
    if (sizeof(MPI_Fint) == sizeof(int)) {
        set_ierr(ierr, xchg_ip_allgatherv(c_sendbuf, (int)*sendcount, PMPI_Type_f2c(*sendtype),
                                          f2c_recvbuf(recvbuf), (const int *)recvcounts,
                                          (const int *)displs, PMPI_Type_f2c(*recvtype), c_comm));
        return;
    }
    /* INTEGER is not a C int: copy the arrays (as for alltoallv). */
    int size = 0, rc = c_comm == MPI_COMM_NULL ? MPI_ERR_COMM : PMPI_Comm_size(c_comm, &size);
    int *arr = rc == MPI_SUCCESS ? malloc(2 * (size_t)(size > 0 ? size : 1) * sizeof(int)) : NULL;
    if (!arr) { /* let MPI report the error on this call */
        set_ierr(ierr, PMPI_Allgatherv(c_sendbuf, (int)*sendcount, PMPI_Type_f2c(*sendtype),
                                       f2c_recvbuf(recvbuf), NULL, NULL,
                                       PMPI_Type_f2c(*recvtype), c_comm));
        return;
    }
    for (int p = 0; p < size; p++) {
        arr[p] = (int)recvcounts[p];
        arr[size + p] = (int)displs[p];
    }
    set_ierr(ierr, xchg_ip_allgatherv(c_sendbuf, (int)*sendcount, PMPI_Type_f2c(*sendtype),
                                      f2c_recvbuf(recvbuf), arr, arr + size,
                                      PMPI_Type_f2c(*recvtype), c_comm));
    free(arr);
}

void xchg_ip_f_finalize(MPI_Fint *ierr)
{
    set_ierr(ierr, xchg_ip_finalize());
}

#define XCHG_IP_FORTRAN_NAMES(target, lower, upper)                                          \
    XCHG_EXPORT __typeof__(target) lower __attribute__((alias(#target)));                     \
    XCHG_EXPORT __typeof__(target) lower##_ __attribute__((alias(#target)));                  \
    XCHG_EXPORT __typeof__(target) lower##__ __attribute__((alias(#target)));                 \
    XCHG_EXPORT __typeof__(target) upper __attribute__((alias(#target)));

XCHG_IP_FORTRAN_NAMES(xchg_ip_f_alltoall, mpi_alltoall, MPI_ALLTOALL)
XCHG_IP_FORTRAN_NAMES(xchg_ip_f_alltoallv, mpi_alltoallv, MPI_ALLTOALLV)
XCHG_IP_FORTRAN_NAMES(xchg_ip_f_alltoallw, mpi_alltoallw, MPI_ALLTOALLW)
XCHG_IP_FORTRAN_NAMES(xchg_ip_f_allgather, mpi_allgather, MPI_ALLGATHER)
XCHG_IP_FORTRAN_NAMES(xchg_ip_f_allgatherv, mpi_allgatherv, MPI_ALLGATHERV)
XCHG_IP_FORTRAN_NAMES(xchg_ip_f_finalize, mpi_finalize, MPI_FINALIZE)

#if OMPI_MAJOR_VERSION < 5
XCHG_EXPORT __typeof__(xchg_ip_f_alltoall) mpi_alltoall_f08_ __attribute__((alias("xchg_ip_f_alltoall")));
XCHG_EXPORT __typeof__(xchg_ip_f_alltoallv) mpi_alltoallv_f08_ __attribute__((alias("xchg_ip_f_alltoallv")));
XCHG_EXPORT __typeof__(xchg_ip_f_alltoallw) mpi_alltoallw_f08_ __attribute__((alias("xchg_ip_f_alltoallw")));
XCHG_EXPORT __typeof__(xchg_ip_f_allgather) mpi_allgather_f08_ __attribute__((alias("xchg_ip_f_allgather")));
XCHG_EXPORT __typeof__(xchg_ip_f_allgatherv) mpi_allgatherv_f08_ __attribute__((alias("xchg_ip_f_allgatherv")));
#endif

#endif /* XCHG_IP_OMPI_FORTRAN */
