/*
 * xchg._xchg.Request: a persistent request (XCHG_*_init). It holds the
 * buffers (Python buffer views), the count arrays, the communicator and the
 * datatypes until Free(), so that nothing xchg refers to goes away while the
 * request lives. A request still alive when MPI is finalized is dropped
 * without calling MPI, and so is one whose communicator was freed first
 * (through the mpi4py object it was made with): xchg's state for that
 * communicator is gone with it.
 */
#include "pyxchg.h"

#include <stddef.h>
#include <string.h>

#include "xchg.h"

typedef struct {
    PyObject_HEAD
    XCHG_Request req;
    pyx_args args;     /* held views; comm/type objects referenced below */
    PyObject *refs;    /* (comm, sendtype, recvtype) */
    PyObject *weakrefs;
} PyxRequest;

static int mpi_usable(void)
{
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    return initialized && !finalized;
}

PyObject *pyx_request_new(void *xchg_request, pyx_args *a)
{
    PyxRequest *self = PyObject_New(PyxRequest, &PyxRequest_Type);
    if (!self) return NULL;
    self->refs = PyTuple_Pack(3, a->comm_obj, a->stype_obj, a->rtype_obj);
    if (!self->refs) {
        self->req = XCHG_REQUEST_NULL;
        memset(&self->args, 0, sizeof self->args);
        self->weakrefs = NULL;
        Py_DECREF(self);
        return NULL;
    }
    self->req = (XCHG_Request)xchg_request;
    self->args = *a;
    self->weakrefs = NULL;
    return (PyObject *)self;
}

/* Free the xchg request (if MPI still runs) and release what it holds. */
static int request_free(PyxRequest *self)
{
    int rc = MPI_SUCCESS;
    if (self->req != XCHG_REQUEST_NULL && mpi_usable() &&
        pyx_comm_alive(PyTuple_GET_ITEM(self->refs, 0))) {
        pyx_errguard g;
        pyx_clear_error();
        rc = pyx_errguard_enter(&g, self->args.comm);
        if (rc == MPI_SUCCESS) rc = XCHG_Request_free(&self->req);
        pyx_errguard_exit(&g);
    }
    self->req = XCHG_REQUEST_NULL;
    pyx_args_release(&self->args);
    Py_CLEAR(self->refs);
    return rc;
}

static void request_dealloc(PyxRequest *self)
{
    if (self->weakrefs) PyObject_ClearWeakRefs((PyObject *)self);
    request_free(self);
    PyObject_Free(self);
}

static int check_live(PyxRequest *self)
{
    if (self->req != XCHG_REQUEST_NULL) return 0;
    PyErr_SetString(PyExc_ValueError, "the request has been freed");
    return -1;
}

/* Run op on the request with errors returned, the GIL released. */
enum op { START, WAIT, TEST };
static PyObject *run(PyxRequest *self, enum op op, const char *name)
{
    if (check_live(self) < 0) return NULL;
    if (!mpi_usable()) {
        PyErr_SetString(PyExc_RuntimeError, "MPI is not initialized or already finalized");
        return NULL;
    }
    if (!pyx_comm_alive(PyTuple_GET_ITEM(self->refs, 0))) {
        PyErr_SetString(PyExc_ValueError, "the request's communicator has been freed");
        return NULL;
    }
    int flag = 1;
    pyx_errguard g;
    pyx_clear_error();
    int rc = pyx_errguard_enter(&g, self->args.comm);
    if (rc == MPI_SUCCESS) {
        Py_BEGIN_ALLOW_THREADS
        if (op == START) rc = XCHG_Start(&self->req);
        else if (op == WAIT) rc = XCHG_Wait(&self->req, MPI_STATUS_IGNORE);
        else rc = XCHG_Test(&self->req, &flag, MPI_STATUS_IGNORE);
        Py_END_ALLOW_THREADS
    }
    pyx_errguard_exit(&g);
    if (rc != MPI_SUCCESS) return pyx_raise(name, rc);
    if (op == TEST) return PyBool_FromLong(flag);
    Py_RETURN_NONE;
}

static PyObject *req_start(PyxRequest *self, PyObject *unused)
{
    (void)unused;
    return run(self, START, "Start");
}

static PyObject *req_wait(PyxRequest *self, PyObject *unused)
{
    (void)unused;
    return run(self, WAIT, "Wait");
}

static PyObject *req_test(PyxRequest *self, PyObject *unused)
{
    (void)unused;
    return run(self, TEST, "Test");
}

static PyObject *req_free(PyxRequest *self, PyObject *unused)
{
    (void)unused;
    int rc = request_free(self);
    if (rc != MPI_SUCCESS) return pyx_raise("Free", rc);
    Py_RETURN_NONE;
}

static PyObject *req_enter(PyxRequest *self, PyObject *unused)
{
    (void)unused;
    Py_INCREF(self);
    return (PyObject *)self;
}

static PyObject *req_exit(PyxRequest *self, PyObject *args)
{
    (void)args;
    return req_free(self, NULL);
}

static PyObject *req_get_freed(PyxRequest *self, void *closure)
{
    (void)closure;
    return PyBool_FromLong(self->req == XCHG_REQUEST_NULL);
}

static PyMethodDef req_methods[] = {
    {"Start", (PyCFunction)req_start, METH_NOARGS, "Start the request (XCHG_Start)."},
    {"Wait", (PyCFunction)req_wait, METH_NOARGS, "Complete the started request (XCHG_Wait)."},
    {"Test", (PyCFunction)req_test, METH_NOARGS,
     "True when the started request is complete (XCHG_Test)."},
    {"Free", (PyCFunction)req_free, METH_NOARGS,
     "Free the request and release its buffers (XCHG_Request_free)."},
    {"__enter__", (PyCFunction)req_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)req_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef req_getset[] = {
    {"freed", (getter)req_get_freed, NULL, "True after Free().", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject PyxRequest_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "xchg.Request",
    .tp_basicsize = sizeof(PyxRequest),
    .tp_dealloc = (destructor)request_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A persistent xchg collective: Start(), Wait(), Test(), Free(); a context "
              "manager that frees it on exit. Made by xchg.*_init.",
    .tp_methods = req_methods,
    .tp_getset = req_getset,
    .tp_weaklistoffset = offsetof(PyxRequest, weakrefs),
};
