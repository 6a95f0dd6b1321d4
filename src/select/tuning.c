/*
 * The process's tuning file: loaded at the first lookup from
 * XCHG_TUNING_FILE, kept in memory, freed at MPI_Finalize (by the delete
 * callback of an attribute on MPI_COMM_SELF, which MPI runs at the start of
 * MPI_Finalize, as src/core/context.c does for the contexts).
 *
 * Threads: the first lookups may come from several threads at once
 * (MPI_THREAD_MULTIPLE, different communicators). A lock serialises the
 * load; afterwards `loaded` (acquire/release) lets lookups read the table
 * without the lock. The result of the load, error included, is kept: the
 * error message is set again on every lookup, in the calling thread (the
 * message buffer of xchg_error is per thread).
 *
 * A file written for another MPI library (its "mpi" differs from the running
 * library's name and version) is accepted with one warning on stderr from
 * rank 0 of MPI_COMM_WORLD: its algorithm strings are still valid here, only
 * perhaps not the fastest, so refusing to run would be worse than a hint to
 * tune again.
 */
#include "tuning.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/error.h"
#include "tuning_file.h"

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int loaded;                  /* the fields below are final */
static xchg_tuning_table *table;           /* NULL: no file */
static int load_rc = MPI_SUCCESS;
static char load_message[1024];
static int finalize_keyval = MPI_KEYVAL_INVALID;

/* Forget the table (under the lock, or at MPI_Finalize). */
static void unload(void)
{
    xchg_tuning_table_free(table);
    table = NULL;
    load_rc = MPI_SUCCESS;
    load_message[0] = '\0';
    atomic_store_explicit(&loaded, 0, memory_order_release);
}

static int at_finalize(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm; (void)keyval; (void)value; (void)extra;
    pthread_mutex_lock(&load_lock);
    unload();
    MPI_Comm_free_keyval(&finalize_keyval);
    pthread_mutex_unlock(&load_lock);
    return MPI_SUCCESS;
}

/* The running library, as xchg-bench writes it: the first line up to ',',
 * tabs as spaces (MPICH: "MPICH Version:\t4.0"). */
static void library_name(char *buf, size_t len)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int vlen;
    MPI_Get_library_version(version, &vlen);
    version[strcspn(version, ",\n")] = '\0';
    for (char *c = version; *c; c++)
        if (*c == '\t') *c = ' ';
    snprintf(buf, len, "%s", version);
}

static void warn_other_mpi(const char *path)
{
    char running[MPI_MAX_LIBRARY_VERSION_STRING];
    int rank = 0;
    library_name(running, sizeof running);
    if (strcmp(running, table->mpi) == 0) return;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        fprintf(stderr, "xchg: warning: tuning file %s was measured with %s, this is %s; "
                        "its choices may not be the fastest here (run xchg-tune again)\n",
                path, table->mpi, running);
}

/* Load `path` (NULL or "": no file). Under load_lock. */
static void load(const char *path)
{
    unload();
    if (path && *path) {
        load_rc = xchg_tuning_file_read(path, &table);
        if (load_rc != MPI_SUCCESS)
            snprintf(load_message, sizeof load_message, "%s", XCHG_Last_error());
    }
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    if (initialized) MPI_Finalized(&finalized);
    if (table && table->mpi && initialized && !finalized) warn_other_mpi(path);
    if (initialized && !finalized && finalize_keyval == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &finalize_keyval, NULL) ==
            MPI_SUCCESS)
        MPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval, NULL);
    atomic_store_explicit(&loaded, 1, memory_order_release);
}

/* The table, loaded on first use; the load's error on every call. */
static int get_table(const xchg_tuning_table **out)
{
    if (!atomic_load_explicit(&loaded, memory_order_acquire)) {
        pthread_mutex_lock(&load_lock);
        if (!atomic_load_explicit(&loaded, memory_order_relaxed)) load(getenv("XCHG_TUNING_FILE"));
        pthread_mutex_unlock(&load_lock);
    }
    *out = table;
    return load_rc == MPI_SUCCESS ? MPI_SUCCESS : xchg_error(load_rc, "%s", load_message);
}

int xchg_tuning_load(const char *path)
{
    pthread_mutex_lock(&load_lock);
    load(path);
    pthread_mutex_unlock(&load_lock);
    return load_rc == MPI_SUCCESS ? MPI_SUCCESS : xchg_error(load_rc, "%s", load_message);
}

static int in_range(const xchg_tuning_range *range, int64_t value)
{
    return value >= range->lo && value <= range->hi;
}

/* ppn matches when every node's rank count is in range; a size range never
 * matches an unknown size (-1); a rule of the form "persistent" matches a
 * persistent init only. */
static int rule_matches(const xchg_tuning_rule *rule, const xchg_select_input *in)
{
    return (!rule->persistent_only || in->persistent_init) &&
           in_range(&rule->comm_size, in->comm_size) && in_range(&rule->nodes, in->num_nodes) &&
           in_range(&rule->ppn, in->min_node_size) && in_range(&rule->ppn, in->max_node_size) &&
           (!rule->has_bytes || (in->bytes >= 0 && in_range(&rule->bytes, in->bytes))) &&
           (!rule->has_max_block_bytes ||
            (in->max_block_bytes >= 0 && in_range(&rule->max_block_bytes, in->max_block_bytes)));
}

int xchg_tuning_lookup(const xchg_select_input *in, const char **selection)
{
    const xchg_tuning_table *t;
    *selection = NULL;
    int rc = get_table(&t);
    if (rc != MPI_SUCCESS || !t || in->coll < 0 || in->coll >= XCHG_NUM_COLL) return rc;
    /* alltoallw without rules of its own follows alltoallv's (the same
     * algorithms, the same agreed bytes). */
    xchg_coll c = in->coll;
    if (c == XCHG_ALLTOALLW && t->num_rules[c] == 0) c = XCHG_ALLTOALLV;
    for (int i = 0; i < t->num_rules[c]; i++)
        if (rule_matches(&t->rules[c][i], in)) {
            *selection = t->rules[c][i].algorithm;
            break;
        }
    return MPI_SUCCESS;
}

int xchg_tuning_has_rules(xchg_coll coll, int *has)
{
    const xchg_tuning_table *t;
    int rc = get_table(&t);
    *has = rc == MPI_SUCCESS && t &&
           (t->num_rules[coll] > 0 || (coll == XCHG_ALLTOALLW && t->num_rules[XCHG_ALLTOALLV] > 0));
    return rc;
}

int xchg_tuning_platform(const xchg_platform **plat)
{
    const xchg_tuning_table *t;
    *plat = NULL;
    int rc = get_table(&t);
    if (rc == MPI_SUCCESS && t && t->has_model) *plat = &t->model;
    return rc;
}
