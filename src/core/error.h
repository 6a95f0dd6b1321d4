/* Errors: every MPI call checked, one exit path, messages like MPI's. */
#ifndef XCHG_CORE_ERROR_H
#define XCHG_CORE_ERROR_H

#include "pmpi.h"
#include <stddef.h>

/* Record a message for XCHG_Last_error() and return `code`. */
int xchg_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Raise `code` through the user's communicator error handler, as MPI does
 * (unless the library raised it already: xchg_library_error). Under
 * MPI_ERRORS_ARE_FATAL the message is printed before the abort. */
int xchg_raise(MPI_Comm user_comm, int code);

/* The MPI library's error `code` from its collective `call` made on the
 * user's own communicator (a blocking `mpi`: src/coll/mpi/mpi.c): the
 * library has raised it through the communicator's error handler itself,
 * as it would without xchg. Recorded for XCHG_Last_error(); xchg_raise
 * passes the same code on without raising it again (thread's last only). */
int xchg_library_error(int code, const char *call);

/* `rc` of the library's collective `call` on the user's own communicator:
 * MPI_SUCCESS, or xchg_library_error's. */
static inline int xchg_library_result(int rc, const char *call)
{
    return rc == MPI_SUCCESS ? rc : xchg_library_error(rc, call);
}

/* Check an MPI call; on failure store the code in `rc` and jump to `fail`. */
#define XCHG_CHECK(call)                                                             \
    do {                                                                             \
        rc = (call);                                                                 \
        if (rc != MPI_SUCCESS) goto fail;                                            \
    } while (0)

/* Allocate or fail with MPI_ERR_NO_MEM (stores into `rc`, jumps to `fail`). */
#define XCHG_ALLOC(ptr, nbytes)                                                      \
    do {                                                                             \
        (ptr) = xchg_malloc(nbytes);                                                 \
        if ((ptr) == NULL && (nbytes) != 0) {                                        \
            rc = xchg_error(MPI_ERR_NO_MEM, "out of memory (%zu bytes)",             \
                            (size_t)(nbytes));                                       \
            goto fail;                                                               \
        }                                                                            \
    } while (0)

void *xchg_malloc(size_t nbytes);

/* Zeroed memory aligned to `align` (a power of two that divides nbytes, as
 * a struct's size is a multiple of its alignment), for records whose
 * hot fields share one cache line; free() frees it. NULL: out of memory. */
void *xchg_zalloc_aligned(size_t align, size_t nbytes);

/* A communicator of this process alone with MPI_ERRORS_RETURN, for local
 * checks that need one (created at first use, freed at MPI_Finalize; a
 * context's own duplicate may still be in creation). */
int xchg_self_comm(MPI_Comm *comm);

#endif
