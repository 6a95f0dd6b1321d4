/*
 * What the Fortran entry points (fortran.c: the blocking collectives;
 * fortran_requests.c: the nonblocking and persistent ones under Open MPI;
 * fortran_completion.c: the completion functions) share: Open MPI's
 * MPI_IN_PLACE and MPI_BOTTOM tests, ierror, INTEGER arrays as C int arrays,
 * and the four name manglings of one Fortran entry point.
 */
#ifndef XCHG_INTERPOSE_FORTRAN_H
#define XCHG_INTERPOSE_FORTRAN_H

#include <mpi.h>
#include <stdlib.h>

#define XCHG_EXPORT __attribute__((visibility("default")))

/* An optional ierror (mpi_f08) is a null pointer when absent. */
static inline void xchg_ip_f_set_ierr(MPI_Fint *ierr, int rc)
{
    if (ierr) *ierr = (MPI_Fint)rc;
}

/* `n` Fortran INTEGERs as C ints: the array itself where INTEGER is a C int,
 * else a copy in *copy (free it; NULL: out of memory, or n < 0). */
static inline const int *xchg_ip_f_ints(const MPI_Fint *a, int n, int **copy)
{
    *copy = NULL;
    if (sizeof(MPI_Fint) == sizeof(int) || !a) return (const int *)a;
    if (n < 0 || !(*copy = malloc((size_t)(n > 0 ? n : 1) * sizeof(int)))) return NULL;
    for (int i = 0; i < n; i++) (*copy)[i] = (int)a[i];
    return *copy;
}

/* Open MPI (4.x and 5): the Fortran symbols themselves are defined, in all
 * four manglings (fortran.c says why). */
#if defined(OPEN_MPI) && OPEN_MPI && defined(__has_include)
#if __has_include(<mpif-c-constants-decl.h>)
#define XCHG_IP_OMPI_FORTRAN 1
#endif
#endif

#ifdef XCHG_IP_OMPI_FORTRAN
#include <mpif-c-constants-decl.h>

static inline const void *xchg_ip_f_sendbuf(void *buf)
{
    if (OMPI_IS_FORTRAN_IN_PLACE(buf)) return MPI_IN_PLACE;
    if (OMPI_IS_FORTRAN_BOTTOM(buf)) return MPI_BOTTOM;
    return buf;
}

static inline void *xchg_ip_f_recvbuf(void *buf)
{
    return OMPI_IS_FORTRAN_BOTTOM(buf) ? MPI_BOTTOM : buf;
}
#endif

/* `target`, a C function with the Fortran calling convention, under the
 * names lower, lower_, lower__ and UPPER. */
#define XCHG_IP_FORTRAN_NAMES(target, lower, upper)                                          \
    XCHG_EXPORT __typeof__(target) lower __attribute__((alias(#target)));                     \
    XCHG_EXPORT __typeof__(target) lower##_ __attribute__((alias(#target)));                  \
    XCHG_EXPORT __typeof__(target) lower##__ __attribute__((alias(#target)));                 \
    XCHG_EXPORT __typeof__(target) upper __attribute__((alias(#target)));

#endif
