/*
 * The state of online selection (online.c, online_fast.c, online_out.c),
 * one per context (ctx->online). Private to src/select/.
 */
#ifndef XCHG_SELECT_ONLINE_STATE_H
#define XCHG_SELECT_ONLINE_STATE_H

#include "../core/context.h"
#include "inputs.h"
#include "online.h"

/* The constants of online.c's header comment. */
#define XCHG_ONLINE_REPEATS 2             /* calls on the model before exploring */
#define XCHG_ONLINE_MODEL_CANDIDATES 3    /* of the model's tried (pick_candidates) */
#define XCHG_ONLINE_OUTSIDE_CANDIDATES 2  /* node_aware, rma_direct: beyond the model */
#define XCHG_ONLINE_CANDIDATES (XCHG_ONLINE_MODEL_CANDIDATES + XCHG_ONLINE_OUTSIDE_CANDIDATES + 1)
                                          /* and mpi */
#define XCHG_ONLINE_SAMPLES 5             /* samples per candidate; while they spread */
#define XCHG_ONLINE_SAMPLES_SPREAD 10     /*   over MARGIN, up to as many as take */
#define XCHG_ONLINE_SHORT_SECONDS 20e-6   /*   SAMPLES x 20 us, at least 10 and */
#define XCHG_ONLINE_SAMPLES_MAX 40        /*   at most 40 (xchg_online_samples_wanted) */
#define XCHG_ONLINE_RUN_MAX (XCHG_ONLINE_SAMPLES_MAX / XCHG_ONLINE_SAMPLES)
                                          /* samples of a timed run: a visit's (online.c) */
_Static_assert(XCHG_ONLINE_RUN_MAX <= XCHG_ONLINE_PENDING_MAX, "a run's times fit the agreement");
#define XCHG_ONLINE_DROP 2.0              /* dropped: fastest sample over 2x the fastest */
#define XCHG_ONLINE_WARMING 4.0           /*   unless under 1/4 of its warm-up, the only one */
#define XCHG_ONLINE_LOSING 1.25           /* dropped after LOSING_AFTER samples: fastest */
#define XCHG_ONLINE_LOSING_AFTER 3        /*   over 1.25x another's median of as many */
#define XCHG_ONLINE_MARGIN 0.05           /* mpi, or a re-check's incumbent, gives way only to */
#define XCHG_ONLINE_MARGIN_MIN 0.01       /*   a median faster by the samples' spread, 1-5%, */
#define XCHG_ONLINE_SWITCH_SAMPLES 5      /*   of 5 samples at least, */
#define XCHG_ONLINE_VISIT_WINS 0.8        /*   and faster in 80% of the visits both made */
#define XCHG_ONLINE_CHECK_EVERY 128       /* a decided signature times 1 call in 128, */
#define XCHG_ONLINE_CHECK_SECONDS 0.010   /*   or in as many as take 10 ms (short calls), */
#define XCHG_ONLINE_CHECK_MAX 4096        /*   doubling after a re-check that kept it */
#define XCHG_ONLINE_DRIFT_WINDOW 3        /* the median of the last 3 such times */
#define XCHG_ONLINE_DRIFT 0.5             /* drifted: 50% above the baseline */
#define XCHG_ONLINE_CONFIRM_AFTER 128     /* a winner other than mpi is timed against mpi */
#define XCHG_ONLINE_CONFIRM_CHECKS 8      /*   again 128 calls after its decision (or at its
                                             first check, if sooner), then at every 8th check */
#define XCHG_ONLINE_REEXPLORE_EVERY 65536 /* explore again anyway after this many calls */
#define XCHG_ONLINE_SIGNATURES 32         /* per communicator */
#define XCHG_ONLINE_INIT_PATTERNS 16      /* persistent inits measured, remembered (FIFO) */

typedef enum { SIG_SEEN, SIG_EXPLORING, SIG_DECIDED } xchg_online_sig_state;

typedef struct xchg_online_signature {
    xchg_select_input in;          /* bucketed agreed inputs (the key) */
    unsigned long id;              /* unique in the context: a slot reused is new */
    xchg_online_sig_state state;
    unsigned long calls, last_use; /* calls of this signature; LRU clock */
    int ncand;
    xchg_choice cand[XCHG_ONLINE_CANDIDATES];
    double *samples;               /* agreed seconds, SAMPLES_MAX per candidate
                                      (xchg_online_samples_of); only while exploring */
    unsigned char *sample_visit;   /* each sample's visit of its candidate, from 0
                                      (xchg_online_visits_of); in samples' block */
    int nsamples[XCHG_ONLINE_CANDIDATES];
    int visits[XCHG_ONLINE_CANDIDATES]; /* visits begun, per candidate */
    double warm_up[XCHG_ONLINE_CANDIDATES]; /* each one's warm-up call, agreed seconds */
    int dropped[XCHG_ONLINE_CANDIDATES]; /* stopped early: a clear loser */
    int next;                      /* the candidate the next exploring call runs */
    int confirming;                /* this (or the last) exploration is a confirmation: the
                                      winner and mpi only, the others left out as dropped */
    int checks_to_confirm;         /* decided: the check that confirms (1: the next); 0: none */
    int recorded;                  /* calls timed in this exploration (warm-ups too) */
    int samples_wanted;            /* per candidate: SAMPLES, more for short calls */
    int switch_calls;              /* first calls of visits, not samples (this exploration) */
    double fastest_warm_up;        /* the fastest agreed warm-up call (sets it) */
    double explore_seconds;        /* their sum */
    int winner, has_incumbent, incumbent;
    double medians[XCHG_ONLINE_CANDIDATES]; /* of each one's samples: kept up to date while
                                               exploring, then the last exploration's */
    double winner_seconds;         /* the winner's median */
    unsigned long next_check, check_every, reexplore_at;
    /* a timed run (online.c): the next run_left calls of the signature run
     * candidate run_cand, timed on whichever path takes them; their times,
     * this rank's, wait in run_seconds until the run is over */
    int run_cand, run_left, run_n;
    double run_seconds[XCHG_ONLINE_RUN_MAX];
    double baseline;               /* median of the first drift window; 0: none yet */
    double drift[XCHG_ONLINE_DRIFT_WINDOW];
    int ndrift;
    int explorations;
    unsigned long explored_calls;  /* over every exploration */
    double explore_cost;           /* seconds beyond the winner's, every exploration */
} xchg_online_signature;

/* What decided the last selection of a collective, for the fast path: a
 * decided signature (>= 0), or one of these: XCHG_Comm_set_algorithm,
 * XCHG_<COLL> (the environment: the fast path serves only its `mpi`), a
 * tuning or the fixed rule. */
enum { FAST_NONE = -1, FAST_EXPLICIT = -2, FAST_AUTOMATIC = -3, FAST_EXPLICIT_ENV = -4 };

/* The fast path's memory of one collective: the last call's arguments that
 * went to `mpi`, and what decided it (fast_ready's value). */
typedef struct xchg_online_fast {
    /* What every call of the path reads and writes comes first, in one
     * cache line (the struct is 64-byte aligned, and so is xchg_online's
     * allocation): in a program that computes between its calls each line
     * the path touches is a miss. */
    _Alignas(64) int armed;
    unsigned char in_place, is_mpi;     /* is_mpi: choice is `mpi` */
    unsigned char timed;                /* sig >= 0: its calls are a timed run's */
    int sig;
    int sendcount, recvcount;           /* allgatherv: recvcount is the own rank's */
    MPI_Datatype sendtype, recvtype;
    unsigned calls_left;                /* sig >= 0: calls the path may take before the
                                           signature is due for a drift sample or for
                                           exploring again (the normal path's; at most
                                           REEXPLORE_EVERY), or (timed) before its timed
                                           run is over */
    unsigned calls;                     /* of them, those taken and not yet counted in
                                           the signature (xchg_online_fast_release) */
    unsigned accounted;                 /* `mpi`: ctx->accounted_calls when the path
                                           last said so in ctx->last and phases */
    unsigned fast_calls;                /* every call the path took (tests) */
    unsigned long last_use;             /* ctx->online_clock at its last such call */
    /* the rest: read when arming, by the kept arguments' run, by allgatherv */
    unsigned long id;
    int64_t recv_type_size;             /* allgatherv: of recvtype */
    int64_t bytes, max_block_bytes;     /* allgatherv: the exact inputs of selection */
    xchg_choice choice;
    int winner;                         /* sig >= 0: choice is its candidate `winner` */
    /* a choice other than `mpi` (alltoall, alltoallv, allgather, not in
     * place): the arming call's normalized arguments, their per-peer arrays
     * in `kept` (both sides), reused with the next call's buffers */
    xchg_args args;
    char *kept;
    size_t kept_size;
} xchg_online_fast;

/* Measured times that the collective's next blocking call agrees (select.c,
 * online.c), and whose signature and candidate they are: one timed call's,
 * or (run) a timed run's, in the order of its calls. */
typedef struct xchg_online_pending_time {
    int armed, sig, cand, run, count;
    unsigned long id;
    int64_t ns[XCHG_ONLINE_RUN_MAX]; /* each + 1: > 0, a time is there */
} xchg_online_pending_time;

struct xchg_online {
    int count;
    unsigned long next_id;
    xchg_online_signature sig[XCHG_ONLINE_SIGNATURES];
    int measure_now;                     /* the current call is timed */
    int measuring_sig, measuring_cand;   /* which signature and candidate */
    int measuring_run;                   /* the call is one of its timed run */
    unsigned long measuring_id;
    xchg_online_pending_time pending[XCHG_NUM_COLL]; /* times for the next call to agree */
    int fast_ready[XCHG_NUM_COLL];      /* the last selection: the decided signature
                                           (>= 0) or FAST_* */
    xchg_online_fast fast[XCHG_NUM_COLL];
    /* persistent inits (online_init.c): the winners measured,
     * by the call's bucketed agreed inputs */
    int init_count, init_next;
    xchg_select_input init_in[XCHG_ONLINE_INIT_PATTERNS];
    xchg_choice init_winner[XCHG_ONLINE_INIT_PATTERNS];
};
typedef struct xchg_online xchg_online;

/* ctx's state, created on first use (NULL: out of memory). */
xchg_online *xchg_online_state(xchg_context *ctx);

/* online_fast.c: count the calls the fast path of `coll` took into its
 * signature (calls, last use), and, with `disarm`, disarm it. Whatever
 * reads or changes a signature's calls does this first for the fast paths
 * that may have taken calls of it: every rank counts a signature's calls
 * alike, whichever path each call took, and its drift samples and
 * re-explorations fall on the same calls everywhere. */
void xchg_online_fast_release(xchg_online *o, xchg_coll coll, int disarm);

/* online.c: the signature of the bucketed inputs `in`, or -1. */
int xchg_online_find(const xchg_online *o, const xchg_select_input *in);

/* online.c: start (or restart, keeping the winner as incumbent) exploring;
 * start a confirmation of a decided winner against mpi. */
int xchg_online_start_exploring(xchg_online_signature *s, int keep_incumbent);
int xchg_online_start_confirming(xchg_online_signature *s);

/* online_record.c: a call of the timed run of o->sig[sig] (a signature the fast
 * path was armed for) took `seconds` on this rank; XCHG_ONLINE_NO_TIME: it
 * failed. */
#define XCHG_ONLINE_NO_TIME (-1.0)
void xchg_online_run_call(xchg_context *ctx, xchg_coll coll, int sig, double seconds);

/* online_arm.c, for the fast path: whether `sig` (fast_ready's) is an
 * explicit choice; whether XCHG_AGREE is sampled (the default); allgatherv's
 * inputs of selection from recvcounts (the mean and largest contribution). */
static inline int xchg_online_is_explicit(int sig)
{
    return sig == FAST_EXPLICIT || sig == FAST_EXPLICIT_ENV;
}
int xchg_online_agree_sampled(void);
void xchg_online_allgatherv_sizes(const int *counts, int size, int64_t type_size, int64_t *mean,
                                  int64_t *largest);

/* The test hooks (online_hooks.c): the time XCHG_TEST_ONLINE_TIMES forces
 * for this rank and algorithm, in seconds (else `measured`); the calls
 * between two timed ones of a winner that takes winner_seconds (CHECK_EVERY,
 * or as many as take CHECK_SECONDS, at most CHECK_MAX), or
 * XCHG_TEST_ONLINE_CHECK. */
double xchg_online_test_time(const xchg_context *ctx, const char *algo, double measured);
unsigned long xchg_online_check_every(double winner_seconds);

/* online.c: whether XCHG_VERBOSE asks for the exploration lines. */
int xchg_online_verbose(void);

/* online_candidates.c: the candidates (cand[XCHG_ONLINE_CANDIDATES], *ncand)
 * of the dense signature `in` (bucketed inputs) whose automatic choice is
 * `model`: a signature about to explore, or a persistent init
 * (online_init.c). */
int xchg_online_pick_candidates(xchg_context *ctx, const xchg_select_input *in,
                                const xchg_choice *model, xchg_choice *cand, int *ncand);

/* online_init_race.c: a persistent init's measurement (online_init.c) of
 * cand[0..ncand) on `scratch` (the call's arguments on scratch buffers; in:
 * its agreed inputs, for XCHG_VERBOSE): *winner, the index of the one to
 * keep, -1 when none could run. Collective. */
int xchg_online_init_race(xchg_context *ctx, const xchg_args *scratch, const xchg_select_input *in,
                          const xchg_choice *cand, int ncand, int *winner);

/* online_decide.c: the decision rules, on agreed times only. */
double xchg_online_median(const double *v, int n);
void xchg_online_cut_losers(xchg_online_signature *s); /* the DROP and LOSING rules */
int xchg_online_next_candidate(const xchg_online_signature *s); /* -1: every one done */
int xchg_online_visit_length(const xchg_online_signature *s);  /* samples per visit */
int xchg_online_unsettled(const xchg_online_signature *s, int c); /* wants a sample */
int xchg_online_samples_wanted(double fastest_warm_up); /* per candidate */

/* Candidate c's samples (while exploring). */
static inline double *xchg_online_samples_of(const xchg_online_signature *s, int c)
{
    return s->samples + (size_t)c * XCHG_ONLINE_SAMPLES_MAX;
}
static inline unsigned char *xchg_online_visits_of(const xchg_online_signature *s, int c)
{
    return s->sample_visit + (size_t)c * XCHG_ONLINE_SAMPLES_MAX;
}
int xchg_online_mpi_candidate(const xchg_online_signature *s);  /* -1: none */

/* The incumbent rule's margin between two candidates whose samples spread
 * by spread_c and spread_o (range / median): the larger, at least
 * MARGIN_MIN and at most MARGIN (online_decide.c, online_init.c). */
static inline double xchg_online_margin(double spread_c, double spread_o)
{
    double margin = spread_c > spread_o ? spread_c : spread_o;
    if (margin < XCHG_ONLINE_MARGIN_MIN) margin = XCHG_ONLINE_MARGIN_MIN;
    return margin > XCHG_ONLINE_MARGIN ? XCHG_ONLINE_MARGIN : margin;
}

/* Calls of the warm-up round: one per candidate, none in a confirmation. */
static inline int xchg_online_warm_ups(const xchg_online_signature *s)
{
    return s->confirming ? 0 : s->ncand;
}
void xchg_online_decide(const xchg_context *ctx, xchg_online_signature *s);

#endif
