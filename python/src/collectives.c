/*
 * The collectives: blocking calls and persistent inits. Arguments arrive
 * checked by the Python side (xchg/_messages.py: bounds of every block
 * within its buffer); here only the lengths of the count arrays are checked
 * against the communicator, so that xchg never reads past them.
 */
#include "pyxchg.h"

#include <string.h>

#include "xchg.h"

enum kind { ALLTOALLV, ALLTOALL, ALLGATHER, NEIGHBOR_ALLTOALLV, ALLTOALLW, NUM_KINDS };
static const char *const kind_names[NUM_KINDS] = {"alltoallv", "alltoall", "allgather",
                                                  "neighbor_alltoallv", "alltoallw"};

static int int_count(const pyx_buf *b)
{
    return b->held ? (int)(b->view.len / (Py_ssize_t)sizeof(int)) : 0;
}

/* Check the count/displacement arrays: `nsend` and `nrecv` ints each. */
static int check_lengths(const pyx_args *a, int nsend, int nrecv)
{
    int ok = int_count(&a->rcounts) == nrecv && int_count(&a->rdispls) == nrecv;
    if (!a->in_place)
        ok = ok && int_count(&a->scounts) == nsend && int_count(&a->sdispls) == nsend;
    if (!ok)
        PyErr_Format(PyExc_ValueError, "count/displacement arrays must have %d (send) and %d "
                                       "(receive) entries", nsend, nrecv);
    return ok ? 0 : -1;
}

/* The block counts of each side: comm size, or the graph's degrees. */
static int block_counts(enum kind k, MPI_Comm comm, int *nsend, int *nrecv)
{
    int rc, size, topo, indeg, outdeg, weighted;
    if (k == ALLTOALL || k == ALLGATHER) {
        *nsend = *nrecv = 1; /* one count and one displacement per side */
        return 0;
    }
    if (k == ALLTOALLV || k == ALLTOALLW) {
        rc = MPI_Comm_size(comm, &size);
        *nsend = *nrecv = size;
        return rc == MPI_SUCCESS ? 0 : (pyx_raise("MPI_Comm_size", rc), -1);
    }
    rc = MPI_Topo_test(comm, &topo);
    if (rc != MPI_SUCCESS) return pyx_raise("MPI_Topo_test", rc), -1;
    if (topo != MPI_DIST_GRAPH) {
        PyErr_SetString(PyExc_ValueError,
                        "neighbor_alltoallv needs a distributed-graph communicator");
        return -1;
    }
    rc = MPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &weighted);
    if (rc != MPI_SUCCESS) return pyx_raise("MPI_Dist_graph_neighbors_count", rc), -1;
    *nsend = outdeg;
    *nrecv = indeg;
    return 0;
}

/* The address of a block call's buffer: base + displ extents. */
static int block_address(const pyx_buf *buf, const pyx_buf *displ, MPI_Datatype type,
                         char **addr)
{
    MPI_Aint lb, extent;
    int rc = MPI_Type_get_extent(type, &lb, &extent);
    if (rc != MPI_SUCCESS) return pyx_raise("MPI_Type_get_extent", rc), -1;
    *addr = (char *)buf->view.buf + (MPI_Aint)((const int *)displ->view.buf)[0] * extent;
    return 0;
}

#define INTS(b) ((const int *)(b).view.buf)

/* Alltoallw's datatypes: two contiguous C-int arrays of `n` Fortran handles
 * (Datatype.py2f(); the send one None for MPI_IN_PLACE), converted into
 * a->stypes and a->rtypes. */
static int convert_types(PyObject *sf, PyObject *rf, int n, pyx_args *a)
{
    Py_buffer views[2];
    PyObject *objs[2] = {sf, rf};
    int held = 0, rc = -1;
    a->stypes = malloc(2 * (size_t)(n > 0 ? n : 1) * sizeof(MPI_Datatype));
    if (!a->stypes) return PyErr_NoMemory(), -1;
    a->rtypes = a->stypes + n;
    for (int side = 0; side < 2; side++) {
        MPI_Datatype *out = side ? a->rtypes : a->stypes;
        if (objs[side] == Py_None) { /* MPI_IN_PLACE: not read */
            for (int p = 0; p < n; p++) out[p] = MPI_DATATYPE_NULL;
            continue;
        }
        if (PyObject_GetBuffer(objs[side], &views[side], PyBUF_C_CONTIGUOUS) < 0) goto done;
        held |= 1 << side;
        if (views[side].len != (Py_ssize_t)n * (Py_ssize_t)sizeof(int)) {
            PyErr_Format(PyExc_ValueError, "alltoallw: expecting %d datatypes", n);
            goto done;
        }
        for (int p = 0; p < n; p++) out[p] = MPI_Type_f2c((MPI_Fint)((int *)views[side].buf)[p]);
    }
    rc = 0;
done:
    for (int side = 0; side < 2; side++)
        if (held & (1 << side)) PyBuffer_Release(&views[side]);
    return rc;
}

/* Parse and check a call of kind k: args = (comm, sbuf, ..., rtype), and for
 * alltoallw two more: the per-peer datatype handles of each side. */
static int prepare(enum kind k, PyObject *args, pyx_args *a, char **saddr, char **raddr)
{
    int nsend, nrecv;
    PyObject *own = NULL;
    if (k == ALLTOALLW) {
        if (PyTuple_Size(args) != 11)
            return PyErr_SetString(PyExc_TypeError, "alltoallw takes 11 arguments"), -1;
        own = PyTuple_GetSlice(args, 0, 9);
        if (!own) return -1;
        int bad = pyx_args_parse(own, a);
        Py_DECREF(own);
        if (bad < 0) return -1;
    } else if (pyx_args_parse(args, a) < 0) {
        return -1;
    }
    if (block_counts(k, a->comm, &nsend, &nrecv) < 0 || check_lengths(a, nsend, nrecv) < 0)
        goto fail;
    if (k == ALLTOALLW && convert_types(PyTuple_GET_ITEM(args, 9), PyTuple_GET_ITEM(args, 10),
                                        nrecv, a) < 0)
        goto fail;
    if (k == NEIGHBOR_ALLTOALLV && a->in_place) {
        PyErr_SetString(PyExc_ValueError, "neighbor_alltoallv does not allow MPI.IN_PLACE");
        goto fail;
    }
    *saddr = a->in_place ? (char *)MPI_IN_PLACE : a->sbuf.view.buf;
    *raddr = a->rbuf.view.buf;
    if (k == ALLTOALL || k == ALLGATHER) {
        if (!a->in_place && block_address(&a->sbuf, &a->sdispls, a->stype, saddr) < 0)
            goto fail;
        if (block_address(&a->rbuf, &a->rdispls, a->rtype, raddr) < 0) goto fail;
    }
    return 0;
fail:
    pyx_args_release(a);
    return -1;
}

/* Run one blocking call or init of kind k (request NULL: blocking). */
static int call(enum kind k, const pyx_args *a, char *s, char *r, MPI_Info info,
                XCHG_Request *req)
{
    const int *sc = a->in_place ? NULL : INTS(a->scounts);
    const int *sd = a->in_place ? NULL : INTS(a->sdispls);
    const int *rc_ = INTS(a->rcounts), *rd = INTS(a->rdispls);
    int scount = sc ? sc[0] : 0;
    switch (k) {
    case ALLTOALLV:
        return req ? XCHG_Alltoallv_init(s, sc, sd, a->stype, r, rc_, rd, a->rtype, a->comm,
                                         info, req)
                   : XCHG_Alltoallv(s, sc, sd, a->stype, r, rc_, rd, a->rtype, a->comm);
    case ALLTOALL:
        return req ? XCHG_Alltoall_init(s, scount, a->stype, r, rc_[0], a->rtype, a->comm,
                                        info, req)
                   : XCHG_Alltoall(s, scount, a->stype, r, rc_[0], a->rtype, a->comm);
    case ALLGATHER:
        return req ? XCHG_Allgather_init(s, scount, a->stype, r, rc_[0], a->rtype, a->comm,
                                         info, req)
                   : XCHG_Allgather(s, scount, a->stype, r, rc_[0], a->rtype, a->comm);
    case ALLTOALLW:
        return req ? XCHG_Alltoallw_init(s, sc, sd, a->stypes, r, rc_, rd, a->rtypes, a->comm,
                                         info, req)
                   : XCHG_Alltoallw(s, sc, sd, a->stypes, r, rc_, rd, a->rtypes, a->comm);
    case NEIGHBOR_ALLTOALLV:
        return req ? XCHG_Neighbor_alltoallv_init(s, sc, sd, a->stype, r, rc_, rd, a->rtype,
                                                  a->comm, info, req)
                   : XCHG_Neighbor_alltoallv(s, sc, sd, a->stype, r, rc_, rd, a->rtype,
                                             a->comm);
    case NUM_KINDS:
        break;
    }
    return MPI_ERR_INTERN;
}

static PyObject *blocking(enum kind k, PyObject *args)
{
    pyx_args a;
    char *s, *r;
    if (prepare(k, args, &a, &s, &r) < 0) return NULL;
    pyx_errguard g;
    pyx_clear_error();
    int rc = pyx_errguard_enter(&g, a.comm);
    if (rc == MPI_SUCCESS) {
        Py_BEGIN_ALLOW_THREADS
        rc = call(k, &a, s, r, MPI_INFO_NULL, NULL);
        Py_END_ALLOW_THREADS
    }
    pyx_errguard_exit(&g);
    pyx_args_release(&a);
    if (rc != MPI_SUCCESS) {
        char fn[64];
        snprintf(fn, sizeof fn, "%s", kind_names[k]);
        return pyx_raise(fn, rc);
    }
    Py_RETURN_NONE;
}

PyObject *pyx_alltoallv(PyObject *self, PyObject *args)
{
    (void)self;
    return blocking(ALLTOALLV, args);
}

PyObject *pyx_alltoall(PyObject *self, PyObject *args)
{
    (void)self;
    return blocking(ALLTOALL, args);
}

PyObject *pyx_allgather(PyObject *self, PyObject *args)
{
    (void)self;
    return blocking(ALLGATHER, args);
}

PyObject *pyx_neighbor_alltoallv(PyObject *self, PyObject *args)
{
    (void)self;
    return blocking(NEIGHBOR_ALLTOALLV, args);
}

PyObject *pyx_alltoallw(PyObject *self, PyObject *args)
{
    (void)self;
    return blocking(ALLTOALLW, args);
}

/* init(kind, info, comm, sbuf, ..., rtype) -> Request holding the buffers. */
PyObject *pyx_init(PyObject *self, PyObject *args)
{
    (void)self;
    Py_ssize_t n = PyTuple_Size(args);
    if (n < 2) return PyErr_Format(PyExc_TypeError, "init(kind, info, ...)");
    PyObject *kind_obj = PyTuple_GET_ITEM(args, 0), *info_obj = PyTuple_GET_ITEM(args, 1);
    const char *kind_name = PyUnicode_AsUTF8(kind_obj);
    if (!kind_name) return NULL;
    int k = -1;
    for (int i = 0; i < NUM_KINDS; i++)
        if (strcmp(kind_name, kind_names[i]) == 0) k = i;
    if (k < 0) return PyErr_Format(PyExc_ValueError, "unknown collective '%s'", kind_name);
    MPI_Info *info = pyx_get_info(info_obj);
    if (!info) return NULL;
    PyObject *rest = PyTuple_GetSlice(args, 2, n);
    if (!rest) return NULL;
    pyx_args a;
    char *s, *r;
    int bad = prepare((enum kind)k, rest, &a, &s, &r);
    Py_DECREF(rest);
    if (bad < 0) return NULL;
    XCHG_Request req = XCHG_REQUEST_NULL;
    pyx_errguard g;
    pyx_clear_error();
    int rc = pyx_errguard_enter(&g, a.comm);
    if (rc == MPI_SUCCESS) {
        Py_BEGIN_ALLOW_THREADS
        rc = call((enum kind)k, &a, s, r, *info, &req);
        Py_END_ALLOW_THREADS
    }
    pyx_errguard_exit(&g);
    if (rc != MPI_SUCCESS) {
        pyx_args_release(&a);
        char fn[64];
        snprintf(fn, sizeof fn, "%s_init", kind_names[k]);
        return pyx_raise(fn, rc);
    }
    PyObject *result = pyx_request_new(req, &a); /* takes over the buffers */
    if (!result) {
        XCHG_Request_free(&req);
        pyx_args_release(&a);
    }
    return result;
}
