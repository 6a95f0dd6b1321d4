/*
 * Validation and normalization of the dense collectives' arguments (one
 * block packed and unpacked: pack.c; the neighbourhood collective's:
 * neighbor_args.c; the side helpers both use: args_sides.h).
 */
#include "args.h"

#include <stdlib.h>
#include <string.h>

#include "args_sides.h"
#include "error.h"

static const char *const coll_names[XCHG_NUM_COLL] = {
    [XCHG_ALLTOALL] = "alltoall", [XCHG_ALLTOALLV] = "alltoallv", [XCHG_ALLGATHER] = "allgather",
    [XCHG_NEIGHBOR_ALLTOALLV] = "neighbor_alltoallv", [XCHG_ALLTOALLW] = "alltoallw",
    [XCHG_ALLGATHERV] = "allgatherv"};

const char *xchg_coll_name(xchg_coll coll)
{
    return coll_names[coll];
}

int xchg_coll_from_name(const char *name, xchg_coll *coll)
{
    for (int c = 0; c < XCHG_NUM_COLL; c++)
        if (name && strcmp(name, coll_names[c]) == 0) {
            *coll = (xchg_coll)c;
            return MPI_SUCCESS;
        }
    return xchg_error(MPI_ERR_ARG, "unknown collective '%s': valid choices are alltoall, "
                                   "alltoallv, alltoallw, allgather, allgatherv, "
                                   "neighbor_alltoallv",
                      name ? name : "(null)");
}

int xchg_type_describe(MPI_Datatype type, xchg_type_info *info)
{
    int rc, size;
    MPI_Aint lb, extent, true_lb, true_extent;
    memset(info, 0, sizeof *info);
    if (type == MPI_DATATYPE_NULL)
        return xchg_error(MPI_ERR_TYPE, "datatype is MPI_DATATYPE_NULL");
    XCHG_CHECK(MPI_Type_size(type, &size));
    XCHG_CHECK(MPI_Type_get_extent(type, &lb, &extent));
    XCHG_CHECK(MPI_Type_get_true_extent(type, &true_lb, &true_extent));
    info->type = type;
    info->size = size;
    info->extent = extent;
    info->true_lb = true_lb;
    info->true_extent = true_extent;
    /* Contiguous bytes: the data fills exactly [0, size) and the next element
     * starts right after it. A type with gaps fails true_extent == size. */
    info->contiguous = (true_lb == 0 && true_extent == size && extent == size);
fail:
    return rc;
}

/*
 * MPI_IN_PLACE: the data to send sits in the receive buffer, laid out like the
 * receive blocks (for allgather: only the own block). Copy the span of bytes
 * those blocks cover into memory of our own and send from the copy with the
 * receive datatype, so that receiving never overwrites data not yet sent.
 * `own_block_only` selects allgather's meaning.
 * Only the room is allocated here (its address is fixed, for persistent
 * plans); the copy itself is taken by xchg_args_refresh_in_place once the
 * call's buffers are known to be host memory (xchg_device_route, device.h).
 */
static int resolve_in_place(xchg_args *a, side_arrays *send_arr, int own_block_only)
{
    const xchg_side *r = &a->recv;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int p = 0; p < a->size; p++) {
        int src = own_block_only ? a->rank : p;
        const xchg_type_info *t = xchg_side_type(r, src);
        if (r->counts[src] == 0 || t->size == 0) continue;
        int64_t first = r->offsets[src] + t->true_lb;
        int64_t last = r->offsets[src] + (int64_t)(r->counts[src] - 1) * t->extent +
                       t->true_lb + t->true_extent;
        if (first < lo) lo = first;
        if (last > hi) hi = last;
    }
    a->send.type = r->type;
    a->send.types = r->types; /* alltoallw: the receive side's per-peer types */
    side_init(&a->send, send_arr, NULL);
    for (int p = 0; p < a->size; p++) {
        int src = own_block_only ? a->rank : p;
        send_arr->counts[p] = r->counts[src];
        send_arr->bytes[p] = r->bytes[src];
        send_arr->offsets[p] = lo <= hi ? r->offsets[src] - lo : 0;
    }
    a->in_place = 1;
    if (lo > hi) return MPI_SUCCESS; /* nothing to send */
    char *copy = xchg_malloc((size_t)(hi - lo));
    if (!copy) return xchg_error(MPI_ERR_NO_MEM, "out of memory for the MPI_IN_PLACE copy");
    a->owned_copy = copy;
    a->in_place_source = r->buf + lo;
    a->in_place_bytes = (size_t)(hi - lo);
    a->send.buf = copy;
    return MPI_SUCCESS;
}

/* Shared tail of the three normalizers: recv side described and checked
 * already; fill the send side from the user's or resolve MPI_IN_PLACE. */
static int finish_send_side(xchg_args *a, side_arrays *send_arr, const void *sendbuf,
                            MPI_Datatype sendtype, int own_block_only)
{
    int rc;
    if (sendbuf == MPI_IN_PLACE) return resolve_in_place(a, send_arr, own_block_only);
    XCHG_CHECK(xchg_type_describe(sendtype, &a->send.type));
    side_init(&a->send, send_arr, (void *)sendbuf);
    XCHG_CHECK(side_check(&a->send, a->size, "send"));
fail:
    return rc;
}

int xchg_args_alltoallv(xchg_args *a, const void *sendbuf, const int *sendcounts,
                        const int *sdispls, MPI_Datatype sendtype, void *recvbuf,
                        const int *recvcounts, const int *rdispls, MPI_Datatype recvtype,
                        MPI_Comm comm, int rank, int size)
{
    side_arrays arr[2] = {{0}}; /* filled by alloc_arrays (zeroed for gcc -O3) */
    int rc;
    args_init(a, XCHG_ALLTOALLV, comm, rank, size);
    if (!recvcounts || !rdispls)
        return xchg_error(MPI_ERR_ARG, "recvcounts or rdispls is NULL");
    if (sendbuf != MPI_IN_PLACE && (!sendcounts || !sdispls))
        return xchg_error(MPI_ERR_ARG, "sendcounts or sdispls is NULL");
    XCHG_CHECK(xchg_type_describe(recvtype, &a->recv.type));
    XCHG_CHECK(alloc_arrays(a, size, 2, arr));
    side_init(&a->recv, &arr[1], recvbuf);
    for (int p = 0; p < size; p++) {
        arr[1].counts[p] = recvcounts[p];
        arr[1].offsets[p] = (int64_t)rdispls[p] * a->recv.type.extent;
    }
    XCHG_CHECK(side_check(&a->recv, size, "receive"));
    if (sendbuf != MPI_IN_PLACE)
        for (int p = 0; p < size; p++) arr[0].counts[p] = sendcounts[p];
    XCHG_CHECK(finish_send_side(a, &arr[0], sendbuf, sendtype, 0));
    if (sendbuf != MPI_IN_PLACE) /* the extent is known only now */
        for (int p = 0; p < size; p++) arr[0].offsets[p] = (int64_t)sdispls[p] * a->send.type.extent;
    return MPI_SUCCESS;
fail:
    xchg_args_free(a);
    return rc;
}

/*
 * Whether a derived datatype is committed. MPI has no query, and an
 * uncommitted type crashes Open MPI 4.1's MPI_Pack_size, so it is asked the
 * way both libraries answer: a send of one element to MPI_PROC_NULL, which
 * moves nothing and fails with MPI_ERR_TYPE for an uncommitted type (Open
 * MPI and MPICH check it before anything else). Predefined types are always
 * committed. The send goes on a communicator of this process alone that
 * returns errors (xchg_self_comm).
 */
static int check_committed(MPI_Datatype type, const char *what, int peer)
{
    int rc, ints, addrs, types, combiner;
    char dummy[1];
    MPI_Request req = MPI_REQUEST_NULL;
    XCHG_CHECK(MPI_Type_get_envelope(type, &ints, &addrs, &types, &combiner));
    if (combiner == MPI_COMBINER_NAMED) return MPI_SUCCESS;
    MPI_Comm self;
    XCHG_CHECK(xchg_self_comm(&self));
    if (MPI_Isend(dummy, 1, type, MPI_PROC_NULL, 0, self, &req) != MPI_SUCCESS)
        return xchg_error(MPI_ERR_TYPE, "%s datatype for rank %d is not committed "
                          "(MPI_Type_commit)", what, peer);
    XCHG_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE)); /* to MPI_PROC_NULL: local */
fail:
    return rc;
}

/* Alltoallw: describe each peer's datatype of one side; the side's own
 * `type` keeps only whether every non-empty block is contiguous. Derived
 * types of non-empty blocks must be committed (MPI_ERR_TYPE, not a crash). */
static int describe_types(xchg_side *s, xchg_type_info *infos, const MPI_Datatype *types,
                          const int *counts, int size, const char *what)
{
    int rc = MPI_SUCCESS, contiguous = 1;
    for (int p = 0; p < size; p++) {
        /* A type repeated from the previous peer is described (and, for a
         * non-empty block, checked) once. */
        int repeated = p > 0 && types[p] == types[p - 1] && types[p] != MPI_DATATYPE_NULL;
        int checked = repeated && counts[p - 1] > 0;
        if (types[p] == MPI_DATATYPE_NULL && counts[p] != 0)
            return xchg_error(MPI_ERR_TYPE, "%s datatype for rank %d is MPI_DATATYPE_NULL "
                              "(count %d)", what, p, counts[p]);
        if (repeated)
            infos[p] = infos[p - 1];
        else /* MPI_DATATYPE_NULL for an empty block: described as bytes */
            XCHG_CHECK(xchg_type_describe(types[p] == MPI_DATATYPE_NULL ? MPI_BYTE : types[p],
                                          &infos[p]));
        if (counts[p] > 0 && !checked) XCHG_CHECK(check_committed(types[p], what, p));
        if (counts[p] > 0 && infos[p].size > 0 && !infos[p].contiguous) contiguous = 0;
    }
    memset(&s->type, 0, sizeof s->type);
    s->type.type = MPI_DATATYPE_NULL;
    s->type.contiguous = contiguous;
    s->types = infos;
fail:
    return rc;
}

int xchg_args_alltoallw(xchg_args *a, const void *sendbuf, const int *sendcounts,
                        const int *sdispls, const MPI_Datatype *sendtypes, void *recvbuf,
                        const int *recvcounts, const int *rdispls,
                        const MPI_Datatype *recvtypes, MPI_Comm comm, int rank, int size)
{
    side_arrays arr[2] = {{0}}; /* filled by alloc_arrays (zeroed for gcc -O3) */
    int rc;
    int in_place = sendbuf == MPI_IN_PLACE;
    args_init(a, XCHG_ALLTOALLW, comm, rank, size);
    if (!recvcounts || !rdispls || !recvtypes)
        return xchg_error(MPI_ERR_ARG, "recvcounts, rdispls or recvtypes is NULL");
    if (!in_place && (!sendcounts || !sdispls || !sendtypes))
        return xchg_error(MPI_ERR_ARG, "sendcounts, sdispls or sendtypes is NULL");
    XCHG_CHECK(alloc_arrays(a, size, 2, arr));
    XCHG_ALLOC(a->owned_types, 2 * (size_t)size * sizeof(xchg_type_info) + 1);
    side_init(&a->recv, &arr[1], recvbuf);
    for (int p = 0; p < size; p++) {
        arr[1].counts[p] = recvcounts[p];
        arr[1].offsets[p] = rdispls[p]; /* bytes, as MPI_Alltoallw says */
    }
    XCHG_CHECK(describe_types(&a->recv, a->owned_types + size, recvtypes, recvcounts, size,
                              "receive"));
    XCHG_CHECK(side_check(&a->recv, size, "receive"));
    if (in_place) {
        XCHG_CHECK(resolve_in_place(a, &arr[0], 0));
        return MPI_SUCCESS;
    }
    side_init(&a->send, &arr[0], (void *)sendbuf);
    for (int p = 0; p < size; p++) {
        arr[0].counts[p] = sendcounts[p];
        arr[0].offsets[p] = sdispls[p];
    }
    XCHG_CHECK(describe_types(&a->send, a->owned_types, sendtypes, sendcounts, size, "send"));
    XCHG_CHECK(side_check(&a->send, size, "send"));
    return MPI_SUCCESS;
fail:
    xchg_args_free(a);
    return rc;
}

/* Uniform blocks: the normalizer shared by alltoall and allgather. */
static int args_uniform(xchg_args *a, xchg_coll coll, const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm, int rank, int size)
{
    side_arrays arr[2] = {{0}}; /* filled by alloc_arrays (zeroed for gcc -O3) */
    int rc;
    int send_block_is_shared = (coll == XCHG_ALLGATHER); /* one block sent to all */
    args_init(a, coll, comm, rank, size);
    XCHG_CHECK(xchg_type_describe(recvtype, &a->recv.type));
    XCHG_CHECK(alloc_arrays(a, size, 2, arr));
    side_init(&a->recv, &arr[1], recvbuf);
    for (int p = 0; p < size; p++) {
        arr[1].counts[p] = recvcount;
        arr[1].offsets[p] = (int64_t)p * recvcount * a->recv.type.extent;
    }
    XCHG_CHECK(side_check(&a->recv, size, "receive"));
    if (sendbuf != MPI_IN_PLACE) {
        XCHG_CHECK(xchg_type_describe(sendtype, &a->send.type));
        for (int p = 0; p < size; p++) {
            arr[0].counts[p] = sendcount;
            arr[0].offsets[p] =
                send_block_is_shared ? 0 : (int64_t)p * sendcount * a->send.type.extent;
        }
    }
    XCHG_CHECK(finish_send_side(a, &arr[0], sendbuf, sendtype, send_block_is_shared));
    if (a->send.bytes[rank] != a->recv.bytes[rank]) { /* the message first: it reads a */
        rc = xchg_error(MPI_ERR_TRUNCATE, "send block is %lld bytes but receive block is %lld bytes",
                        (long long)a->send.bytes[rank], (long long)a->recv.bytes[rank]);
        xchg_args_free(a);
        return rc;
    }
    a->uniform_bytes = a->recv.bytes[rank];
    return MPI_SUCCESS;
fail:
    xchg_args_free(a);
    return rc;
}

int xchg_args_alltoall(xchg_args *a, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                       int rank, int size)
{
    return args_uniform(a, XCHG_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                        recvtype, comm, rank, size);
}

int xchg_args_allgather(xchg_args *a, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        int rank, int size)
{
    return args_uniform(a, XCHG_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                        recvtype, comm, rank, size);
}

/* Allgatherv: the receive side is MPI's recvcounts and displs; the send side
 * is one block, the same for every peer, as allgather's; MPI_IN_PLACE takes
 * it from the own receive block (resolve_in_place's allgather meaning). */
int xchg_args_allgatherv(xchg_args *a, const void *sendbuf, int sendcount,
                         MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                         const int *displs, MPI_Datatype recvtype, MPI_Comm comm, int rank,
                         int size)
{
    side_arrays arr[2] = {{0}}; /* filled by alloc_arrays (zeroed for gcc -O3) */
    int rc;
    args_init(a, XCHG_ALLGATHERV, comm, rank, size);
    if (!recvcounts || !displs)
        return xchg_error(MPI_ERR_ARG, "allgatherv: recvcounts or displs is NULL");
    XCHG_CHECK(xchg_type_describe(recvtype, &a->recv.type));
    XCHG_CHECK(alloc_arrays(a, size, 2, arr));
    side_init(&a->recv, &arr[1], recvbuf);
    for (int p = 0; p < size; p++) {
        arr[1].counts[p] = recvcounts[p];
        arr[1].offsets[p] = (int64_t)displs[p] * a->recv.type.extent;
    }
    XCHG_CHECK(side_check(&a->recv, size, "receive"));
    if (sendbuf != MPI_IN_PLACE) {
        XCHG_CHECK(xchg_type_describe(sendtype, &a->send.type));
        for (int p = 0; p < size; p++) {
            arr[0].counts[p] = sendcount;
            arr[0].offsets[p] = 0;
        }
    }
    XCHG_CHECK(finish_send_side(a, &arr[0], sendbuf, sendtype, 1));
    if (a->send.bytes[rank] != a->recv.bytes[rank]) { /* the message first: it reads a */
        rc = xchg_error(MPI_ERR_TRUNCATE, "allgatherv: this rank sends %lld bytes but "
                        "recvcounts[%d] describes %lld bytes", (long long)a->send.bytes[rank],
                        rank, (long long)a->recv.bytes[rank]);
        xchg_args_free(a);
        return rc;
    }
    return MPI_SUCCESS;
fail:
    xchg_args_free(a);
    return rc;
}

void xchg_args_refresh_in_place(xchg_args *a)
{
    if (a->in_place_bytes) memcpy(a->owned_copy, a->in_place_source, a->in_place_bytes);
}

void xchg_args_free(xchg_args *a)
{
    for (int i = 0; i < a->num_held; i++) MPI_Type_free(&a->held_types[i]);
    free(a->held_types);
    a->held_types = NULL;
    a->num_held = 0;
    free(a->owned);
    free(a->owned_types);
    a->owned_types = NULL;
    a->send.types = a->recv.types = NULL;
    free(a->owned_copy);
    a->owned = a->owned_copy = NULL;
    xchg_neighbor_args_free(&a->neighbor);
}

int64_t xchg_max_block_bytes(const xchg_args *a)
{
    int64_t max = 0;
    for (int p = 0; p < a->size; p++) {
        if (a->send.bytes[p] > max) max = a->send.bytes[p];
        if (a->recv.bytes[p] > max) max = a->recv.bytes[p];
    }
    return max;
}
