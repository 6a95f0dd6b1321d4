/*
 * xchg-bench: shared declarations. The benchmark is split into
 *   xchg_bench.c     options, the size x algorithm loop, timing
 *   bench_workload.c block sizes (--dist), buffers, the calls themselves
 *   bench_algos.c    --algo expansion (all, sweeps) from the registry
 *   bench_report.c   table, CSV, JSON, progress
 *   bench_setup.c    --persistent (requests) and --first-call (fresh communicators)
 * To add an option such as --skew (arrival skew) or --breakdown (phase times):
 * put its value in bench_options, act on it in bench_time_calls() (the one
 * timed loop), and add its columns to bench_result and bench_report.c.
 */
#ifndef XCHG_BENCH_H
#define XCHG_BENCH_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "xchg.h"

/* --breakdown: the phases hierarchical algorithms report (XCHG_Comm_get_phase_times),
 * in a fixed order; any other name is added to "other". */
#define BENCH_NUM_PHASES 6
extern const char *const bench_phase_names[BENCH_NUM_PHASES];

/* The collectives xchg-bench times (-c). */
typedef enum {
    BENCH_ALLTOALLV,
    BENCH_ALLTOALL,
    BENCH_ALLGATHER,
    BENCH_ALLTOALLW,
    BENCH_ALLGATHERV,
    BENCH_NUM_COLLS
} bench_coll;
/* Blocks per peer that vary (--dist): alltoallv, alltoallw. */
static inline int bench_coll_is_v(bench_coll c) { return c == BENCH_ALLTOALLV || c == BENCH_ALLTOALLW; }
extern const char *const bench_coll_names[BENCH_NUM_COLLS]; /* as xchg names them */

typedef enum {
    DIST_UNIFORM, DIST_NORMAL, DIST_POWERLAW, DIST_SPARSE, DIST_FFT1, DIST_FFT2, DIST_COUNT
} bench_dist;

extern const char *const bench_dist_names[DIST_COUNT];

#define BENCH_MAX_OVERLAP 4

typedef struct bench_options {
    bench_coll coll;
    const char *coll_name;
    int64_t min_size, max_size;   /* -m MIN:MAX, bytes */
    int iterations, warmup;       /* -i, -x */
    int rounds;                   /* -r: interleaved rounds per size */
    int full;                     /* -f: min/max columns */
    const char *algo_specs[64];   /* --algo, repeatable */
    int num_algo_specs;
    bench_dist dist;
    uint64_t seed;
    const char *csv_path, *json_path;
    int progress;
    int breakdown;                /* --breakdown: per-phase medians */
    int persistent;               /* --persistent N: starts per request (0: off) */
    int first_call;               /* --first-call: first calls on fresh communicators */
    double skew_mif;              /* --skew MIF: random arrival delays (0: off) */
    int skew_dist;                /* --skew-dist: SKEW_UNIFORM or SKEW_ONE_LATE */
    /* --overlap (bench_overlap.c): compute levels, each absolute (us) or a
     * factor of MPI's own nonblocking exchange time (factor > 0) */
    int overlap_levels;
    double overlap_us[BENCH_MAX_OVERLAP], overlap_factor[BENCH_MAX_OVERLAP];
    double test_every_us;         /* --test-every: test during the compute (0: never) */
    int overlap_persistent;       /* --overlap-persistent: init + XCHG_Start instead of XCHG_I* */
} bench_options;

enum { SKEW_UNIFORM, SKEW_ONE_LATE };

/* The algorithms to run: selection strings, after expanding all and sweeps. */
typedef struct bench_algo_list {
    int count;
    char (*selection)[256];
} bench_algo_list;

/* One buffer set for one message size. */
typedef struct bench_workload {
    int64_t size;                 /* S: block bytes (alltoall/allgather), max block (alltoallv) */
    int *sendcounts, *sdispls, *recvcounts, *rdispls; /* alltoallv, MPI_BYTE elements;
                                     alltoallw: 1 or 0 elements of the peer's type,
                                     byte displacements */
    MPI_Datatype *sendtypes, *recvtypes; /* alltoallw: a vector type per peer */
    int ntypes;                   /* alltoallw: 2P types (sendtypes, then recvtypes) */
    int count;                    /* alltoall/allgather: bytes per block */
    char *sendbuf, *recvbuf, *refbuf;
    size_t send_bytes, recv_bytes;
    long long total_bytes;        /* bytes this rank sends (for reports) */
    double message_us;            /* --skew: time of one message of S bytes (ping-pong) */
} bench_workload;

typedef enum { ROW_OK, ROW_WRONG, ROW_FAILED, ROW_NOT_APPLICABLE } bench_status;

typedef struct bench_result {
    int64_t size;
    char algorithm[256];          /* "MPI" or the full selection string used */
    int is_mpi;
    bench_status status;
    char message[256];            /* why, when status is not ROW_OK */
    double median_us, min_us, max_us, ratio;
    double mean_us;               /* mean over iterations (CSV/JSON with --persistent) */
    int iterations, warmup;
    long long scratch_peak;       /* max over ranks, bytes */
    double send_bytes_per_rank;   /* mean over ranks of the bytes a rank sends */
    int phase_seen;               /* --breakdown: bit p set when some rank reported phase p */
    double phase_us[BENCH_NUM_PHASES]; /* median over iterations of the slowest rank's phase time */
    /* --persistent N: one request per round (init, N starts); slowest rank's times */
    bench_status persist_status;  /* ROW_NOT_APPLICABLE: MPI has no persistent form */
    double init_us;               /* median over rounds of the init */
    double start_us;              /* median over every start (Start + Wait) */
    double first_start_us;        /* median over rounds of the first start */
    double per_call_us;           /* median over rounds of (init + N starts) / N */
    /* --first-call: one fresh communicator per round */
    bench_status first_status;
    double ctx_us;                /* XCHG_Comm_set_algorithm on it (NAN for MPI) */
    double first_us, second_us;   /* its first call (plan built) and second call */
    /* --skew: median_us is then the paper's completion time (mean over ranks
     * of exit minus own arrival); span_us: last exit minus first arrival */
    double span_us, message_us;
} bench_result;

typedef struct bench_run_info {
    const bench_options *opt;
    int size, num_nodes, topo_virtual;
    int algo_width;               /* width of the algorithm column */
    char mpi_library[128];
} bench_run_info;

/* bench_workload.c */
int bench_workload_create(const bench_options *opt, int64_t size, int rank, int nranks,
                          bench_workload *w);
void bench_workload_free(bench_workload *w);
/* Run one call: MPI's own (use_mpi) or xchg's, into w->recvbuf. */
int bench_call(const bench_options *opt, bench_workload *w, int use_mpi, MPI_Comm comm);
/* Fill the receive buffer with a sentinel, so untouched bytes are compared too. */
void bench_clear_recv(bench_workload *w, char *buf);
/* xchg-bench's options from the command line (bench_options.c): 0 run,
 * 1 exit successfully (help), 2 usage error (reported by rank 0). */
int bench_parse_options(int argc, char **argv, bench_options *o, int rank);
/* Sizes to run: powers of two from -m (fft patterns: one fixed size). */
int bench_sizes(const bench_options *opt, int nranks, int64_t *sizes, int max_sizes);

/* bench_algos.c */
int bench_algos_expand(const bench_options *opt, int nranks, int rank, bench_algo_list *list);
void bench_algos_free(bench_algo_list *list);

/* bench_setup.c: --persistent and --first-call, one trial per row and round
 * (selection NULL: MPI's own). Times are the slowest rank's. */
typedef struct bench_setup {
    double *persistent;           /* [row][round][1 + N]: init, then the N starts */
    double *first;                /* [row][round][3]: context, first call, second call */
    int rounds;
} bench_setup;

int bench_mpi_persistent_available(void);
const char *bench_mpi_persistent_name(void);
int bench_setup_alloc(const bench_options *o, int num_rows, int rounds, bench_setup *st);
void bench_setup_free(bench_setup *st);
/* Row `row`'s trials of round `round`; a failure or a wrong result sets
 * r->persist_status or r->first_status. */
void bench_setup_round(const bench_options *o, bench_workload *w, const char *selection,
                       MPI_Comm comm, bench_setup *st, int row, int round, bench_result *r);
/* Medians into r (init_us ... second_us). */
void bench_setup_summarize(const bench_options *o, const bench_setup *st, int row,
                           bench_result *r);

/* bench_setup.c: a persistent request of MPI's own (MPI_ERR_UNSUPPORTED_OPERATION
 * without one) or xchg's (info: xchg_algorithm, or MPI_INFO_NULL). */
int bench_mpi_init(const bench_options *o, bench_workload *w, MPI_Comm comm, MPI_Request *req);
int bench_xchg_init(const bench_options *o, bench_workload *w, MPI_Comm comm, MPI_Info info,
                    XCHG_Request *req);

/* bench_overlap.c: --overlap, the whole run (instead of the blocking rows);
 * returns the exit code. */
int bench_overlap_main(const bench_options *o, const bench_algo_list *algos,
                       const int64_t *sizes, int num_sizes, MPI_Comm comm,
                       const bench_run_info *info);

/* bench_report.c */
void bench_report_header(const bench_run_info *info, FILE *out);
void bench_report_row(const bench_run_info *info, const bench_result *r, FILE *out);
void bench_report_summary(const bench_run_info *info, const bench_result *rows, int num_rows,
                          FILE *out);
void bench_report_persistent_summary(const bench_run_info *info, const bench_result *rows,
                                     int num_rows, FILE *out);
int bench_report_csv(const bench_run_info *info, const bench_result *rows, int num_rows,
                     const char *path);
int bench_report_json(const bench_run_info *info, const bench_result *rows, int num_rows,
                      const char *path);
void bench_progress(int enabled, int done, int total, int64_t size, const char *algo);

/* The string XCHG_Comm_set_algorithm takes for a row's selection: "auto"
 * (automatic selection) clears the communicator's choice. */
static inline const char *bench_selection_string(const char *selection)
{
    return selection[0] == 'a' && selection[1] == 'u' && selection[2] == 't' &&
                   selection[3] == 'o' && selection[4] == '\0'
               ? "" : selection;
}

#endif
