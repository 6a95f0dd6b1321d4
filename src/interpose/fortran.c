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
 * The nonblocking and persistent collectives from Fortran (Open MPI's call
 * PMPI_Ialltoall, PMPIX_Alltoall_init, ... as its blocking ones call
 * PMPI_Alltoall) are in fortran_requests.c, the completion functions that
 * must drive xchg's requests behind Fortran handles (MPICH's mpi_f08 ones,
 * every one of Open MPI's) in fortran_completion.c.
 *
 * mpi_f08 collectives (Open MPI). Open MPI 4's MPI_Alltoall_f08 (symbol
 * mpi_alltoall_f08_) passes choice buffers as plain addresses (ignore-TKR),
 * handles as one INTEGER (TYPE(MPI_Comm) has the single component MPI_VAL) and
 * the optional ierror as a null pointer when absent: the calling convention of
 * mpif.h, so the same function serves it. Open MPI 5 may pass buffers as
 * TS 29113 descriptors (MPI_SUBARRAYS_SUPPORTED), so there `use mpi_f08`
 * collectives pass through to MPI unchanged.
 */
#include <mpi.h>

#include "fortran.h"
#include "route.h"

/* `use mpi_f08`: MPI_Finalize(ierror), ierror optional (NULL when absent). */
XCHG_EXPORT void mpi_finalize_f08_(MPI_Fint *ierr)
{
    int rc = xchg_ip_finalize();
    if (ierr) *ierr = (MPI_Fint)rc;
}

#ifdef XCHG_IP_OMPI_FORTRAN

#define f2c_sendbuf xchg_ip_f_sendbuf
#define f2c_recvbuf xchg_ip_f_recvbuf
#define set_ierr xchg_ip_f_set_ierr

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
