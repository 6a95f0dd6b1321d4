/*
 * Module xchg._xchg: errors, argument conversion and algorithm selection.
 * The collectives are in collectives.c, the request type in request.c, the
 * registry, the model and the topology (introspection) in introspection.c.
 */
#include "pyxchg.h"

#include <string.h>

#include "xchg.h"

static PyObject *error_class; /* xchg.Error, set by the Python side */

void pyx_clear_error(void)
{
    XCHG_Clear_error();
}

PyObject *pyx_raise(const char *fn, int rc)
{
    char mpimsg[MPI_MAX_ERROR_STRING] = "";
    int len = 0, eclass = rc;
    const char *detail = XCHG_Last_error();
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized) {
        MPI_Error_class(rc, &eclass);
        MPI_Error_string(rc, mpimsg, &len);
    }
    PyObject *msg = PyUnicode_FromFormat("%s: %s", fn, detail[0] ? detail : mpimsg);
    if (!msg) return NULL;
    PyObject *cls = error_class ? error_class : PyExc_RuntimeError;
    PyObject *exc = error_class ? PyObject_CallFunction(cls, "iO", eclass, msg)
                                : PyObject_CallOneArg(cls, msg);
    Py_DECREF(msg);
    if (!exc) return NULL;
    PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    Py_DECREF(exc);
    return NULL;
}

int pyx_errguard_enter(pyx_errguard *g, MPI_Comm comm)
{
    g->comm = comm;
    g->saved = MPI_ERRHANDLER_NULL;
    int rc = MPI_Comm_get_errhandler(comm, &g->saved);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    return rc;
}

void pyx_errguard_exit(pyx_errguard *g)
{
    if (g->saved == MPI_ERRHANDLER_NULL) return;
    MPI_Comm_set_errhandler(g->comm, g->saved);
    MPI_Errhandler_free(&g->saved);
}

/* mpi4py's C API, imported from mpi4py.MPI.__pyx_capi__ (the capsules its
 * header mpi4py/mpi4py.h imports, in every mpi4py since 3.0): only the three
 * functions used here, so building needs no mpi4py and any mpi4py of the
 * same MPI works at run time. */
static MPI_Comm *(*mpi4py_comm_get)(PyObject *);
static MPI_Datatype *(*mpi4py_datatype_get)(PyObject *);
static MPI_Info *(*mpi4py_info_get)(PyObject *);

typedef union {
    void *object;
    void (*function)(void);
} capi_pointer;

static int import_function(PyObject *capi, const char *name, void (**fn)(void))
{
    PyObject *capsule = PyDict_Check(capi) ? PyDict_GetItemString(capi, name) : NULL;
    if (!capsule || !PyCapsule_CheckExact(capsule)) {
        PyErr_Format(PyExc_ImportError, "mpi4py.MPI does not export the C function %s", name);
        return -1;
    }
    capi_pointer p = {.object = PyCapsule_GetPointer(capsule, PyCapsule_GetName(capsule))};
    *fn = p.function;
    return p.object ? 0 : -1;
}

static int import_mpi4py(void)
{
    PyObject *module = PyImport_ImportModule("mpi4py.MPI");
    if (!module) return -1;
    PyObject *capi = PyObject_GetAttrString(module, "__pyx_capi__");
    Py_DECREF(module);
    if (!capi) return -1;
    int rc = import_function(capi, "PyMPIComm_Get", (void (**)(void)) & mpi4py_comm_get) ||
             import_function(capi, "PyMPIDatatype_Get", (void (**)(void)) & mpi4py_datatype_get) ||
             import_function(capi, "PyMPIInfo_Get", (void (**)(void)) & mpi4py_info_get);
    Py_DECREF(capi);
    return rc ? -1 : 0;
}

MPI_Comm *pyx_get_comm(PyObject *obj)
{
    return mpi4py_comm_get(obj); /* NULL with TypeError when not a Comm */
}

int pyx_comm_alive(PyObject *comm_obj)
{
    MPI_Comm *comm = mpi4py_comm_get(comm_obj);
    if (!comm) {
        PyErr_Clear();
        return 0;
    }
    return *comm != MPI_COMM_NULL;
}

MPI_Info *pyx_get_info(PyObject *obj)
{
    return mpi4py_info_get(obj);
}

/* Hold a buffer: None gives an empty view (held = 0). */
static int hold(PyObject *obj, int writable, pyx_buf *b)
{
    b->held = 0;
    if (obj == Py_None) return 0;
    int flags = PyBUF_ANY_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, &b->view, flags) < 0) return -1;
    b->held = 1;
    return 0;
}

static void release(pyx_buf *b)
{
    if (b->held) PyBuffer_Release(&b->view);
    b->held = 0;
}

void pyx_args_release(pyx_args *a)
{
    release(&a->sbuf);
    release(&a->rbuf);
    release(&a->scounts);
    release(&a->sdispls);
    release(&a->rcounts);
    release(&a->rdispls);
    free(a->stypes); /* one allocation: rtypes follows */
    a->stypes = a->rtypes = NULL;
}

int pyx_args_parse(PyObject *args, pyx_args *a)
{
    PyObject *comm, *sbuf, *scounts, *sdispls, *stype, *rbuf, *rcounts, *rdispls, *rtype;
    memset(a, 0, sizeof *a);
    if (!PyArg_ParseTuple(args, "OOOOOOOOO", &comm, &sbuf, &scounts, &sdispls, &stype, &rbuf,
                          &rcounts, &rdispls, &rtype))
        return -1;
    MPI_Comm *c = pyx_get_comm(comm);
    if (!c) return -1;
    MPI_Datatype *rt = mpi4py_datatype_get(rtype);
    if (!rt) return -1;
    a->comm = *c;
    a->comm_obj = comm;
    a->rtype = *rt;
    a->rtype_obj = rtype;
    a->in_place = sbuf == Py_None;
    if (!a->in_place) {
        MPI_Datatype *st = mpi4py_datatype_get(stype);
        if (!st) return -1;
        a->stype = *st;
        a->stype_obj = stype;
    } else {
        a->stype = MPI_DATATYPE_NULL;
        a->stype_obj = Py_None;
    }
    if (hold(sbuf, 0, &a->sbuf) || hold(rbuf, 1, &a->rbuf) || hold(scounts, 0, &a->scounts) ||
        hold(sdispls, 0, &a->sdispls) || hold(rcounts, 0, &a->rcounts) ||
        hold(rdispls, 0, &a->rdispls)) {
        pyx_args_release(a);
        return -1;
    }
    if (!a->rbuf.held || !a->rcounts.held) {
        pyx_args_release(a);
        PyErr_SetString(PyExc_TypeError, "receive buffer and counts are required");
        return -1;
    }
    return 0;
}

static PyObject *set_error_class(PyObject *self, PyObject *cls)
{
    (void)self;
    Py_XDECREF(error_class);
    Py_INCREF(cls);
    error_class = cls;
    Py_RETURN_NONE;
}

static PyObject *set_algorithm(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *comm_obj;
    const char *coll, *selection;
    if (!PyArg_ParseTuple(args, "Osz", &comm_obj, &coll, &selection)) return NULL;
    MPI_Comm *comm = pyx_get_comm(comm_obj);
    if (!comm) return NULL;
    pyx_errguard g;
    pyx_clear_error();
    int rc = pyx_errguard_enter(&g, *comm);
    if (rc == MPI_SUCCESS) rc = XCHG_Comm_set_algorithm(*comm, coll, selection);
    pyx_errguard_exit(&g);
    if (rc != MPI_SUCCESS) return pyx_raise("set_algorithm", rc);
    Py_RETURN_NONE;
}

static PyObject *get_algorithm(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *comm_obj;
    const char *coll;
    int last_used;
    long long bytes;
    char buf[512];
    if (!PyArg_ParseTuple(args, "OspL", &comm_obj, &coll, &last_used, &bytes)) return NULL;
    MPI_Comm *comm = pyx_get_comm(comm_obj);
    if (!comm) return NULL;
    pyx_errguard g;
    pyx_clear_error();
    int rc = pyx_errguard_enter(&g, *comm);
    if (rc == MPI_SUCCESS)
        rc = XCHG_Comm_get_algorithm(*comm, coll, last_used, bytes, buf, (int)sizeof buf);
    pyx_errguard_exit(&g);
    if (rc != MPI_SUCCESS) return pyx_raise("get_algorithm", rc);
    return PyUnicode_FromString(buf);
}

static PyMethodDef methods[] = {
    {"set_error_class", set_error_class, METH_O, "Set the exception class of xchg errors."},
    {"set_algorithm", set_algorithm, METH_VARARGS, "XCHG_Comm_set_algorithm."},
    {"get_algorithm", get_algorithm, METH_VARARGS, "XCHG_Comm_get_algorithm."},
    {"algorithms", pyx_algorithms, METH_VARARGS, "The registry of one collective."},
    {"select_case", pyx_select_case, METH_VARARGS, "Selection and the model for a case."},
    {"topology", pyx_topology, METH_VARARGS, "The communicator's nodes as xchg sees them."},
    {"check_algorithm", pyx_check_algorithm, METH_VARARGS, "XCHG_Comm_check_algorithm."},
    {"alltoallv", pyx_alltoallv, METH_VARARGS, "XCHG_Alltoallv."},
    {"alltoall", pyx_alltoall, METH_VARARGS, "XCHG_Alltoall."},
    {"allgather", pyx_allgather, METH_VARARGS, "XCHG_Allgather."},
    {"allgatherv", pyx_allgatherv, METH_VARARGS, "XCHG_Allgatherv."},
    {"neighbor_alltoallv", pyx_neighbor_alltoallv, METH_VARARGS, "XCHG_Neighbor_alltoallv."},
    {"alltoallw", pyx_alltoallw, METH_VARARGS, "XCHG_Alltoallw."},
    {"init", pyx_init, METH_VARARGS, "XCHG_*_init: (kind, info, <call arguments>)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "xchg._xchg", "C layer of xchg (include/xchg.h).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__xchg(void)
{
    if (import_mpi4py() < 0) return NULL;
    if (PyType_Ready(&PyxRequest_Type) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&PyxRequest_Type);
    if (PyModule_AddObject(m, "Request", (PyObject *)&PyxRequest_Type) < 0) {
        Py_DECREF(&PyxRequest_Type);
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "VERSION_MAJOR", XCHG_VERSION_MAJOR);
    PyModule_AddIntConstant(m, "VERSION_MINOR", XCHG_VERSION_MINOR);
    PyModule_AddIntConstant(m, "VERSION_PATCH", XCHG_VERSION_PATCH);
    /* The MPI this module was compiled against, for xchg/__init__.py to
     * check that mpi4py runs the same one. */
#if defined(OMPI_MAJOR_VERSION)
    PyModule_AddStringConstant(m, "MPI_FAMILY", "Open MPI");
#elif defined(MPICH_VERSION) || defined(MPICH)
    PyModule_AddStringConstant(m, "MPI_FAMILY", "MPICH");
#else
    PyModule_AddStringConstant(m, "MPI_FAMILY", "");
#endif
    return m;
}
