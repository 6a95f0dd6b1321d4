/* Error messages and raising errors through the user's error handler. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xchg.h"

static _Thread_local char last_error[1024];
/* The code of the thread's last error that the MPI library raised itself
 * (xchg_library_error), until xchg_raise passes it on; 0: none. */
static _Thread_local int raised_by_library;

int xchg_error(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return code;
}

int xchg_library_error(int code, const char *call)
{
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(code, text, &len);
    raised_by_library = code;
    return xchg_error(code, "%s (the MPI library's own collective, selected): %s", call, text);
}

const char *XCHG_Last_error(void)
{
    return last_error;
}

void *xchg_malloc(size_t nbytes)
{
    return nbytes ? malloc(nbytes) : NULL;
}

void *xchg_zalloc_aligned(size_t align, size_t nbytes)
{
    void *p = aligned_alloc(align, nbytes);
    if (p) memset(p, 0, nbytes);
    return p;
}

/* SimGrid 3.32's predefined error handlers have no function to call:
 * MPI_Comm_call_errhandler jumps to NULL. Under SMPI xchg does what they
 * stand for itself. */
#ifdef SMPI_H
enum { predefined_handlers_callable = 0 };
#else
enum { predefined_handlers_callable = 1 };
#endif

int xchg_raise(MPI_Comm user_comm, int code)
{
    if (code == MPI_SUCCESS) return code;
    int raised = code == raised_by_library;
    raised_by_library = 0;
    if (raised) return code; /* the library called the handler */
    MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
    if (user_comm != MPI_COMM_NULL && MPI_Comm_get_errhandler(user_comm, &handler) == MPI_SUCCESS) {
        int fatal = handler == MPI_ERRORS_ARE_FATAL, returns = handler == MPI_ERRORS_RETURN;
        if (fatal) fprintf(stderr, "xchg: %s\n", last_error[0] ? last_error : "MPI error");
        if (handler != MPI_ERRHANDLER_NULL) MPI_Errhandler_free(&handler);
        if (!predefined_handlers_callable && returns) return code;
        if (!predefined_handlers_callable && fatal) MPI_Abort(user_comm, code);
        MPI_Comm_call_errhandler(user_comm, code);
    }
    return code;
}
