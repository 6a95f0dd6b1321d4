/*
 * Fortran completion functions that must drive xchg's requests behind the
 * Fortran handles the drop-in returned (requests.h), where the MPI's
 * Fortran bindings reach the MPI library's completion functions without
 * passing through the C MPI_Wait, ... of c_bindings.c:
 *   MPICH:    its mpi_f08 ones (mpi_wait_f08_, mpi_start_f08_, ...) call
 *             PMPI_Wait, PMPI_Start, ... (mpif.h and `use mpi` call the C
 *             MPI_Wait, which c_bindings.c defines);
 *   Open MPI: all of them: mpif.h and `use mpi` (mpi_wait_, in the four
 *             manglings) and mpi_f08 (mpi_wait_f08_, which calls ompi_wait_f)
 *             call PMPI_Wait, ... (4.1: `gdb -batch -ex 'disassemble
 *             ompi_wait_f' libmpi_mpifh.so` shows the call).
 * Each first does what requests.c does for the C function (advance xchg's
 * outstanding calls, drive, start or release the xchg requests among its
 * handles), then calls the MPI library's own Fortran function (dlsym
 * RTLD_NEXT) with the arguments untouched, so statuses, MPI_STATUS_IGNORE,
 * logical flags and ierror stay the MPI's business. MPI_Wait and MPI_Waitall
 * poll (the MPI's own test) while xchg has calls in flight, as their C forms
 * do; MPI_Waitany and MPI_Waitsome first complete every xchg request in the
 * array (still MPI's semantics: they return at least one). While no xchg
 * request exists each is one atomic load away from the MPI's own.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <mpi.h>
#include <stdlib.h>

#include "fortran.h"
#include "requests.h"

#if defined(MPICH) || defined(XCHG_IP_OMPI_FORTRAN)

/* The MPI library's own Fortran function `name`, looked up once into *slot. */
static void *own_function(void *_Atomic *slot, const char *name)
{
    void *f = *slot;
    if (!f) *slot = f = dlsym(RTLD_NEXT, name);
    return f;
}

#define OWN(type, name)                                                                      \
    static void *_Atomic own_slot;                                                           \
    type *own = (type *)own_function(&own_slot, name);                                       \
    if (!own) {                                                                              \
        xchg_ip_f_set_ierr(ierr, MPI_ERR_INTERN);                                            \
        return;                                                                              \
    }

/* The C handles of `count` Fortran ones (NULL: out of memory). */
static MPI_Request *c_requests(int count, const MPI_Fint *requests)
{
    MPI_Request *c = malloc((size_t)(count > 0 ? count : 1) * sizeof *c);
    if (c)
        for (int i = 0; i < count; i++) c[i] = PMPI_Request_f2c(requests[i]);
    return c;
}

/* Drive the xchg requests among `count` Fortran handles (a test also
 * advances every other xchg call); 0: go on to the MPI's own function. */
static int drive_f(int count, const MPI_Fint *requests, int until_done, int *pending,
                   MPI_Fint *ierr)
{
    *pending = 0;
    if (!xchg_ip_requests_live()) return 0;
    if (!until_done) xchg_ip_requests_busy();
    MPI_Request *c = c_requests(count, requests);
    int rc = c ? xchg_ip_requests_drive(count, c, until_done, pending) : MPI_ERR_NO_MEM;
    free(c);
    if (rc == MPI_SUCCESS) return 0;
    xchg_ip_f_set_ierr(ierr, rc);
    return 1;
}

typedef void f_wait_fn(MPI_Fint *request, void *status, MPI_Fint *ierr);
typedef void f_waitall_fn(MPI_Fint *count, MPI_Fint *requests, void *statuses, MPI_Fint *ierr);
typedef void f_test_fn(MPI_Fint *request, MPI_Fint *flag, void *status, MPI_Fint *ierr);
typedef void f_testall_fn(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag, void *statuses,
                          MPI_Fint *ierr);
typedef void f_waitany_fn(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, void *status,
                          MPI_Fint *ierr);
typedef void f_testany_fn(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag,
                          void *status, MPI_Fint *ierr);
typedef void f_some_fn(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,
                       MPI_Fint *indices, void *statuses, MPI_Fint *ierr);
typedef void f_start_fn(MPI_Fint *request, MPI_Fint *ierr);
typedef void f_startall_fn(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *ierr);
typedef void f_get_status_fn(MPI_Fint *request, MPI_Fint *flag, void *status, MPI_Fint *ierr);

/* The bodies, given the MPI's own functions of the binding (mpif.h / `use
 * mpi`, or mpi_f08) they serve. */

static void wait_f(f_wait_fn *own, f_test_fn *own_test, MPI_Fint *request, void *status,
                   MPI_Fint *ierr)
{
    int pending;
    MPI_Fint flag = 0;
    if (drive_f(1, request, 1, &pending, ierr)) return;
    while (own_test && xchg_ip_requests_busy()) { /* xchg's other calls move meanwhile */
        own_test(request, &flag, status, ierr);
        if (flag || (ierr && *ierr != MPI_SUCCESS)) return;
    }
    own(request, status, ierr);
}

static void waitall_f(f_waitall_fn *own, f_testall_fn *own_test, MPI_Fint *count,
                      MPI_Fint *requests, void *statuses, MPI_Fint *ierr)
{
    int pending;
    MPI_Fint flag = 0;
    if (drive_f((int)*count, requests, 1, &pending, ierr)) return;
    while (own_test && xchg_ip_requests_busy()) {
        own_test(count, requests, &flag, statuses, ierr);
        if (flag || (ierr && *ierr != MPI_SUCCESS)) return;
    }
    own(count, requests, statuses, ierr);
}

static void waitany_f(f_waitany_fn *own, MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index,
                      void *status, MPI_Fint *ierr)
{
    int pending;
    if (!drive_f((int)*count, requests, 1, &pending, ierr)) own(count, requests, index, status, ierr);
}

static void waitsome_f(f_some_fn *own, MPI_Fint *incount, MPI_Fint *requests,
                       MPI_Fint *outcount, MPI_Fint *indices, void *statuses, MPI_Fint *ierr)
{
    int pending;
    if (!drive_f((int)*incount, requests, 1, &pending, ierr))
        own(incount, requests, outcount, indices, statuses, ierr);
}

/* An xchg request still in flight: not complete (an inactive persistent
 * handle would report completion). */
static void test_f(f_test_fn *own, MPI_Fint *request, MPI_Fint *flag, void *status,
                   MPI_Fint *ierr)
{
    int pending;
    if (drive_f(1, request, 0, &pending, ierr)) return;
    if (pending) {
        *flag = 0; /* .false. */
        xchg_ip_f_set_ierr(ierr, MPI_SUCCESS);
        return;
    }
    own(request, flag, status, ierr);
}

static void testall_f(f_testall_fn *own, MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag,
                      void *statuses, MPI_Fint *ierr)
{
    int pending;
    if (drive_f((int)*count, requests, 0, &pending, ierr)) return;
    if (pending) {
        *flag = 0;
        xchg_ip_f_set_ierr(ierr, MPI_SUCCESS);
        return;
    }
    own(count, requests, flag, statuses, ierr);
}

static void testany_f(f_testany_fn *own, MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index,
                      MPI_Fint *flag, void *status, MPI_Fint *ierr)
{
    int pending;
    if (drive_f((int)*count, requests, 0, &pending, ierr)) return;
    own(count, requests, index, flag, status, ierr);
    /* "no active request" is not true while an xchg request is in flight */
    if (*flag && *index == MPI_UNDEFINED && pending) *flag = 0;
}

static void testsome_f(f_some_fn *own, MPI_Fint *incount, MPI_Fint *requests,
                       MPI_Fint *outcount, MPI_Fint *indices, void *statuses, MPI_Fint *ierr)
{
    int pending;
    if (drive_f((int)*incount, requests, 0, &pending, ierr)) return;
    own(incount, requests, outcount, indices, statuses, ierr);
    if (*outcount == MPI_UNDEFINED && pending) *outcount = 0;
}

static void get_status_f(f_get_status_fn *own, MPI_Fint *request, MPI_Fint *flag, void *status,
                         MPI_Fint *ierr)
{
    int pending;
    if (drive_f(1, request, 0, &pending, ierr)) return;
    if (pending) {
        *flag = 0;
        xchg_ip_f_set_ierr(ierr, MPI_SUCCESS);
        return;
    }
    own(request, flag, status, ierr);
}

static void start_f(f_start_fn *own, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request c = PMPI_Request_f2c(*request);
    int ours, rc = xchg_ip_start_ours(&c, &ours);
    if (ours) xchg_ip_f_set_ierr(ierr, rc);
    else own(request, ierr);
}

static void startall_f(f_startall_fn *own, f_start_fn *own_start, MPI_Fint *count,
                       MPI_Fint *requests, MPI_Fint *ierr)
{
    if (!xchg_ip_requests_live()) {
        own(count, requests, ierr);
        return;
    }
    MPI_Fint rc = MPI_SUCCESS;
    for (int i = 0; i < (int)*count && rc == MPI_SUCCESS; i++) start_f(own_start, &requests[i], &rc);
    xchg_ip_f_set_ierr(ierr, rc);
}

static void request_free_f(f_start_fn *own, MPI_Fint *request, MPI_Fint *ierr)
{
    XCHG_Request xreq;
    int rc = xchg_ip_request_release(PMPI_Request_f2c(*request), &xreq);
    if (rc == MPI_SUCCESS) {
        own(request, ierr); /* the handle first (requests.h) */
        rc = xchg_ip_request_finish(xreq, MPI_SUCCESS);
        if (rc != MPI_SUCCESS) xchg_ip_f_set_ierr(ierr, rc);
    } else {
        xchg_ip_request_finish(xreq, rc);
        xchg_ip_f_set_ierr(ierr, rc);
    }
}

/* One binding's wrappers, binding_wait, ..., calling the MPI's own
 * functions named own_name("wait"), ... */
#define XCHG_IP_F_COMPLETION(binding, own_name)                                               \
    void binding##_wait(MPI_Fint *request, void *status, MPI_Fint *ierr)                     \
    {                                                                                         \
        static void *_Atomic test_slot;                                                       \
        OWN(f_wait_fn, own_name("wait"))                                                      \
        wait_f(own, (f_test_fn *)own_function(&test_slot, own_name("test")), request, status, \
               ierr);                                                                         \
    }                                                                                         \
    void binding##_waitall(MPI_Fint *count, MPI_Fint *requests, void *statuses,               \
                           MPI_Fint *ierr)                                                    \
    {                                                                                         \
        static void *_Atomic test_slot;                                                       \
        OWN(f_waitall_fn, own_name("waitall"))                                                \
        waitall_f(own, (f_testall_fn *)own_function(&test_slot, own_name("testall")), count,  \
                  requests, statuses, ierr);                                                  \
    }                                                                                         \
    void binding##_waitany(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index,              \
                           void *status, MPI_Fint *ierr)                                      \
    {                                                                                         \
        OWN(f_waitany_fn, own_name("waitany"))                                                \
        waitany_f(own, count, requests, index, status, ierr);                                 \
    }                                                                                         \
    void binding##_waitsome(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,        \
                            MPI_Fint *indices, void *statuses, MPI_Fint *ierr)                \
    {                                                                                         \
        OWN(f_some_fn, own_name("waitsome"))                                                  \
        waitsome_f(own, incount, requests, outcount, indices, statuses, ierr);                \
    }                                                                                         \
    void binding##_test(MPI_Fint *request, MPI_Fint *flag, void *status, MPI_Fint *ierr)      \
    {                                                                                         \
        OWN(f_test_fn, own_name("test"))                                                      \
        test_f(own, request, flag, status, ierr);                                             \
    }                                                                                         \
    void binding##_testall(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag,               \
                           void *statuses, MPI_Fint *ierr)                                    \
    {                                                                                         \
        OWN(f_testall_fn, own_name("testall"))                                                \
        testall_f(own, count, requests, flag, statuses, ierr);                                \
    }                                                                                         \
    void binding##_testany(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index,              \
                           MPI_Fint *flag, void *status, MPI_Fint *ierr)                      \
    {                                                                                         \
        OWN(f_testany_fn, own_name("testany"))                                                \
        testany_f(own, count, requests, index, flag, status, ierr);                           \
    }                                                                                         \
    void binding##_testsome(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,        \
                            MPI_Fint *indices, void *statuses, MPI_Fint *ierr)                \
    {                                                                                         \
        OWN(f_some_fn, own_name("testsome"))                                                  \
        testsome_f(own, incount, requests, outcount, indices, statuses, ierr);                \
    }                                                                                         \
    void binding##_request_get_status(MPI_Fint *request, MPI_Fint *flag, void *status,        \
                                      MPI_Fint *ierr)                                         \
    {                                                                                         \
        OWN(f_get_status_fn, own_name("request_get_status"))                                  \
        get_status_f(own, request, flag, status, ierr);                                       \
    }                                                                                         \
    void binding##_start(MPI_Fint *request, MPI_Fint *ierr)                                   \
    {                                                                                         \
        OWN(f_start_fn, own_name("start"))                                                    \
        start_f(own, request, ierr);                                                          \
    }                                                                                         \
    void binding##_startall(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *ierr)              \
    {                                                                                         \
        static void *_Atomic start_slot;                                                      \
        OWN(f_startall_fn, own_name("startall"))                                              \
        f_start_fn *own_start = (f_start_fn *)own_function(&start_slot, own_name("start"));  \
        if (!own_start) {                                                                     \
            xchg_ip_f_set_ierr(ierr, MPI_ERR_INTERN);                                         \
            return;                                                                           \
        }                                                                                     \
        startall_f(own, own_start, count, requests, ierr);                                    \
    }                                                                                         \
    void binding##_request_free(MPI_Fint *request, MPI_Fint *ierr)                            \
    {                                                                                         \
        OWN(f_start_fn, own_name("request_free"))                                             \
        request_free_f(own, request, ierr);                                                   \
    }

/* mpi_f08, both MPIs: mpi_wait_f08_, ... */
#define F08_NAME(fn) "mpi_" fn "_f08_"
XCHG_IP_F_COMPLETION(xchg_ip_f08, F08_NAME)
#define XCHG_IP_F08_NAME(fn)                                                                  \
    XCHG_EXPORT __typeof__(xchg_ip_f08_##fn) mpi_##fn##_f08_ __attribute__((alias("xchg_ip_f08_" #fn)));
XCHG_IP_F08_NAME(wait)
XCHG_IP_F08_NAME(waitall)
XCHG_IP_F08_NAME(waitany)
XCHG_IP_F08_NAME(waitsome)
XCHG_IP_F08_NAME(test)
XCHG_IP_F08_NAME(testall)
XCHG_IP_F08_NAME(testany)
XCHG_IP_F08_NAME(testsome)
XCHG_IP_F08_NAME(request_get_status)
XCHG_IP_F08_NAME(start)
XCHG_IP_F08_NAME(startall)
XCHG_IP_F08_NAME(request_free)

#ifdef XCHG_IP_OMPI_FORTRAN
/* mpif.h and `use mpi` (Open MPI): mpi_wait_ and its other manglings. */
#define FH_NAME(fn) "mpi_" fn "_"
XCHG_IP_F_COMPLETION(xchg_ip_fh, FH_NAME)
XCHG_IP_FORTRAN_NAMES(xchg_ip_fh_wait, mpi_wait, MPI_WAIT)
XCHG_IP_FORTRAN_NAMES(xchg_ip_fh_waitall, mpi_waitall, MPI_WAITALL)
XCHG_IP_FORTRAN_NAMES(xchg_ip_fh_waitany, mpi_waitany, MPI_WAITANY)
XCHG_IP_FORTRAN_NAMES(xchg_ip_fh_waitsome, mpi_waitsome, MPI_WAITSOME)
XCHG_IP_FORTRAN_NAMES(xchg_ip_fh_test, mpi_test, MPI_TEST)
XCHG_IP_FORTRAN_NAMES(xchg_ip_fh_testall, mpi_testall, MPI_TESTALL)
XCHG_IP_FORTRAN_NAMES(xchg_ip_fh_testany, mpi_testany, MPI_TESTANY)
XCHG_IP_FORTRAN_NAMES(xchg_ip_fh_testsome, mpi_testsome, MPI_TESTSOME)
XCHG_IP_FORTRAN_NAMES(xchg_ip_fh_request_get_status, mpi_request_get_status,
                      MPI_REQUEST_GET_STATUS)
XCHG_IP_FORTRAN_NAMES(xchg_ip_fh_start, mpi_start, MPI_START)
XCHG_IP_FORTRAN_NAMES(xchg_ip_fh_startall, mpi_startall, MPI_STARTALL)
XCHG_IP_FORTRAN_NAMES(xchg_ip_fh_request_free, mpi_request_free, MPI_REQUEST_FREE)
#endif

#endif /* MPICH or Open MPI */
