/*
 * The C layer of the Python package (module xchg._xchg): thin wrappers of
 * include/xchg.h. The Python side (the modules of xchg/) parses mpi4py-style buffer
 * specifications, checks them, and passes plain arguments here:
 * communicators and datatypes as mpi4py objects, buffers as objects with
 * the buffer protocol (None: MPI_IN_PLACE), counts and displacements as
 * contiguous C-int arrays.
 */
#ifndef PYXCHG_H
#define PYXCHG_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <mpi.h>

/* A held buffer: the Python buffer protocol's view (kept until released). */
typedef struct {
    Py_buffer view;
    int held;
} pyx_buf;

/* The arguments of one vector call (alltoallv, neighbor_alltoallv) or one
 * block call (alltoall, allgather: counts hold one int, displs none). */
typedef struct {
    MPI_Comm comm;
    PyObject *comm_obj, *stype_obj, *rtype_obj; /* borrowed */
    MPI_Datatype stype, rtype;
    pyx_buf sbuf, rbuf, scounts, sdispls, rcounts, rdispls;
    int in_place;
    MPI_Datatype *stypes, *rtypes; /* alltoallw: a datatype per peer (owned) */
} pyx_args;

/* Raise xchg.Error for `rc` from `fn` (message: XCHG_Last_error() or MPI's). */
PyObject *pyx_raise(const char *fn, int rc);

/* Clear xchg's last-error message before a call. */
void pyx_clear_error(void);

/* Run before/after an xchg call on `comm`: errors return instead of
 * aborting, whatever handler the communicator has. */
typedef struct {
    MPI_Comm comm;
    MPI_Errhandler saved;
} pyx_errguard;
int pyx_errguard_enter(pyx_errguard *g, MPI_Comm comm);
void pyx_errguard_exit(pyx_errguard *g);

/* Fill `a` from (comm, sbuf, scounts, sdispls, stype, rbuf, rcounts,
 * rdispls, rtype); sbuf None means MPI_IN_PLACE. Returns 0, or -1 with an
 * exception set (and nothing held). */
int pyx_args_parse(PyObject *args, pyx_args *a);
void pyx_args_release(pyx_args *a);

/* The MPI_Info of an mpi4py Info object, the MPI_Comm of a Comm (NULL with
 * TypeError). mpi4py's C API is imported in module.c only, so its
 * accessors are wrapped there. */
MPI_Info *pyx_get_info(PyObject *obj);
MPI_Comm *pyx_get_comm(PyObject *obj);

/* Whether an mpi4py communicator object still holds a communicator (its
 * Free() sets it to MPI_COMM_NULL). */
int pyx_comm_alive(PyObject *comm_obj);

/* The request type (request.c). new_request takes over a's held buffers. */
extern PyTypeObject PyxRequest_Type;
PyObject *pyx_request_new(void *xchg_request, pyx_args *a);

/* The collectives (collectives.c). */
PyObject *pyx_alltoallv(PyObject *self, PyObject *args);
PyObject *pyx_alltoall(PyObject *self, PyObject *args);
PyObject *pyx_allgather(PyObject *self, PyObject *args);
PyObject *pyx_allgatherv(PyObject *self, PyObject *args);
PyObject *pyx_neighbor_alltoallv(PyObject *self, PyObject *args);
PyObject *pyx_alltoallw(PyObject *self, PyObject *args);
PyObject *pyx_init(PyObject *self, PyObject *args);

/* Introspection (introspection.c): the registry, cases for the model and
 * selection, a communicator's topology and applicability. */
PyObject *pyx_algorithms(PyObject *self, PyObject *args);
PyObject *pyx_select_case(PyObject *self, PyObject *args);
PyObject *pyx_topology(PyObject *self, PyObject *args);
PyObject *pyx_check_algorithm(PyObject *self, PyObject *args);

#endif
