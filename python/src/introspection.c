/*
 * xchg._xchg's introspection: the registry (algorithms and their
 * parameters), cases for the model and selection, a communicator's topology
 * and applicability, through include/xchg.h's introspection calls.
 */
#include "pyxchg.h"

#include "xchg.h"

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
PyObject *pyx_algorithms(PyObject *self, PyObject *args)
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
PyObject *pyx_select_case(PyObject *self, PyObject *args)
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
        MPI_Comm *comm = pyx_get_comm(comm_obj);
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
PyObject *pyx_topology(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *comm_obj;
    if (!PyArg_ParseTuple(args, "O", &comm_obj)) return NULL;
    MPI_Comm *comm = pyx_get_comm(comm_obj);
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
PyObject *pyx_check_algorithm(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *comm_obj;
    const char *coll, *selection;
    if (!PyArg_ParseTuple(args, "Oss", &comm_obj, &coll, &selection)) return NULL;
    MPI_Comm *comm = pyx_get_comm(comm_obj);
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
