/*
 * Automatic selection's memory on one communicator, owned by src/select/
 * (select.c, online_fast.c): the parsed selection strings it reuses and,
 * per collective, the model's recent choices and alltoallv's last agreed
 * inputs. The core context holds one of these (`ctx->selection`) and never
 * looks inside; online selection's measurements live apart, behind
 * `ctx->online` (online.h).
 */
#ifndef XCHG_SELECT_STATE_H
#define XCHG_SELECT_STATE_H

#include <stdint.h>

#include "../core/registry.h"
#include "inputs.h"

/* A parsed selection string, kept so that the same string is not parsed
 * again on every call. */
typedef struct xchg_parsed_selection {
    char text[256];          /* the string as given ("" when unused) */
    xchg_choice choice;      /* parsed and fitted to the communicator */
} xchg_parsed_selection;

/* Automatic selection's memory for one collective (select.c): the last
 * choices of the model by input, and alltoallv's agreed inputs. */
#define XCHG_SELECT_MEMO 16
typedef struct xchg_select_memory {
    int count, next;                       /* memo entries used, next to replace */
    int64_t memo_bytes[XCHG_SELECT_MEMO];  /* the inputs that vary between calls */
    int64_t memo_max_block[XCHG_SELECT_MEMO];
    int memo_peers[XCHG_SELECT_MEMO];
    xchg_choice memo_choice[XCHG_SELECT_MEMO];
    unsigned long calls;                   /* blocking calls that selected */
    xchg_select_input agreed;              /* alltoallv: the last agreement */
    int has_reported;                      /* XCHG_VERBOSE: the last choice printed */
    xchg_choice reported;
} xchg_select_memory;

typedef struct xchg_select_state {
    xchg_parsed_selection env[XCHG_NUM_COLL];   /* XCHG_ALLTOALLV etc. */
    xchg_parsed_selection rule[XCHG_NUM_COLL];  /* the built-in rule's */
    xchg_parsed_selection tuned[XCHG_NUM_COLL]; /* the tuning file's */
    xchg_select_memory memory[XCHG_NUM_COLL];
} xchg_select_state;

#endif
