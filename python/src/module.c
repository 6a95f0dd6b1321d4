/*
 * Module xchg._xchg: errors, argument conversion, algorithm selection and
 * the registry listing. The collectives are in collectives.c, the request
 * type in request.c.
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

static MPI_Comm *get_comm(PyObject *obj)
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
}

int pyx_args_parse(PyObject *args, pyx_args *a)
{
    PyObject *comm, *sbuf, *scounts, *sdispls, *stype, *rbuf, *rcounts, *rdispls, *rtype;
    memset(a, 0, sizeof *a);
    if (!PyArg_ParseTuple(args, "OOOOOOOOO", &comm, &sbuf, &scounts, &sdispls, &stype, &rbuf,
                          &rcounts, &rdispls, &rtype))
        return -1;
    MPI_Comm *c = get_comm(comm);
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
    MPI_Comm *comm = get_comm(comm_obj);
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
    MPI_Comm *comm = get_comm(comm_obj);
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

/* One parameter: {"name", "kind", "default", "min", "max", "names",
 * "description", "help"}; kind is "integer", "name" or "algorithm", the
 * bounds None for none and "P" for the communicator size. */
static PyObject *bound(long long value)
{
    if (value == XCHG_BOUND_UNLIMITED) Py_RETURN_NONE;
    if (value == XCHG_BOUND_P) return PyUnicode_FromString("P");
    return PyLong_FromLongLong(value);
}

static PyObject *param_dict(const char *coll, int algo, int param)
{
    static const char *const kinds[] = {"integer", "name", "algorithm"};
    const char *name, *help;
    int kind, num_names;
    long long def, min, max;
    char text[1024];
    int rc = XCHG_Param_get_info(coll, algo, param, &name, &kind, &def, &min, &max, &num_names,
                                 &help);
    if (rc == MPI_SUCCESS) rc = XCHG_Param_describe(coll, algo, param, text, sizeof text);
    if (rc != MPI_SUCCESS) return pyx_raise("algorithms", rc);
    PyObject *names = PyList_New(num_names);
    for (int i = 0; names && i < num_names; i++) {
        const char *value_name = "";
        XCHG_Param_get_name(coll, algo, param, i, &value_name);
        PyObject *item = PyUnicode_FromString(value_name);
        if (!item) Py_CLEAR(names);
        else PyList_SET_ITEM(names, i, item);
    }
    if (!names) return NULL;
    /* The default as a name where it is one, else the number. */
    long long index = kind == XCHG_PARAM_KIND_INTEGER ? -def - 1 : def;
    PyObject *default_value;
    if ((kind != XCHG_PARAM_KIND_INTEGER || def < 0) && index >= 0 && index < num_names) {
        default_value = PyList_GET_ITEM(names, (Py_ssize_t)index);
        Py_INCREF(default_value);
    } else {
        default_value = PyLong_FromLongLong(def);
    }
    return Py_BuildValue("{s:s,s:s,s:N,s:N,s:N,s:N,s:s,s:s}", "name", name, "kind",
                         kinds[kind], "default", default_value, "min", bound(min), "max",
                         bound(max), "names", names, "description", text, "help", help);
}

/* algorithms(collective) -> list of {"name", "summary", "reference",
 * "hierarchical", "params": [...], "params_text"}. */
static PyObject *algorithms(PyObject *self, PyObject *args)
{
    (void)self;
    const char *coll;
    if (!PyArg_ParseTuple(args, "s", &coll)) return NULL;
    int count = 0;
    pyx_clear_error();
    int rc = XCHG_Algorithm_count(coll, &count);
    if (rc != MPI_SUCCESS) return pyx_raise("algorithms", rc);
    PyObject *list = PyList_New(0);
    for (int i = 0; list && i < count; i++) {
        const char *name, *summary, *reference;
        int hierarchical, num_params;
        char params[1024];
        rc = XCHG_Algorithm_get_info(coll, i, &name, &summary, &reference, &hierarchical,
                                     &num_params);
        if (rc == MPI_SUCCESS)
            rc = XCHG_Algorithm_describe(coll, i, NULL, 0, params, sizeof params);
        if (rc != MPI_SUCCESS) {
            Py_DECREF(list);
            return pyx_raise("algorithms", rc);
        }
        PyObject *plist = PyList_New(0);
        for (int k = 0; plist && k < num_params; k++) {
            PyObject *d = param_dict(coll, i, k);
            if (!d || PyList_Append(plist, d) < 0) Py_CLEAR(plist);
            Py_XDECREF(d);
        }
        PyObject *entry = plist ? Py_BuildValue("{s:s,s:s,s:s,s:O,s:N,s:s}", "name", name,
                                                "summary", summary, "reference", reference,
                                                "hierarchical", hierarchical ? Py_True : Py_False,
                                                "params", plist, "params_text", params)
                                : NULL;
        if (!entry || PyList_Append(list, entry) < 0) Py_CLEAR(list);
        Py_XDECREF(entry);
    }
    return list;
}

/* select_case(collective, ranks, ppn, bytes, peers, pattern or None,
 *             predict [selections], top) on any machine, or with a
 * communicator as the first argument instead of ranks and ppn (None, 0, 0):
 * {"selection", "why", "reason", "ranks", "nodes", "min_node_size",
 *  "max_node_size", "model_bytes", "predict": {sel: us or None or error text},
 *  "ranking": [(selection, us, latency, overhead, bandwidth, copy)]}. */
static PyObject *select_case(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *comm_obj, *pattern, *predict;
    const char *coll;
    int ranks, ppn, peers, top;
    long long bytes;
    if (!PyArg_ParseTuple(args, "OsiiLiOOi", &comm_obj, &coll, &ranks, &ppn, &bytes, &peers,
                          &pattern, &predict, &top))
        return NULL;
    XCHG_Case xcase = NULL;
    pyx_errguard g = {.comm = MPI_COMM_NULL, .saved = MPI_ERRHANDLER_NULL};
    pyx_clear_error();
    int rc;
    if (comm_obj != Py_None) {
        MPI_Comm *comm = get_comm(comm_obj);
        if (!comm) return NULL;
        rc = pyx_errguard_enter(&g, *comm);
        if (rc == MPI_SUCCESS) rc = XCHG_Comm_case_create(*comm, coll, bytes, &xcase);
    } else {
        rc = XCHG_Case_create(coll, ranks, ppn, bytes, &xcase);
    }
    long long nbr[5];
    if (rc == MPI_SUCCESS && pattern != Py_None) {
        if (!PyArg_ParseTuple(pattern, "LLLLL", &nbr[0], &nbr[1], &nbr[2], &nbr[3], &nbr[4])) {
            XCHG_Case_free(&xcase);
            pyx_errguard_exit(&g);
            return NULL;
        }
        rc = XCHG_Case_set_neighbor_pattern(xcase, nbr[0], nbr[1], nbr[2], nbr[3], nbr[4]);
    } else if (rc == MPI_SUCCESS && peers > 0) {
        rc = XCHG_Case_set_peers(xcase, peers);
    }
    char chosen[512];
    const char *why = "";
    int reason = 0, P = 0, nodes = 0, min_node = 0, max_node = 0, count = 0;
    long long model_bytes = 0;
    if (rc == MPI_SUCCESS) rc = XCHG_Case_select(xcase, chosen, sizeof chosen, &reason, &why);
    if (rc == MPI_SUCCESS)
        rc = XCHG_Case_get_shape(xcase, &P, &nodes, &min_node, &max_node, &model_bytes);
    if (rc == MPI_SUCCESS && top > 0 && model_bytes >= 0) rc = XCHG_Case_rank(xcase, &count);
    pyx_errguard_exit(&g);
    if (rc != MPI_SUCCESS) {
        XCHG_Case_free(&xcase);
        return pyx_raise("select", rc);
    }
    PyObject *predictions = PyDict_New(), *ranking = PyList_New(0), *seq = NULL;
    if (predictions && ranking) seq = PySequence_Fast(predict, "predict must be a sequence");
    for (Py_ssize_t i = 0; seq && i < PySequence_Fast_GET_SIZE(seq); i++) {
        const char *sel = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, i));
        double seconds;
        PyObject *value = NULL;
        if (!sel) Py_CLEAR(seq);
        else if (XCHG_Case_predict(xcase, sel, &seconds) != MPI_SUCCESS)
            value = PyUnicode_FromFormat("error %s", XCHG_Last_error());
        else if (seconds < 0) {
            Py_INCREF(Py_None);
            value = Py_None;
        }
        else value = PyFloat_FromDouble(seconds * 1e6);
        if (seq && (!value || PyDict_SetItemString(predictions, sel, value) < 0)) Py_CLEAR(seq);
        Py_XDECREF(value);
    }
    for (int i = 0; seq && i < count && i < top; i++) {
        char name[512];
        double seconds, t[4];
        XCHG_Case_get_candidate(xcase, i, name, sizeof name, &seconds, t);
        PyObject *row = Py_BuildValue("(sddddd)", name, seconds * 1e6, t[0] * 1e6, t[1] * 1e6,
                                      t[2] * 1e6, t[3] * 1e6);
        if (!row || PyList_Append(ranking, row) < 0) Py_CLEAR(seq);
        Py_XDECREF(row);
    }
    XCHG_Case_free(&xcase);
    PyObject *result = NULL;
    if (seq)
        result = Py_BuildValue("{s:s,s:s,s:i,s:i,s:i,s:i,s:i,s:L,s:i,s:O,s:O}", "selection",
                               chosen, "why", why, "reason", reason, "ranks", P, "nodes", nodes,
                               "min_node_size", min_node, "max_node_size", max_node,
                               "model_bytes", model_bytes, "candidates", count, "predict",
                               predictions, "ranking", ranking);
    Py_XDECREF(seq);
    Py_XDECREF(predictions);
    Py_XDECREF(ranking);
    return result;
}

/* topology(comm) -> {"nodes": [[ranks of node 0], ...], "virtual", "block"}. */
static PyObject *topology(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *comm_obj;
    if (!PyArg_ParseTuple(args, "O", &comm_obj)) return NULL;
    MPI_Comm *comm = get_comm(comm_obj);
    if (!comm) return NULL;
    pyx_errguard g;
    int num_nodes = 0, is_virtual = 0, is_block = 0, size = 0;
    pyx_clear_error();
    int rc = pyx_errguard_enter(&g, *comm);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_size(*comm, &size);
    if (rc == MPI_SUCCESS) rc = XCHG_Comm_get_topology(*comm, &num_nodes, &is_virtual, &is_block);
    int *ranks = rc == MPI_SUCCESS ? PyMem_Malloc(sizeof(int) * (size_t)size) : NULL;
    if (rc == MPI_SUCCESS && !ranks) rc = MPI_ERR_NO_MEM;
    PyObject *nodes = rc == MPI_SUCCESS ? PyList_New(0) : NULL;
    for (int n = 0; nodes && n < num_nodes; n++) {
        int node_size = 0;
        rc = XCHG_Comm_get_node(*comm, n, size, ranks, &node_size);
        PyObject *list = rc == MPI_SUCCESS ? PyList_New(node_size) : NULL;
        for (int l = 0; list && l < node_size; l++)
            PyList_SET_ITEM(list, l, PyLong_FromLong(ranks[l]));
        if (!list || PyList_Append(nodes, list) < 0) Py_CLEAR(nodes);
        Py_XDECREF(list);
    }
    pyx_errguard_exit(&g);
    PyMem_Free(ranks);
    if (rc != MPI_SUCCESS) {
        Py_XDECREF(nodes);
        return pyx_raise("topology", rc);
    }
    if (!nodes) return NULL;
    return Py_BuildValue("{s:N,s:O,s:O}", "nodes", nodes, "virtual",
                         is_virtual ? Py_True : Py_False, "block", is_block ? Py_True : Py_False);
}

/* check_algorithm(comm, collective, selection) -> (applicable, text). */
static PyObject *check_algorithm(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *comm_obj;
    const char *coll, *selection;
    if (!PyArg_ParseTuple(args, "Oss", &comm_obj, &coll, &selection)) return NULL;
    MPI_Comm *comm = get_comm(comm_obj);
    if (!comm) return NULL;
    pyx_errguard g;
    char text[1024];
    int applicable = 0;
    pyx_clear_error();
    int rc = pyx_errguard_enter(&g, *comm);
    if (rc == MPI_SUCCESS)
        rc = XCHG_Comm_check_algorithm(*comm, coll, selection, &applicable, text, sizeof text);
    pyx_errguard_exit(&g);
    if (rc != MPI_SUCCESS) return pyx_raise("check_algorithm", rc);
    return Py_BuildValue("(Os)", applicable ? Py_True : Py_False, text);
}

static PyMethodDef methods[] = {
    {"set_error_class", set_error_class, METH_O, "Set the exception class of xchg errors."},
    {"set_algorithm", set_algorithm, METH_VARARGS, "XCHG_Comm_set_algorithm."},
    {"get_algorithm", get_algorithm, METH_VARARGS, "XCHG_Comm_get_algorithm."},
    {"algorithms", algorithms, METH_VARARGS, "The registry of one collective."},
    {"select_case", select_case, METH_VARARGS, "Selection and the model for a case."},
    {"topology", topology, METH_VARARGS, "The communicator's nodes as xchg sees them."},
    {"check_algorithm", check_algorithm, METH_VARARGS, "XCHG_Comm_check_algorithm."},
    {"alltoallv", pyx_alltoallv, METH_VARARGS, "XCHG_Alltoallv."},
    {"alltoall", pyx_alltoall, METH_VARARGS, "XCHG_Alltoall."},
    {"allgather", pyx_allgather, METH_VARARGS, "XCHG_Allgather."},
    {"neighbor_alltoallv", pyx_neighbor_alltoallv, METH_VARARGS, "XCHG_Neighbor_alltoallv."},
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
