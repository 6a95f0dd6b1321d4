/*
 * What select.c and select_neighbor.c share: the steps of a choice that
 * both the dense collectives and the neighbourhood alltoallv take. Private
 * to src/select/ (the rest of xchg uses select.h).
 */
#ifndef XCHG_SELECT_INTERNAL_H
#define XCHG_SELECT_INTERNAL_H

#include "select.h"

/* XCHG_AGREE: when blocking calls agree their sizes or pattern. */
typedef enum { AGREE_SAMPLED, AGREE_ALWAYS, AGREE_NEVER } agree_mode;

/* XCHG_AGREE's mode; MPI_ERR_ARG naming it when invalid. */
int xchg_select_agree_mode(agree_mode *mode);

/* The override or the environment, when one decides (*source: which;
 * NULL when neither does). */
int xchg_select_explicit(xchg_context *ctx, xchg_coll coll, xchg_choice *out,
                         const char **source);

/* A tuning rule, the fixed rule (no inputs) or the cost model, on `in`
 * (*source: which; reported under XCHG_VERBOSE). */
int xchg_select_automatic(xchg_context *ctx, const xchg_select_input *in, xchg_choice *out,
                          const char **source);

/* select_neighbor.c: whether the choice from `source` on `in` is a
 * neighbourhood call's `standard` that runs as `mpi`; and that replacement. */
int xchg_select_standard_runs_as_library(const xchg_select_input *in, const char *source,
                                         const xchg_choice *choice);
int xchg_select_library_for_standard(const xchg_context *ctx, const xchg_select_input *in,
                                     const char *source, xchg_choice *out);

/* select_neighbor.c: a neighbourhood call's choice when no agreement is
 * needed (*decided = 1); a persistent init's (agreed, then measured). */
int xchg_select_neighbor_unagreed(xchg_context *ctx, xchg_select_form form, xchg_choice *out,
                                  int *decided, agree_mode *mode);
int xchg_select_neighbor_persistent(xchg_context *ctx, const xchg_args *args, xchg_choice *out);

#endif
