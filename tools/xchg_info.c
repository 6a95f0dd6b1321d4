/*
 * xchg-info: what xchg has and what it would do here.
 *
 *   xchg-info                    algorithms, topology and default selections
 *   xchg-info --algorithms       every algorithm of every collective, its
 *                                summary and parameters with their ranges
 *   xchg-info --markdown         the same as a Markdown table (for README.md),
 *                                with each algorithm's reference (README's
 *                                "References" section lists them in full)
 *   xchg-info --topology         the topology of MPI_COMM_WORLD as xchg sees it
 *   xchg-info --select alltoall --bytes 64 [--top N]
 *                                the algorithm XCHG_Comm_get_algorithm answers
 *                                for that call (honours XCHG_ALLTOALL etc.),
 *                                what decided it, and the cost model's N
 *                                cheapest candidates with their predicted
 *                                times and the terms they are made of
 *                                (alltoallv: N is the mean block)
 *   xchg-info --select alltoallv --bytes 64 --ranks 1024 --ppn 16 [--peers 8]
 *                                the model alone for any machine (one
 *                                process), --peers for a sparse alltoallv
 *   xchg-info --select neighbor_alltoallv --ranks 256 --ppn 16
 *             --pattern RM,LM,RB,LB,D
 *                                the same for a neighbourhood pattern given
 *                                by its agreed inputs (src/select/inputs.h,
 *                                each the largest over ranks): off-node and
 *                                on-node messages, their bytes, other nodes
 * Run it under mpirun to see a real or virtual (XCHG_VIRTUAL_NODES) layout;
 * only rank 0 prints.
 */
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xchg.h"

/* The order of the listings. */
static const char *const all_colls[] = {"alltoallv", "alltoall", "allgather", "allgatherv",
                                        "neighbor_alltoallv"};
#define NUM_COLLS 5
static long long max_block = -1; /* --max-block: the largest block (alltoallv, allgatherv) */

static void print_algorithms(void)
{
    for (int c = 0; c < NUM_COLLS; c++) {
        const char *coll = all_colls[c];
        int count = 0;
        char env[64];
        snprintf(env, sizeof env, "XCHG_%s", coll);
        for (char *ch = env; *ch; ch++) *ch = (char)toupper((unsigned char)*ch);
        XCHG_Algorithm_count(coll, &count);
        printf("%s (%d algorithms; select with %s=name[:param=value,...])\n", coll, count, env);
        for (int i = 0; i < count; i++) {
            const char *name, *summary;
            int hierarchical, num_params;
            XCHG_Algorithm_get_info(coll, i, &name, &summary, NULL, &hierarchical, &num_params);
            printf("  %-22s %s%s\n", name, summary, hierarchical ? " [hierarchical]" : "");
            for (int k = 0; k < num_params; k++) {
                char range[2048];
                const char *help;
                XCHG_Param_describe(coll, i, k, range, sizeof range);
                XCHG_Param_get_info(coll, i, k, NULL, NULL, NULL, NULL, NULL, NULL, &help);
                printf("  %-22s   %s%s%s\n", "", range, *help ? ": " : "", help);
            }
        }
        printf("\n");
    }
}

/* Markdown cell text: '|' would end the cell. */
static void print_cell(const char *text)
{
    for (; *text; text++) {
        if (*text == '|') fputc('\\', stdout);
        fputc(*text, stdout);
    }
}

static void print_markdown(void)
{
    printf("| collective | algorithm | what it does | parameters (default [range]) | reference |\n");
    printf("|---|---|---|---|---|\n");
    for (int c = 0; c < NUM_COLLS; c++) {
        const char *coll = all_colls[c];
        int count = 0;
        XCHG_Algorithm_count(coll, &count);
        for (int i = 0; i < count; i++) {
            const char *name, *summary, *reference;
            char params[2048];
            XCHG_Algorithm_describe(coll, i, NULL, 0, params, sizeof params);
            XCHG_Algorithm_get_info(coll, i, &name, &summary, &reference, NULL, NULL);
            printf("| %s | `%s` | ", coll, name);
            print_cell(summary);
            printf(" | ");
            print_cell(params[0] ? params : "-");
            printf(" | ");
            print_cell(reference[0] ? reference : "-");
            printf(" |\n");
        }
    }
}

static void print_topology(MPI_Comm comm)
{
    int rank, len, size, num_nodes, is_virtual, is_block;
    char host[MPI_MAX_PROCESSOR_NAME] = "";
    MPI_Comm_rank(comm, &rank);
    MPI_Get_processor_name(host, &len);
    MPI_Comm_size(comm, &size);
    char *hosts = rank == 0 ? calloc((size_t)size, MPI_MAX_PROCESSOR_NAME) : NULL;
    int *ranks = rank == 0 ? malloc((size_t)size * sizeof *ranks) : NULL;
    MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
               0, comm);
    if (XCHG_Comm_get_topology(comm, &num_nodes, &is_virtual, &is_block) != MPI_SUCCESS) {
        if (rank == 0) printf("topology: unavailable: %s\n", XCHG_Last_error());
        free(hosts);
        free(ranks);
        return;
    }
    if (rank == 0) {
        const char *vn = getenv("XCHG_VIRTUAL_NODES"), *vp = getenv("XCHG_VIRTUAL_PLACEMENT");
        printf("topology of MPI_COMM_WORLD: P=%d ranks on %d %s node(s), placement %s\n",
               size, num_nodes, is_virtual ? "virtual" : "real",
               is_block ? "block (each node holds consecutive ranks)" : "not block (e.g. cyclic)");
        if (is_virtual)
            printf("  from XCHG_VIRTUAL_NODES=%s XCHG_VIRTUAL_PLACEMENT=%s\n", vn ? vn : "",
                   vp && *vp ? vp : "block (default)");
        else
            printf("  from MPI_COMM_TYPE_SHARED (set XCHG_VIRTUAL_NODES=N or =a,b,c to test "
                   "other layouts)\n");
        for (int n = 0; n < num_nodes; n++) {
            int node_size = 0;
            XCHG_Comm_get_node(comm, n, size, ranks, &node_size);
            printf("  node %d (%d ranks%s%s):", n, node_size, is_virtual ? "" : ", ",
                   is_virtual ? "" : hosts + (size_t)ranks[0] * MPI_MAX_PROCESSOR_NAME);
            for (int l = 0; l < node_size; l++) {
                if (l == 16 && node_size > 18) {
                    printf(" ... %d", ranks[node_size - 1]);
                    break;
                }
                printf(" %d", ranks[l]);
            }
            printf("\n");
        }
    }
    free(hosts);
    free(ranks);
}

/* What each collective would use now, at a few block sizes. */
static void print_selections(MPI_Comm comm)
{
    static const long long sizes[] = {8, 64, 256, 1024, 16384, 1048576};
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) printf("\nselection now (per-comm choice > XCHG_<COLL> env > tuning file > cost model):\n");
    for (int c = 0; c < NUM_COLLS; c++) {
        const char *name = all_colls[c];
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            char buf[512];
            int any_size = strcmp(name, "neighbor_alltoallv") == 0; /* alltoallv: mean block */
            if (any_size && s > 0) break; /* size-independent */
            if (XCHG_Comm_get_algorithm(comm, name, 0, sizes[s], buf, sizeof buf) != MPI_SUCCESS)
                snprintf(buf, sizeof buf, "error: %s", XCHG_Last_error());
            if (rank != 0) continue;
            if (any_size) printf("  %-10s any size   %s\n", name, buf);
            else printf("  %-10s %8lld B  %s\n", name, sizes[s], buf);
        }
    }
}

/* The model's `top` cheapest candidates for the case. */
static int print_ranking(XCHG_Case xcase, int top)
{
    long long model_bytes;
    int count = 0;
    XCHG_Case_get_shape(xcase, NULL, NULL, NULL, NULL, &model_bytes);
    if (model_bytes < 0 || top <= 0) return 0;
    if (XCHG_Case_rank(xcase, &count) != MPI_SUCCESS) {
        fprintf(stderr, "xchg-info: %s\n", XCHG_Last_error());
        return 1;
    }
    printf("# the cost model's %d cheapest of %d candidates (us):\n", top < count ? top : count,
           count);
    printf("# %4s %10s %9s %9s %9s %9s  %s\n", "rank", "predicted", "latency", "overhead",
           "bandwidth", "copy", "candidate");
    for (int i = 0; i < count && i < top; i++) {
        char name[512];
        double seconds, t[4];
        XCHG_Case_get_candidate(xcase, i, name, sizeof name, &seconds, t);
        printf("# %4d %10.2f %9.2f %9.2f %9.2f %9.2f  %s\n", i + 1, seconds * 1e6, t[0] * 1e6,
               t[1] * 1e6, t[2] * 1e6, t[3] * 1e6, name);
    }
    return 0;
}

/* --select: the choice, what made it, and the model's ranking. */
static int explain_selection(MPI_Comm comm, const char *collective, long long bytes, int top)
{
    char chosen[512];
    XCHG_Case xcase = NULL;
    const char *source;
    int rank, reason, tuned_constants = 0, P, nodes, min_node, max_node;
    long long model_bytes;
    MPI_Comm_rank(comm, &rank);
    if (XCHG_Comm_case_create(comm, collective, bytes, &xcase) != MPI_SUCCESS ||
        XCHG_Case_select(xcase, chosen, sizeof chosen, &reason, &source) != MPI_SUCCESS) {
        if (rank == 0) fprintf(stderr, "xchg-info: %s\n", XCHG_Last_error());
        XCHG_Case_free(&xcase);
        return 1;
    }
    if (rank != 0) return XCHG_Case_free(&xcase);
    XCHG_Model_get_constants_source(&tuned_constants); /* its errors were the selection's */
    XCHG_Case_get_shape(xcase, &P, &nodes, &min_node, &max_node, &model_bytes);
    printf("%s\n", chosen);
    printf("# %s, P=%d on %d node(s) of %d..%d ranks, %lld B per block (the model sees %lld): "
           "decided by %s%s\n", collective, P, nodes, min_node, max_node, bytes, model_bytes,
           source,
           reason != XCHG_REASON_MODEL ? ""
           : tuned_constants ? ", the tuning file's platform constants"
                             : ", built-in platform constants");
    int rc = print_ranking(xcase, top);
    XCHG_Case_free(&xcase);
    return rc;
}

/* --select with --ranks P --ppn Q: the choice for a machine of ceil(P/Q)
 * nodes of Q ranks (the last one may be smaller) that need not be this one:
 * a rule of the tuning file (XCHG_TUNING_FILE) when one matches, else the
 * model; no communicator, so no per-communicator choice or environment. */
static int explain_model(const char *collective, long long bytes, int ranks, int ppn, int peers,
                         const char *pattern, int top, char **predict, int npredict)
{
    long long nbr[5];
    int count;
    int is_nbr = collective && strcmp(collective, "neighbor_alltoallv") == 0;
    if (is_nbr && (!pattern || sscanf(pattern, "%lld,%lld,%lld,%lld,%lld", &nbr[0], &nbr[1],
                                      &nbr[2], &nbr[3], &nbr[4]) != 5)) {
        fprintf(stderr, "xchg-info: neighbor_alltoallv needs --pattern RM,LM,RB,LB,D\n");
        return 2;
    }
    if (is_nbr) bytes = 0; /* from the pattern, below */
    if (ranks < 1 || ppn < 1 || bytes < 0 || XCHG_Algorithm_count(collective, &count)) {
        fprintf(stderr, "xchg-info: --ranks, --ppn and --bytes must be positive, --select "
                        "a collective\n");
        return 2;
    }
    XCHG_Case xcase;
    char name[512];
    int reason, nodes, max_node;
    long long model_bytes;
    if (XCHG_Case_create(collective, ranks, ppn, bytes, &xcase) != MPI_SUCCESS) {
        fprintf(stderr, "xchg-info: %s\n", XCHG_Last_error());
        return 1;
    }
    if (is_nbr) XCHG_Case_set_neighbor_pattern(xcase, nbr[0], nbr[1], nbr[2], nbr[3], nbr[4]);
    else XCHG_Case_set_peers(xcase, peers);
    if (!is_nbr && max_block >= 0) XCHG_Case_set_max_block(xcase, max_block);
    if (XCHG_Case_select(xcase, name, sizeof name, &reason, NULL) != MPI_SUCCESS) {
        fprintf(stderr, "xchg-info: %s\n", XCHG_Last_error());
        XCHG_Case_free(&xcase);
        return 1;
    }
    XCHG_Case_get_shape(xcase, NULL, &nodes, NULL, &max_node, &model_bytes);
    if (is_nbr) bytes = model_bytes;
    printf("%s\n# %s, P=%d on %d node(s) of %d ranks, %lld B per block (the model sees %lld): "
           "%s\n", name, collective, ranks, nodes, max_node, bytes, model_bytes,
           reason == XCHG_REASON_TUNING_RULE ? "decided by a rule of the tuning file"
                                             : "the cost model");
    for (int i = 0; i < npredict; i++) { /* --predict SEL: one line "predict SEL us" */
        double seconds;
        if (XCHG_Case_predict(xcase, predict[i], &seconds) != MPI_SUCCESS)
            printf("predict %s error %s\n", predict[i], XCHG_Last_error());
        else if (seconds < 0)
            printf("predict %s unmodelled\n", predict[i]);
        else
            printf("predict %s %.3f\n", predict[i], seconds * 1e6);
    }
    int rc = print_ranking(xcase, top);
    XCHG_Case_free(&xcase);
    return rc;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: [mpirun -n P] xchg-info [--version | --algorithms | --markdown | --topology |\n"
                 "                                 --select COLL --bytes N [--top K]\n"
                 "                                 [--ranks P --ppn Q]]\n"
                 "  no option: algorithms, topology and default selections\n"
                 "  --select COLL --bytes N: the algorithm chosen for COLL (alltoall,\n"
                 "    alltoallv, allgather, allgatherv) with blocks of N bytes (alltoallv,\n"
                 "    allgatherv: the mean block),\n"
                 "    honouring XCHG_ALLTOALL etc., what decided, and the cost model's K\n"
                 "    (default 10) cheapest candidates; with --ranks P --ppn Q the model's\n"
                 "    choice for P ranks on nodes of Q (any P; one process is enough), and\n"
                 "    with --predict SEL (repeatable) the model's time of SEL there, and\n"
                 "    --peers K for a sparse alltoallv (K non-empty blocks per rank),\n"
                 "    --max-block M for the largest block (allgatherv: the largest\n"
                 "    contribution, --bytes the mean one; alltoallv too);\n"
                 "    neighbor_alltoallv takes --pattern RM,LM,RB,LB,D instead of --bytes:\n"
                 "    the busiest rank's off-node and on-node messages, their bytes, and\n"
                 "    the other nodes it exchanges with\n");
}

int main(int argc, char **argv)
{
    enum { OPT_ALGOS = 256, OPT_MARKDOWN, OPT_TOPOLOGY, OPT_SELECT, OPT_BYTES, OPT_TOP, OPT_RANKS,
           OPT_PPN, OPT_PREDICT, OPT_PEERS, OPT_PATTERN, OPT_MAX_BLOCK };
    static const struct option longs[] = {{"algorithms", no_argument, 0, OPT_ALGOS},
                                          {"markdown", no_argument, 0, OPT_MARKDOWN},
                                          {"topology", no_argument, 0, OPT_TOPOLOGY},
                                          {"select", required_argument, 0, OPT_SELECT},
                                          {"bytes", required_argument, 0, OPT_BYTES},
                                          {"top", required_argument, 0, OPT_TOP},
                                          {"ranks", required_argument, 0, OPT_RANKS},
                                          {"ppn", required_argument, 0, OPT_PPN},
                                          {"predict", required_argument, 0, OPT_PREDICT},
                                          {"peers", required_argument, 0, OPT_PEERS},
                                          {"max-block", required_argument, 0, OPT_MAX_BLOCK},
                                          {"pattern", required_argument, 0, OPT_PATTERN},
                                          {"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};
    int rank, what = 0, c, exit_code = 0;
    const char *select = NULL, *pattern = NULL;
    long long bytes = -1;
    int top = 10, ranks = 0, ppn = 0, peers = 0, npredict = 0;
    char *predict[64];
    for (int i = 1; i < argc; i++) /* before MPI_Init: no launcher needed */
        if (strcmp(argv[i], "--version") == 0) {
            printf("xchg-info (xchg) %d.%d.%d\n", XCHG_VERSION_MAJOR, XCHG_VERSION_MINOR,
                   XCHG_VERSION_PATCH);
            return 0;
        }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    opterr = rank == 0;
    while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        if (c == OPT_SELECT) select = optarg, what = c;
        else if (c == OPT_BYTES) bytes = atoll(optarg);
        else if (c == OPT_TOP) top = atoi(optarg);
        else if (c == OPT_RANKS) ranks = atoi(optarg);
        else if (c == OPT_PPN) ppn = atoi(optarg);
        else if (c == OPT_PEERS) peers = atoi(optarg);
        else if (c == OPT_MAX_BLOCK) max_block = atoll(optarg);
        else if (c == OPT_PATTERN) pattern = optarg;
        else if (c == OPT_PREDICT && npredict < 64) predict[npredict++] = optarg;
        else if (c == OPT_ALGOS || c == OPT_MARKDOWN || c == OPT_TOPOLOGY) what = c;
        else {
            if (rank == 0) usage(c == 'h' ? stdout : stderr);
            MPI_Finalize();
            return c == 'h' ? 0 : 2;
        }
    }
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    if (what == OPT_SELECT && (ranks || ppn)) {
        if (rank == 0) exit_code = explain_model(select, bytes, ranks, ppn, peers, pattern, top, predict,
                                               npredict);
    } else if (what == OPT_SELECT) {
        exit_code = explain_selection(comm, select, bytes, top);
    } else if (what == OPT_ALGOS || what == OPT_MARKDOWN) {
        if (rank == 0) what == OPT_ALGOS ? print_algorithms() : print_markdown();
    } else if (what == OPT_TOPOLOGY) {
        print_topology(comm);
    } else {
        if (rank == 0) {
            char lib[MPI_MAX_LIBRARY_VERSION_STRING];
            int len;
            MPI_Get_library_version(lib, &len);
            lib[strcspn(lib, ",\n")] = '\0';
            printf("xchg %d.%d.%d on %s\n\n", XCHG_VERSION_MAJOR, XCHG_VERSION_MINOR,
                   XCHG_VERSION_PATCH, lib);
            print_algorithms();
        }
        print_topology(comm);
        print_selections(comm);
    }
    MPI_Finalize();
    return exit_code;
}
