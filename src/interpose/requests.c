/*
 * MPI requests that stand for xchg requests (see requests.h).
 *
 * The table pairs each MPI handle with its xchg request. It is guarded by
 * one mutex; a thread never blocks while holding it: waiting is a loop of
 * XCHG_Test calls (MPI's own waits poll too), so two threads waiting on
 * different requests both progress. `live` counts the entries, so that the
 * wrappers cost one atomic load while a program has no xchg request.
 *
 * A nonblocking request's entry ends when its xchg request completes (that
 * frees the xchg request); its generalized request is then complete, and
 * the MPI library frees it in the wait or test that reports it, calling
 * grequest_free. A persistent request's entry lives until MPI_Request_free.
 * MPI_Request_free of an active one does not wait: the xchg request is
 * freed in flight (XCHG_Request_free detaches it; it completes under
 * progress), a generalized request is completed so that the MPI library
 * frees it, and the entry ends.
 */
#include "requests.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef struct entry {
    MPI_Request handle;
    XCHG_Request xreq;
    int persistent;
    int active;           /* xchg request started and not yet completed */
    int *result;          /* nonblocking: where the generalized request finds
                             its error code (owned by the MPI library's
                             generalized request, freed by grequest_free) */
    struct entry *next;
} entry;

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static entry *table;
static _Atomic int live;
/* Nonzero after an xchg request was freed in flight (MPI_Request_free): it
 * has no entry any more, but the completion functions must go on
 * progressing xchg until nothing is outstanding (xchg_busy resets it). */
static _Atomic int detached;

static inline int none_live(void)
{
    return atomic_load_explicit(&live, memory_order_acquire) == 0 &&
           atomic_load_explicit(&detached, memory_order_acquire) == 0;
}

/* The entry of `handle`, under table_lock; NULL if it is not ours. */
static entry *find(MPI_Request handle)
{
    if (handle == MPI_REQUEST_NULL) return NULL;
    for (entry *e = table; e; e = e->next)
        if (e->handle == handle) return e;
    return NULL;
}

static void unlink_entry(entry *victim)
{
    for (entry **p = &table; *p; p = &(*p)->next)
        if (*p == victim) {
            *p = victim->next;
            atomic_fetch_sub_explicit(&live, 1, memory_order_release);
            free(victim);
            return;
        }
}

static int add(MPI_Request handle, XCHG_Request xreq, int persistent, int active, int *result)
{
    entry *e = calloc(1, sizeof *e);
    if (!e) return MPI_ERR_NO_MEM;
    *e = (entry){.handle = handle, .xreq = xreq, .persistent = persistent, .active = active,
                 .result = result};
    pthread_mutex_lock(&table_lock);
    e->next = table;
    table = e;
    atomic_fetch_add_explicit(&live, 1, memory_order_release);
    pthread_mutex_unlock(&table_lock);
    return MPI_SUCCESS;
}

/* ---- the generalized request's callbacks ------------------------------- */

static int grequest_query(void *extra_state, MPI_Status *status)
{
    PMPI_Status_set_elements(status, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    return *(int *)extra_state;
}

static int grequest_free(void *extra_state)
{
    free(extra_state);
    return MPI_SUCCESS;
}

static int grequest_cancel(void *extra_state, int complete)
{
    (void)extra_state;
    (void)complete;
    return MPI_SUCCESS; /* a collective cannot be cancelled (MPI_Cancel refuses it) */
}

int xchg_ip_request_nonblocking(XCHG_Request xreq, MPI_Request *handle)
{
    int *result = malloc(sizeof *result);
    if (!result) return MPI_ERR_NO_MEM;
    *result = MPI_SUCCESS;
    int rc = PMPI_Grequest_start(grequest_query, grequest_free, grequest_cancel, result, handle);
    if (rc != MPI_SUCCESS) {
        free(result);
        return rc;
    }
    if (xreq == XCHG_REQUEST_NULL) /* completed in the call already */
        return PMPI_Grequest_complete(*handle);
    return add(*handle, xreq, 0, 1, result);
}

int xchg_ip_request_persistent(XCHG_Request xreq, MPI_Request *handle)
{
    int rc = PMPI_Recv_init(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, handle);
    if (rc == MPI_SUCCESS) rc = add(*handle, xreq, 1, 0, NULL);
    return rc;
}

/* ---- driving xchg requests ---------------------------------------------- */

/* Test e's xchg request once (under table_lock). When it completes, its
 * handle is made complete for the MPI library; a nonblocking entry ends. */
static int drive(entry *e, int *done)
{
    int rc = XCHG_Test(&e->xreq, done, MPI_STATUS_IGNORE);
    if (!*done) return rc;
    e->active = 0;
    if (e->persistent) {
        int rc2 = PMPI_Start(&e->handle);
        return rc != MPI_SUCCESS ? rc : rc2;
    }
    *e->result = rc;
    int rc2 = PMPI_Grequest_complete(e->handle);
    unlink_entry(e);
    return rc != MPI_SUCCESS ? rc : rc2;
}

/* Test every active xchg request in `requests` once. *pending: how many are
 * still in flight. */
static int drive_array(int count, const MPI_Request requests[], int *pending)
{
    int rc = MPI_SUCCESS;
    *pending = 0;
    pthread_mutex_lock(&table_lock);
    for (int i = 0; i < count; i++) {
        entry *e = find(requests[i]);
        if (!e || !e->active) continue;
        int done, rc1 = drive(e, &done);
        if (rc == MPI_SUCCESS) rc = rc1;
        if (!done) ++*pending;
    }
    pthread_mutex_unlock(&table_lock);
    return rc;
}

/* Until every xchg request in `requests` has completed. */
static int drive_all(int count, const MPI_Request requests[])
{
    int pending, rc;
    do rc = drive_array(count, requests, &pending);
    while (rc == MPI_SUCCESS && pending > 0);
    return rc;
}

/* ---- the MPI completion functions ----------------------------------------- */

/* Advance xchg's outstanding calls (every one, not only those in the array:
 * a program that waits for its own messages must move xchg's too); whether
 * any is still in flight. While one is, a wait must not block inside the
 * MPI library: it polls instead. */
static int xchg_busy(void)
{
    int pending = 0;
    if (none_live()) return 0;
    int freed = atomic_load_explicit(&detached, memory_order_acquire);
    XCHG_Progress(&pending);
    if (!pending && freed) /* the freed ones have completed */
        atomic_compare_exchange_strong(&detached, &freed, 0);
    return pending;
}

int xchg_ip_wait(MPI_Request *request, MPI_Status *status)
{
    if (none_live()) return PMPI_Wait(request, status);
    int flag = 0, rc = drive_all(1, request);
    while (rc == MPI_SUCCESS && xchg_busy()) {
        rc = PMPI_Test(request, &flag, status);
        if (flag) return rc;
    }
    return rc != MPI_SUCCESS ? rc : PMPI_Wait(request, status);
}

int xchg_ip_test(MPI_Request *request, int *flag, MPI_Status *status)
{
    if (none_live()) return PMPI_Test(request, flag, status);
    xchg_busy();
    int pending, rc = drive_array(1, request, &pending);
    if (rc != MPI_SUCCESS) return rc;
    if (pending) { /* an inactive persistent handle would report completion */
        *flag = 0;
        return MPI_SUCCESS;
    }
    return PMPI_Test(request, flag, status);
}

int xchg_ip_waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    if (none_live()) return PMPI_Waitall(count, requests, statuses);
    int flag = 0, rc = drive_all(count, requests);
    while (rc == MPI_SUCCESS && xchg_busy()) {
        rc = PMPI_Testall(count, requests, &flag, statuses);
        if (flag) return rc;
    }
    return rc != MPI_SUCCESS ? rc : PMPI_Waitall(count, requests, statuses);
}

int xchg_ip_testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    if (none_live()) return PMPI_Testall(count, requests, flag, statuses);
    xchg_busy();
    int pending, rc = drive_array(count, requests, &pending);
    if (rc != MPI_SUCCESS) return rc;
    if (pending) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    return PMPI_Testall(count, requests, flag, statuses);
}

int xchg_ip_testany(int count, MPI_Request requests[], int *index, int *flag,
                    MPI_Status *status)
{
    if (none_live()) return PMPI_Testany(count, requests, index, flag, status);
    xchg_busy();
    int pending, rc = drive_array(count, requests, &pending);
    if (rc == MPI_SUCCESS) rc = PMPI_Testany(count, requests, index, flag, status);
    /* "no active request" is not true while an xchg request is in flight */
    if (rc == MPI_SUCCESS && *flag && *index == MPI_UNDEFINED && pending) *flag = 0;
    return rc;
}

int xchg_ip_waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    if (none_live()) return PMPI_Waitany(count, requests, index, status);
    int flag = 0, rc;
    do rc = xchg_ip_testany(count, requests, index, &flag, status);
    while (rc == MPI_SUCCESS && !flag);
    return rc;
}

int xchg_ip_testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                     MPI_Status statuses[])
{
    if (none_live()) return PMPI_Testsome(incount, requests, outcount, indices, statuses);
    xchg_busy();
    int pending, rc = drive_array(incount, requests, &pending);
    if (rc == MPI_SUCCESS) rc = PMPI_Testsome(incount, requests, outcount, indices, statuses);
    if (rc == MPI_SUCCESS && *outcount == MPI_UNDEFINED && pending) *outcount = 0;
    return rc;
}

int xchg_ip_waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                     MPI_Status statuses[])
{
    if (none_live()) return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
    int rc;
    do rc = xchg_ip_testsome(incount, requests, outcount, indices, statuses);
    while (rc == MPI_SUCCESS && *outcount == 0);
    return rc;
}

int xchg_ip_start_ours(MPI_Request *request, int *ours)
{
    *ours = 0;
    if (none_live()) return MPI_SUCCESS;
    pthread_mutex_lock(&table_lock);
    entry *e = find(*request);
    int rc = MPI_SUCCESS;
    if (e) {
        *ours = 1;
        if (e->active) rc = MPI_ERR_REQUEST; /* started twice */
        else if ((rc = XCHG_Start(&e->xreq)) == MPI_SUCCESS) e->active = 1;
    }
    pthread_mutex_unlock(&table_lock);
    return rc;
}

int xchg_ip_start(MPI_Request *request)
{
    int ours, rc = xchg_ip_start_ours(request, &ours);
    return ours ? rc : PMPI_Start(request);
}

int xchg_ip_startall(int count, MPI_Request requests[])
{
    if (none_live()) return PMPI_Startall(count, requests);
    for (int i = 0; i < count; i++) {
        int rc = xchg_ip_start(&requests[i]);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

int xchg_ip_request_release(MPI_Request request, XCHG_Request *xreq)
{
    *xreq = XCHG_REQUEST_NULL;
    if (none_live()) return MPI_SUCCESS;
    int rc = MPI_SUCCESS, active = 0;
    pthread_mutex_lock(&table_lock);
    entry *e = find(request);
    if (e) {
        *xreq = e->xreq;
        active = e->active;
        if (!e->persistent) { /* in flight: MPI frees it once complete */
            *e->result = MPI_SUCCESS;
            rc = PMPI_Grequest_complete(e->handle);
        }
        unlink_entry(e);
    }
    pthread_mutex_unlock(&table_lock);
    if (active) atomic_fetch_add_explicit(&detached, 1, memory_order_release);
    return rc;
}

int xchg_ip_request_finish(XCHG_Request xreq, int rc)
{
    if (xreq == XCHG_REQUEST_NULL) return rc;
    int freed = XCHG_Request_free(&xreq); /* in flight: completes later, under progress */
    return rc != MPI_SUCCESS ? rc : freed;
}

int xchg_ip_request_free(MPI_Request *request)
{
    if (none_live()) return PMPI_Request_free(request);
    XCHG_Request xreq;
    int rc = xchg_ip_request_release(*request, &xreq);
    if (rc == MPI_SUCCESS) rc = PMPI_Request_free(request);
    return xchg_ip_request_finish(xreq, rc);
}

int xchg_ip_requests_live(void)
{
    return !none_live();
}

int xchg_ip_requests_busy(void)
{
    return xchg_busy();
}

int xchg_ip_requests_drive(int count, const MPI_Request requests[], int until_done,
                           int *pending)
{
    int unused;
    if (none_live()) {
        if (pending) *pending = 0;
        return MPI_SUCCESS;
    }
    if (until_done) {
        if (pending) *pending = 0;
        return drive_all(count, requests);
    }
    return drive_array(count, requests, pending ? pending : &unused);
}

int xchg_ip_request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    if (none_live()) return PMPI_Request_get_status(request, flag, status);
    int pending, rc = drive_array(1, &request, &pending);
    if (rc != MPI_SUCCESS) return rc;
    if (pending) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    return PMPI_Request_get_status(request, flag, status);
}

int xchg_ip_cancel(MPI_Request *request)
{
    if (none_live()) return PMPI_Cancel(request);
    pthread_mutex_lock(&table_lock);
    int ours = find(*request) != NULL;
    pthread_mutex_unlock(&table_lock);
    /* MPI: cancelling a collective's request is erroneous */
    return ours ? MPI_ERR_REQUEST : PMPI_Cancel(request);
}
