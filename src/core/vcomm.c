/*
 * Virtual group communicators (vcomm.h): the table, the rank translation of
 * the point-to-point wrappers of pmpi.h, and the group collectives.
 *
 * The table is a fixed array of slots, each a communicator handle (as bits;
 * 0: free) and its group. Creating and freeing take a lock; a lookup scans
 * the slots in use without one: a slot's group is published before its
 * handle, and the only slot a thread looks for is one it owns (its
 * communicator is alive while it uses it), so a concurrent creation or
 * freeing elsewhere cannot change what it finds. MPI allows some two
 * thousand communicators per process (MPICH's context ids), so the slots
 * are not the limit.
 */
#include "vcomm.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "task.h"
#include "wait.h"

typedef struct vcomm {
    int rank, size;   /* in the group */
    int parent_size;
    int *parent_of;   /* group rank -> parent rank */
    int *group_of;    /* parent rank -> group rank, or -1 */
} vcomm;

#define VCOMM_SLOTS 4096

atomic_int xchg_vcomm_live;
static _Atomic uintptr_t slot_comm[VCOMM_SLOTS];
static _Atomic(vcomm *) slot_group[VCOMM_SLOTS];
static atomic_int slots_used; /* slots below this may be taken */
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

_Static_assert(sizeof(MPI_Comm) <= sizeof(uintptr_t), "an MPI_Comm handle fits a uintptr_t");

static uintptr_t comm_bits(MPI_Comm comm)
{
    uintptr_t bits = 0;
    memcpy(&bits, &comm, sizeof comm);
    return bits;
}

static const vcomm *find(MPI_Comm comm)
{
    if (XCHG_NO_VCOMM()) return NULL;
    uintptr_t bits = comm_bits(comm);
    int used = atomic_load_explicit(&slots_used, memory_order_acquire);
    for (int i = 0; i < used; i++)
        if (atomic_load_explicit(&slot_comm[i], memory_order_acquire) == bits)
            return atomic_load_explicit(&slot_group[i], memory_order_relaxed);
    return NULL;
}

static int table_add(MPI_Comm comm, vcomm *v)
{
    int rc = MPI_SUCCESS, i = 0;
    pthread_mutex_lock(&table_lock);
    int used = atomic_load_explicit(&slots_used, memory_order_relaxed);
    while (i < used && atomic_load_explicit(&slot_comm[i], memory_order_relaxed) != 0) i++;
    if (i == VCOMM_SLOTS) {
        rc = xchg_error(MPI_ERR_INTERN, "more than %d sub-communicators made inside tasks",
                        VCOMM_SLOTS);
    } else {
        atomic_store_explicit(&slot_group[i], v, memory_order_relaxed);
        atomic_store_explicit(&slot_comm[i], comm_bits(comm), memory_order_release);
        if (i == used) atomic_store_explicit(&slots_used, used + 1, memory_order_release);
        atomic_fetch_add_explicit(&xchg_vcomm_live, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&table_lock);
    return rc;
}

static vcomm *table_remove(MPI_Comm comm)
{
    vcomm *v = NULL;
    uintptr_t bits = comm_bits(comm);
    pthread_mutex_lock(&table_lock);
    int used = atomic_load_explicit(&slots_used, memory_order_relaxed);
    for (int i = 0; i < used; i++)
        if (atomic_load_explicit(&slot_comm[i], memory_order_relaxed) == bits) {
            v = atomic_load_explicit(&slot_group[i], memory_order_relaxed);
            atomic_store_explicit(&slot_comm[i], 0, memory_order_release);
            atomic_fetch_sub_explicit(&xchg_vcomm_live, 1, memory_order_relaxed);
            break;
        }
    pthread_mutex_unlock(&table_lock);
    return v;
}

static void vcomm_destroy(vcomm *v)
{
    if (!v) return;
    free(v->parent_of);
    free(v->group_of);
    free(v);
}

int xchg_vcomm_is_virtual(MPI_Comm comm) { return find(comm) != NULL; }

int xchg_vcomm_count(void) { return atomic_load_explicit(&xchg_vcomm_live, memory_order_relaxed); }

/* ---- making one ------------------------------------------------------------ */

typedef struct member { int key, parent; } member;

static int by_key_then_rank(const void *x, const void *y)
{
    const member *a = x, *b = y;
    if (a->key != b->key) return (a->key > b->key) - (a->key < b->key);
    return (a->parent > b->parent) - (a->parent < b->parent);
}

int xchg_vcomm_split(MPI_Comm parent, int color, int key, MPI_Comm *out)
{
    int rc, P = 0, me = 0, mine[2] = {color, key}, *all = NULL, n = 0;
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Request idup = MPI_REQUEST_NULL;
    member *members = NULL;
    vcomm *v = NULL;
    *out = MPI_COMM_NULL;
    if (find(parent))
        return xchg_error(MPI_ERR_INTERN, "a sub-communicator of a virtual one is not supported");
    XCHG_CHECK(PMPI_Comm_size(parent, &P));
    XCHG_CHECK(PMPI_Comm_rank(parent, &me));
    XCHG_ALLOC(all, 2 * (size_t)P * sizeof(int));
    XCHG_CHECK(xchg_allgather(mine, 2, MPI_INT, all, 2, MPI_INT, parent));
    /* Every rank of the parent duplicates it, members or not, in the same
     * order: that is what makes the nonblocking duplication legal here. */
#ifdef SMPI_H /* SimGrid SMPI has no MPI_Comm_idup (as context.c) */
    XCHG_CHECK(MPI_Comm_dup(parent, &dup));
#else
    XCHG_CHECK(MPI_Comm_idup(parent, &dup, &idup));
    XCHG_CHECK(xchg_wait(&idup, MPI_STATUS_IGNORE));
#endif
    if (color == MPI_UNDEFINED) {
        MPI_Comm_free(&dup);
        free(all);
        return MPI_SUCCESS;
    }
    XCHG_CHECK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
    XCHG_ALLOC(members, (size_t)P * sizeof *members);
    for (int r = 0; r < P; r++)
        if (all[2 * r] == color) members[n++] = (member){all[2 * r + 1], r};
    qsort(members, (size_t)n, sizeof *members, by_key_then_rank);
    XCHG_ALLOC(v, sizeof *v);
    memset(v, 0, sizeof *v);
    v->size = n;
    v->parent_size = P;
    XCHG_ALLOC(v->parent_of, (size_t)n * sizeof(int));
    XCHG_ALLOC(v->group_of, (size_t)P * sizeof(int));
    for (int r = 0; r < P; r++) v->group_of[r] = -1;
    for (int g = 0; g < n; g++) {
        v->parent_of[g] = members[g].parent;
        v->group_of[members[g].parent] = g;
    }
    v->rank = v->group_of[me];
    XCHG_CHECK(table_add(dup, v));
    *out = dup;
    free(members);
    free(all);
    return MPI_SUCCESS;
fail:
    if (idup != MPI_REQUEST_NULL) xchg_wait(&idup, MPI_STATUS_IGNORE);
    if (dup != MPI_COMM_NULL) MPI_Comm_free(&dup);
    vcomm_destroy(v);
    free(members);
    free(all);
    return rc;
}

void xchg_vcomm_free(MPI_Comm *comm)
{
    vcomm_destroy(table_remove(*comm)); /* before the handle can be reused */
    MPI_Comm_free(comm);
}

/* ---- the point-to-point wrappers' slow path (pmpi.h) ------------------------ */

/* A group rank as the parent's (MPI_PROC_NULL and, where allowed,
 * MPI_ANY_SOURCE stay). */
static int to_parent(const vcomm *v, int *peer, int any_allowed)
{
    if (*peer == MPI_PROC_NULL || (any_allowed && *peer == MPI_ANY_SOURCE)) return MPI_SUCCESS;
    if (*peer == MPI_ANY_SOURCE)
        return xchg_error(MPI_ERR_RANK, "a receive from MPI_ANY_SOURCE on a sub-communicator "
                                        "made inside a task (its status could not be translated)");
    if (*peer < 0 || *peer >= v->size)
        return xchg_error(MPI_ERR_RANK, "rank %d is not in a group of %d", *peer, v->size);
    *peer = v->parent_of[*peer];
    return MPI_SUCCESS;
}

static void status_to_group(const vcomm *v, MPI_Status *status)
{
    if (status != MPI_STATUS_IGNORE && status->MPI_SOURCE >= 0 &&
        status->MPI_SOURCE < v->parent_size)
        status->MPI_SOURCE = v->group_of[status->MPI_SOURCE];
}

int xchg_vcomm_isend(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    const vcomm *v = find(comm);
    int rc = v ? to_parent(v, &dest, 0) : MPI_SUCCESS;
    return rc != MPI_SUCCESS ? rc : PMPI_Isend(buf, count, type, dest, tag, comm, request);
}

int xchg_vcomm_irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                     MPI_Request *request)
{
    const vcomm *v = find(comm);
    int rc = v ? to_parent(v, &source, 0) : MPI_SUCCESS;
    return rc != MPI_SUCCESS ? rc : PMPI_Irecv(buf, count, type, source, tag, comm, request);
}

int xchg_vcomm_send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                    MPI_Comm comm)
{
    const vcomm *v = find(comm);
    int rc = v ? to_parent(v, &dest, 0) : MPI_SUCCESS;
    return rc != MPI_SUCCESS ? rc : PMPI_Send(buf, count, type, dest, tag, comm);
}

int xchg_vcomm_recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                    MPI_Status *status)
{
    const vcomm *v = find(comm);
    int rc = v ? to_parent(v, &source, 1) : MPI_SUCCESS;
    if (rc == MPI_SUCCESS) rc = PMPI_Recv(buf, count, type, source, tag, comm, status);
    if (rc == MPI_SUCCESS && v) status_to_group(v, status);
    return rc;
}

int xchg_vcomm_sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                        int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                        int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    const vcomm *v = find(comm);
    int rc = v ? to_parent(v, &dest, 0) : MPI_SUCCESS;
    if (rc == MPI_SUCCESS && v) rc = to_parent(v, &source, 1);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                           recvtype, source, recvtag, comm, status);
    if (rc == MPI_SUCCESS && v) status_to_group(v, status);
    return rc;
}

int xchg_vcomm_probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    const vcomm *v = find(comm);
    int rc = v ? to_parent(v, &source, 1) : MPI_SUCCESS;
    if (rc == MPI_SUCCESS) rc = PMPI_Probe(source, tag, comm, status);
    if (rc == MPI_SUCCESS && v) status_to_group(v, status);
    return rc;
}

int xchg_vcomm_iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    const vcomm *v = find(comm);
    int rc = v ? to_parent(v, &source, 1) : MPI_SUCCESS;
    if (rc == MPI_SUCCESS) rc = PMPI_Iprobe(source, tag, comm, flag, status);
    if (rc == MPI_SUCCESS && v && *flag) status_to_group(v, status);
    return rc;
}

int xchg_vcomm_comm_rank(MPI_Comm comm, int *rank)
{
    const vcomm *v = find(comm);
    if (!v) return PMPI_Comm_rank(comm, rank);
    *rank = v->rank;
    return MPI_SUCCESS;
}

int xchg_vcomm_comm_size(MPI_Comm comm, int *size)
{
    const vcomm *v = find(comm);
    if (!v) return PMPI_Comm_size(comm, size);
    *size = v->size;
    return MPI_SUCCESS;
}

/* ---- group collectives ------------------------------------------------------ */

/*
 * Every member sends scounts[q] elements of stype at sbuf + soff[q] (bytes)
 * to member q and receives rcounts[q] of rtype at rbuf + roff[q] from it;
 * skip_self: nothing to or from itself (in place). Receives first, then the
 * sends starting at the next member, so no member is everyone's first.
 */
static int group_exchange(const vcomm *v, MPI_Comm comm, const char *sbuf, const int *scounts,
                          const MPI_Aint *soff, MPI_Datatype stype, char *rbuf, const int *rcounts,
                          const MPI_Aint *roff, MPI_Datatype rtype, int skip_self)
{
    const int n = v->size, me = v->rank;
    int rc = MPI_SUCCESS, posted = 0;
    MPI_Request *reqs = NULL;
    XCHG_ALLOC(reqs, 2 * (size_t)n * sizeof(MPI_Request));
    for (int i = 0; i < n; i++) {
        int q = (me + n - i) % n;
        if (skip_self && q == me) continue;
        XCHG_CHECK(PMPI_Irecv(rbuf + roff[q], rcounts[q], rtype, v->parent_of[q], XCHG_VCOMM_TAG,
                              comm, &reqs[posted]));
        posted++;
    }
    for (int i = 0; i < n; i++) {
        int q = (me + i) % n;
        if (skip_self && q == me) continue;
        XCHG_CHECK(PMPI_Isend(sbuf + soff[q], scounts[q], stype, v->parent_of[q], XCHG_VCOMM_TAG,
                              comm, &reqs[posted]));
        posted++;
    }
    XCHG_CHECK(xchg_waitall(posted, reqs, MPI_STATUSES_IGNORE));
    free(reqs);
    return MPI_SUCCESS;
fail:
    if (reqs) xchg_waitall(posted, reqs, MPI_STATUSES_IGNORE);
    free(reqs);
    return rc;
}

static int extent_of(MPI_Datatype type, MPI_Aint *extent)
{
    MPI_Aint lb;
    return MPI_Type_get_extent(type, &lb, extent);
}

/* Counts and byte offsets for group_exchange, n of each side. */
typedef struct layout { int *scounts, *rcounts; MPI_Aint *soff, *roff; } layout;

static int layout_alloc(int n, layout *l)
{
    int rc = MPI_SUCCESS;
    void *mem = NULL;
    XCHG_ALLOC(mem, (size_t)n * (2 * sizeof(int) + 2 * sizeof(MPI_Aint)) + 1);
    l->soff = mem;
    l->roff = l->soff + n;
    l->scounts = (int *)(l->roff + n);
    l->rcounts = l->scounts + n;
fail:
    return rc;
}

static const vcomm *must_find(MPI_Comm comm, int *rc)
{
    const vcomm *v = find(comm);
    *rc = v ? MPI_SUCCESS : xchg_error(MPI_ERR_INTERN, "not a virtual communicator");
    return v;
}

int xchg_vcomm_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, const int recvcounts[], const int displs[],
                          MPI_Datatype recvtype, MPI_Comm comm)
{
    int rc;
    const vcomm *v = must_find(comm, &rc);
    layout l = {0};
    MPI_Aint rext;
    if (!v) return rc;
    const int in_place = sendbuf == MPI_IN_PLACE;
    XCHG_CHECK(extent_of(recvtype, &rext));
    XCHG_CHECK(layout_alloc(v->size, &l));
    for (int q = 0; q < v->size; q++) {
        l.soff[q] = 0;
        l.scounts[q] = in_place ? recvcounts[v->rank] : sendcount;
        l.roff[q] = displs[q] * rext;
        l.rcounts[q] = recvcounts[q];
    }
    if (in_place) {
        sendbuf = (const char *)recvbuf + l.roff[v->rank];
        sendtype = recvtype;
    }
    XCHG_CHECK(group_exchange(v, comm, sendbuf, l.scounts, l.soff, sendtype, recvbuf, l.rcounts,
                              l.roff, recvtype, in_place));
fail:
    free(l.soff);
    return rc;
}

int xchg_vcomm_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    int rc, *ints = NULL;
    const vcomm *v = must_find(comm, &rc);
    if (!v) return rc;
    XCHG_ALLOC(ints, 2 * (size_t)v->size * sizeof(int));
    for (int q = 0; q < v->size; q++) {
        ints[q] = recvcount;
        ints[v->size + q] = q * recvcount;
    }
    XCHG_CHECK(xchg_vcomm_allgatherv(sendbuf, sendcount, sendtype, recvbuf, ints, ints + v->size,
                                     recvtype, comm));
fail:
    free(ints);
    return rc;
}

int xchg_vcomm_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    int rc;
    const vcomm *v = must_find(comm, &rc);
    layout l = {0};
    char *copy = NULL;
    MPI_Aint sext, rext;
    if (!v) return rc;
    XCHG_CHECK(extent_of(recvtype, &rext));
    if (sendbuf == MPI_IN_PLACE) { /* send from a copy of the receive buffer */
        size_t bytes = (size_t)v->size * (size_t)recvcount * (size_t)rext;
        XCHG_ALLOC(copy, bytes + 1);
        memcpy(copy, recvbuf, bytes);
        sendbuf = copy, sendcount = recvcount, sendtype = recvtype;
    }
    XCHG_CHECK(extent_of(sendtype, &sext));
    XCHG_CHECK(layout_alloc(v->size, &l));
    for (int q = 0; q < v->size; q++) {
        l.soff[q] = (MPI_Aint)q * sendcount * sext;
        l.scounts[q] = sendcount;
        l.roff[q] = (MPI_Aint)q * recvcount * rext;
        l.rcounts[q] = recvcount;
    }
    XCHG_CHECK(group_exchange(v, comm, sendbuf, l.scounts, l.soff, sendtype, recvbuf, l.rcounts,
                              l.roff, recvtype, 0));
fail:
    free(l.soff);
    free(copy);
    return rc;
}

int xchg_vcomm_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                         MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                         const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    int rc;
    const vcomm *v = must_find(comm, &rc);
    layout l = {0};
    MPI_Aint sext, rext;
    if (!v) return rc;
    if (sendbuf == MPI_IN_PLACE)
        return xchg_error(MPI_ERR_BUFFER, "MPI_IN_PLACE in an alltoallv on a sub-communicator "
                                          "made inside a task");
    XCHG_CHECK(extent_of(sendtype, &sext));
    XCHG_CHECK(extent_of(recvtype, &rext));
    XCHG_CHECK(layout_alloc(v->size, &l));
    for (int q = 0; q < v->size; q++) {
        l.soff[q] = (MPI_Aint)sdispls[q] * sext;
        l.scounts[q] = sendcounts[q];
        l.roff[q] = (MPI_Aint)rdispls[q] * rext;
        l.rcounts[q] = recvcounts[q];
    }
    XCHG_CHECK(group_exchange(v, comm, sendbuf, l.scounts, l.soff, sendtype, recvbuf, l.rcounts,
                              l.roff, recvtype, 0));
fail:
    free(l.soff);
    return rc;
}

int xchg_vcomm_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                         MPI_Op op, MPI_Comm comm)
{
    int rc;
    const vcomm *v = must_find(comm, &rc);
    char *all = NULL;
    MPI_Aint ext;
    if (!v) return rc;
    XCHG_CHECK(extent_of(type, &ext));
    const size_t block = (size_t)count * (size_t)ext;
    XCHG_ALLOC(all, (size_t)v->size * block + 1);
    XCHG_CHECK(xchg_vcomm_allgather(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, type, all,
                                    count, type, comm));
    /* x0 op (x1 op (... op x(n-1))): MPI_Reduce_local(in, inout) makes
     * inout = in op inout. */
    memcpy(recvbuf, all + (size_t)(v->size - 1) * block, block);
    for (int q = v->size - 2; q >= 0; q--)
        XCHG_CHECK(MPI_Reduce_local(all + (size_t)q * block, recvbuf, count, type, op));
fail:
    free(all);
    return rc;
}

int xchg_vcomm_barrier(MPI_Comm comm)
{
    char none = 0;
    return xchg_vcomm_allgather(&none, 0, MPI_BYTE, &none, 0, MPI_BYTE, comm);
}
