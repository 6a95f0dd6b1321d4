/*
 * The life cycle of persistent requests (include/xchg.h), for one algorithm
 * that posts at start (nonblocking) and one that runs at start (bruck):
 * XCHG_Startall of two requests, each completed by XCHG_Wait with the result
 * checked against PMPI; XCHG_Start of an active request is MPI_ERR_REQUEST;
 * XCHG_Test and XCHG_Wait of an inactive request complete at once with an
 * empty status; XCHG_Request_free of a started request completes it first
 * and sets the handle to XCHG_REQUEST_NULL.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static MPI_Info selecting(const char *selection)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "xchg_algorithm", selection);
    return info;
}

static int check_class(int rc, int want, const char *what)
{
    int cls = -1;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    if (rc == MPI_SUCCESS && want == MPI_SUCCESS) return 1;
    if (cls == want) return 1;
    return fail_msg("%s: returned %d (class %d), expected class %d", what, rc, cls, want);
}

static int life_cycle(MPI_Comm comm, const char *selection)
{
    int rank, size, ok = 1, flag = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int n = 4;
    size_t bytes = (size_t)n * size * sizeof(int);
    int *send = malloc(bytes), *want = malloc(bytes), *got[2] = {malloc(bytes), malloc(bytes)};
    for (int i = 0; i < n * size; i++) send[i] = rank * 1000 + i;
    PMPI_Alltoall(send, n, MPI_INT, want, n, MPI_INT, comm);
    XCHG_Request req[2] = {XCHG_REQUEST_NULL, XCHG_REQUEST_NULL};
    MPI_Info info = selecting(selection);
    for (int k = 0; k < 2; k++)
        ok = ok && check_class(XCHG_Alltoall_init(send, n, MPI_INT, got[k], n, MPI_INT, comm, info,
                                                  &req[k]), MPI_SUCCESS, "init");
    MPI_Info_free(&info);
    if (ok) {
        MPI_Status status;
        ok = check_class(XCHG_Test(&req[0], &flag, &status), MPI_SUCCESS, "Test, inactive");
        if (ok && (!flag || status.MPI_SOURCE != MPI_ANY_SOURCE || status.MPI_TAG != MPI_ANY_TAG))
            ok = fail_msg("Test of an inactive request: flag %d, source %d, tag %d", flag,
                          status.MPI_SOURCE, status.MPI_TAG);
        ok = ok && check_class(XCHG_Startall(2, req), MPI_SUCCESS, "Startall");
        ok = ok && check_class(XCHG_Start(&req[0]), MPI_ERR_REQUEST, "Start of an active request");
        ok = ok && check_class(XCHG_Wait(&req[0], MPI_STATUS_IGNORE), MPI_SUCCESS, "Wait");
        ok = ok && check_class(XCHG_Wait(&req[0], MPI_STATUS_IGNORE), MPI_SUCCESS, "Wait, inactive");
        ok = ok && check_class(XCHG_Wait(&req[1], MPI_STATUS_IGNORE), MPI_SUCCESS, "Wait");
        for (int k = 0; k < 2 && ok; k++)
            if (memcmp(got[k], want, bytes) != 0)
                ok = fail_msg("request %d: result differs from PMPI_Alltoall", k);
        /* Started, then freed without a wait: the free returns at once (as
         * MPI_Request_free), the exchange completes under progress. */
        memset(got[1], 0xff, bytes);
        ok = ok && check_class(XCHG_Start(&req[1]), MPI_SUCCESS, "Start");
    }
    int started = ok;
    for (int k = 0; k < 2; k++)
        if (req[k] != XCHG_REQUEST_NULL) {
            ok = check_class(XCHG_Request_free(&req[k]), MPI_SUCCESS, "Request_free") && ok;
            if (req[k] != XCHG_REQUEST_NULL) ok = fail_msg("Request_free left the handle set");
        }
    /* The buffers stay until the freed request's exchange has completed. */
    for (int pending = 1; pending;) XCHG_Progress(&pending);
    if (started && memcmp(got[1], want, bytes) != 0)
        ok = fail_msg("request freed in flight: result differs from PMPI_Alltoall");
    free(send);
    free(want);
    free(got[0]);
    free(got[1]);
    return ok;
}

int requests_run(MPI_Comm comm, const char *layout_name, tally *t)
{
    static const char *const selections[] = {"nonblocking", "bruck"};
    int size;
    MPI_Comm_size(comm, &size);
    for (int s = 0; s < 2; s++) {
        const char *sel = selections[s];
        snprintf(current_case, sizeof current_case, "requests: alltoall %s P=%d layout=%s", sel,
                 size, layout_name);
        record_case(comm, life_cycle(comm, sel), t);
    }
    return 0;
}
