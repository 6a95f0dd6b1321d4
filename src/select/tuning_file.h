/*
 * Reading a tuning file into memory (tuning_file.c, with Jansson) and
 * finding the line of a value in its text (tuning_locate.c). tuning.c keeps
 * the loaded table for the process and answers lookups from it.
 */
#ifndef XCHG_SELECT_TUNING_FILE_H
#define XCHG_SELECT_TUNING_FILE_H

#include <stdint.h>
#include "../core/args.h"
#include "inputs.h"

/* An inclusive range; a key missing from a rule is the range of everything. */
typedef struct xchg_tuning_range {
    int64_t lo, hi;
} xchg_tuning_range;

typedef struct xchg_tuning_rule {
    xchg_tuning_range comm_size, ppn, nodes;
    xchg_tuning_range bytes, max_block_bytes;
    int has_bytes, has_max_block_bytes; /* such a rule never matches unknown (-1) sizes */
    int persistent_only;                /* "form": "persistent": persistent inits only */
    char *algorithm;                    /* validated with xchg_choice_parse */
} xchg_tuning_rule;

typedef struct xchg_tuning_table {
    int num_rules[XCHG_NUM_COLL];
    xchg_tuning_rule *rules[XCHG_NUM_COLL];
    int has_model;
    xchg_platform model;
    char *mpi;                          /* the file's "mpi", or NULL */
} xchg_tuning_table;

/* Read and validate the file at `path`. On failure: an MPI error code and
 * xchg_error's message "tuning file PATH:LINE: what is wrong". */
int xchg_tuning_file_read(const char *path, xchg_tuning_table **out);
void xchg_tuning_table_free(xchg_tuning_table *table);

/* One step of the path to a value in the JSON text: an object key, or (key
 * NULL) an array index. */
typedef struct xchg_json_step {
    const char *key;
    int index;
} xchg_json_step;

/* The 1-based line where the value at `path` starts in `text` (valid JSON),
 * or the line of the deepest enclosing value that was found. */
int xchg_json_line(const char *text, const xchg_json_step *path, int depth);

#endif
