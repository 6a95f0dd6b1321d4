/*
 * The tuning file (XCHG_TUNING_FILE): measured rules that say which algorithm
 * to use for a collective, by communicator size, ranks per node, node count
 * and block size, and optionally the platform constants of the cost model.
 * Written by tools/xchg-tune; the format is in docs/tuning.md.
 *
 * Precedence of selection: per-communicator override > environment
 * (XCHG_ALLTOALLV etc.) > tuning file > built-in cost model.
 *
 * The file is read and validated once per process, at the first lookup, and
 * kept in memory until MPI_Finalize. A file that cannot be read or is invalid
 * makes every lookup fail with the same MPI error code and a message naming
 * the file and the line (XCHG_Last_error) - never a silent fallback.
 */
#ifndef XCHG_SELECT_TUNING_H
#define XCHG_SELECT_TUNING_H

#include "../core/args.h"
#include "inputs.h"

/* The algorithm string of the first rule of the file that matches `in`
 * ("parlogna:radix=4"; valid until MPI_Finalize), or NULL when
 * XCHG_TUNING_FILE is unset or empty, or no rule matches. MPI_SUCCESS, or the
 * load error's code with its message set by xchg_error. */
int xchg_tuning_lookup(const xchg_select_input *in, const char **selection);

/* Whether the file has rules for `coll` (alltoallw: or alltoallv's, which
 * it follows) into *has; same return codes as xchg_tuning_lookup. */
int xchg_tuning_has_rules(xchg_coll coll, int *has);

/* The file's "model" constants, or NULL when there is no file or the file has
 * no "model". Same return codes as xchg_tuning_lookup. */
int xchg_tuning_platform(const xchg_platform **plat);

/* Tests and tools: replace what is loaded by the file at `path` (NULL: no
 * file), now, whatever XCHG_TUNING_FILE says. Returns the load's result (also
 * returned by every later lookup). Not to be called while other threads look
 * up. */
int xchg_tuning_load(const char *path);

#endif
