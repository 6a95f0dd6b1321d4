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

#include "core/context.h"
#include "core/registry.h"
#include "select/model.h"
#include "select/neighbor_inputs.h"
#include "select/select.h"
#include "select/tuning.h"
#include "xchg.h"

static const xchg_coll all_colls[] = {XCHG_ALLTOALLV, XCHG_ALLTOALL, XCHG_ALLGATHER,
                                      XCHG_ALLGATHERV, XCHG_NEIGHBOR_ALLTOALLV};
#define NUM_COLLS 5
static long long max_block = -1; /* --max-block: the largest block (alltoallv, allgatherv) */

static void describe_range(const xchg_param_desc *p, char *buf, size_t len)
{
    char one[2048];
    xchg_algorithm a = {.num_params = 1};
    a.params[0] = *p;
    xchg_algorithm_describe_params(&a, one, sizeof one);
    snprintf(buf, len, "%s", one);
}

static void print_algorithms(void)
{
    for (int c = 0; c < NUM_COLLS; c++) {
        xchg_coll coll = all_colls[c];
        char env[64];
        snprintf(env, sizeof env, "XCHG_%s", xchg_coll_name(coll));
        for (char *ch = env; *ch; ch++) *ch = (char)toupper((unsigned char)*ch);
        printf("%s (%d algorithms; select with %s=name[:param=value,...])\n",
               xchg_coll_name(coll), xchg_registry_count(coll), env);
        for (int i = 0; i < xchg_registry_count(coll); i++) {
            const xchg_algorithm *a = xchg_registry_get(coll, i);
            printf("  %-22s %s%s\n", a->name, a->summary, a->is_flat ? "" : " [hierarchical]");
            for (int k = 0; k < a->num_params; k++) {
                char range[2048];
                describe_range(&a->params[k], range, sizeof range);
                printf("  %-22s   %s%s%s\n", "", range, a->params[k].help ? ": " : "",
                       a->params[k].help ? a->params[k].help : "");
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
        xchg_coll coll = all_colls[c];
        for (int i = 0; i < xchg_registry_count(coll); i++) {
            const xchg_algorithm *a = xchg_registry_get(coll, i);
            char params[2048];
            xchg_algorithm_describe_params(a, params, sizeof params);
            printf("| %s | `%s` | ", xchg_coll_name(coll), a->name);
            print_cell(a->summary);
            printf(" | ");
            print_cell(a->num_params ? params : "-");
            printf(" | ");
            print_cell(a->reference ? a->reference : "-");
            printf(" |\n");
        }
    }
}

static void print_topology(MPI_Comm comm)
{
    xchg_context *ctx;
    int rank, len;
    char host[MPI_MAX_PROCESSOR_NAME] = "";
    MPI_Comm_rank(comm, &rank);
    MPI_Get_processor_name(host, &len);
    int size;
    MPI_Comm_size(comm, &size);
    char *hosts = rank == 0 ? calloc((size_t)size, MPI_MAX_PROCESSOR_NAME) : NULL;
    MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
               0, comm);
    if (xchg_context_get(comm, &ctx) != MPI_SUCCESS) {
        if (rank == 0) printf("topology: unavailable: %s\n", XCHG_Last_error());
        free(hosts);
        return;
    }
    const xchg_topology *t = &ctx->topo;
    if (rank == 0) {
        const char *vn = getenv("XCHG_VIRTUAL_NODES"), *vp = getenv("XCHG_VIRTUAL_PLACEMENT");
        printf("topology of MPI_COMM_WORLD: P=%d ranks on %d %s node(s), placement %s\n",
               t->size, t->num_nodes, t->is_virtual ? "virtual" : "real",
               t->is_block ? "block (each node holds consecutive ranks)" : "not block (e.g. cyclic)");
        if (t->is_virtual)
            printf("  from XCHG_VIRTUAL_NODES=%s XCHG_VIRTUAL_PLACEMENT=%s\n", vn ? vn : "",
                   vp && *vp ? vp : "block (default)");
        else
            printf("  from MPI_COMM_TYPE_SHARED (set XCHG_VIRTUAL_NODES=N or =a,b,c to test "
                   "other layouts)\n");
        for (int n = 0; n < t->num_nodes; n++) {
            int first = xchg_rank_on_node(t, n, 0);
            printf("  node %d (%d ranks%s%s):", n, t->node_size[n], t->is_virtual ? "" : ", ",
                   t->is_virtual ? "" : hosts + (size_t)first * MPI_MAX_PROCESSOR_NAME);
            for (int l = 0; l < t->node_size[n]; l++) {
                if (l == 16 && t->node_size[n] > 18) {
                    printf(" ... %d", xchg_rank_on_node(t, n, t->node_size[n] - 1));
                    break;
                }
                printf(" %d", xchg_rank_on_node(t, n, l));
            }
            printf("\n");
        }
    }
    free(hosts);
}

/* What each collective would use now, at a few block sizes. */
static void print_selections(MPI_Comm comm)
{
    static const long long sizes[] = {8, 64, 256, 1024, 16384, 1048576};
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) printf("\nselection now (per-comm choice > XCHG_<COLL> env > tuning file > cost model):\n");
    for (int c = 0; c < NUM_COLLS; c++) {
        const char *name = xchg_coll_name(all_colls[c]);
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            char buf[512];
            int any_size = all_colls[c] == XCHG_NEIGHBOR_ALLTOALLV; /* alltoallv: mean block */
            if (any_size && s > 0) break; /* size-independent */
            if (XCHG_Comm_get_algorithm(comm, name, 0, sizes[s], buf, sizeof buf) != MPI_SUCCESS)
                snprintf(buf, sizeof buf, "error: %s", XCHG_Last_error());
            if (rank != 0) continue;
            if (any_size) printf("  %-10s any size   %s\n", name, buf);
            else printf("  %-10s %8lld B  %s\n", name, sizes[s], buf);
        }
    }
}

static int print_ranking(const xchg_context *ctx, const xchg_select_input *in, int top);

/* --select: the choice, what made it, and the model's ranking. */
static int explain_selection(MPI_Comm comm, const char *collective, long long bytes, int top)
{
    char chosen[512];
    xchg_context *ctx;
    xchg_coll coll;
    xchg_choice choice;
    const char *source;
    const xchg_platform *tuned_constants = NULL;
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (xchg_context_get(comm, &ctx) != MPI_SUCCESS || xchg_coll_from_name(collective, &coll) ||
        xchg_select_explain(ctx, coll, bytes, &choice, &source) != MPI_SUCCESS) {
        if (rank == 0) fprintf(stderr, "xchg-info: %s\n", XCHG_Last_error());
        return 1;
    }
    if (rank != 0) return 0;
    xchg_choice_format(&choice, chosen, sizeof chosen);
    xchg_tuning_platform(&tuned_constants); /* its errors were the selection's */
    xchg_select_input in = xchg_select_input_of(ctx, coll, xchg_select_size_bucket(bytes));
    printf("%s\n", chosen);
    printf("# %s, P=%d on %d node(s) of %d..%d ranks, %lld B per block (the model sees %lld): "
           "decided by %s%s\n", collective, in.comm_size, in.num_nodes, in.min_node_size,
           in.max_node_size, bytes, (long long)in.bytes, source,
           strcmp(source, "the cost model") ? ""
           : tuned_constants ? ", the tuning file's platform constants"
                             : ", built-in platform constants");
    return print_ranking(ctx, &in, top);
}

/* The model's `top` cheapest candidates for `in` (ctx: where they must run). */
static int print_ranking(const xchg_context *ctx, const xchg_select_input *in, int top)
{
    if (in->bytes < 0 || top <= 0) return 0;
    int count = 0;
    const xchg_platform *plat;
    if (xchg_select_platform(&plat) != MPI_SUCCESS) {
        fprintf(stderr, "xchg-info: %s\n", XCHG_Last_error());
        return 1;
    }
    xchg_model_rank(ctx, in, plat, NULL, 0, &count);
    xchg_candidate *all = malloc((size_t)count * sizeof *all);
    if (!all) return 1;
    xchg_model_rank(ctx, in, plat, all, count, &count);
    printf("# the cost model's %d cheapest of %d candidates (us):\n", top < count ? top : count,
           count);
    printf("# %4s %10s %9s %9s %9s %9s  %s\n", "rank", "predicted", "latency", "overhead",
           "bandwidth", "copy", "candidate");
    for (int i = 0; i < count && i < top; i++) {
        char name[512];
        xchg_choice_format(&all[i].choice, name, sizeof name);
        const xchg_cost_terms *t = &all[i].terms;
        printf("# %4d %10.2f %9.2f %9.2f %9.2f %9.2f  %s\n", i + 1, all[i].seconds * 1e6,
               t->latency * 1e6, t->overhead * 1e6, t->bandwidth * 1e6, t->copy * 1e6, name);
    }
    free(all);
    return 0;
}

/* --select with --ranks P --ppn Q: the choice for a machine of ceil(P/Q)
 * nodes of Q ranks (the last one may be smaller) that need not be this one:
 * a rule of the tuning file (XCHG_TUNING_FILE) when one matches, else the
 * model; no communicator, so no per-communicator choice or environment. */
static int explain_model(const char *collective, long long bytes, int ranks, int ppn, int peers,
                         const char *pattern, int top, char **predict, int npredict)
{
    xchg_coll coll;
    long long nbr[5];
    int is_nbr = collective && strcmp(collective, "neighbor_alltoallv") == 0;
    if (is_nbr && (!pattern || sscanf(pattern, "%lld,%lld,%lld,%lld,%lld", &nbr[0], &nbr[1],
                                      &nbr[2], &nbr[3], &nbr[4]) != 5)) {
        fprintf(stderr, "xchg-info: neighbor_alltoallv needs --pattern RM,LM,RB,LB,D\n");
        return 2;
    }
    if (is_nbr) bytes = 0; /* from the pattern, below */
    if (ranks < 1 || ppn < 1 || bytes < 0 || xchg_coll_from_name(collective, &coll)) {
        fprintf(stderr, "xchg-info: --ranks, --ppn and --bytes must be positive, --select "
                        "a collective\n");
        return 2;
    }
    xchg_context model_ctx = {.size = ranks}; /* what applicability looks at */
    xchg_select_input in = {.coll = coll, .comm_size = ranks,
                            .num_nodes = (ranks + ppn - 1) / ppn,
                            .min_node_size = ranks % ppn ? ranks % ppn : ppn,
                            .max_node_size = ranks < ppn ? ranks : ppn,
                            .bytes = xchg_select_size_bucket(bytes),
                            .max_block_bytes = xchg_select_size_bucket(
                                max_block > bytes ? max_block : bytes),
                            .max_peers = peers > 0 && peers < ranks ? peers : ranks - 1};
    if (is_nbr) {
        in.nbr = (xchg_neighbor_input){nbr[0], nbr[1], nbr[2], nbr[3], nbr[4]};
        xchg_neighbor_input_summarize(&in);
        bytes = in.bytes;
    }
    xchg_choice best;
    const xchg_platform *plat;
    if (xchg_select_platform(&plat) != MPI_SUCCESS ||
        xchg_model_choose(&model_ctx, &in, plat, &best) != MPI_SUCCESS) {
        fprintf(stderr, "xchg-info: %s\n", XCHG_Last_error());
        return 1;
    }
    char name[512];
    xchg_choice_format(&best, name, sizeof name);
    const char *rule = NULL;
    if (xchg_tuning_lookup(&in, &rule) != MPI_SUCCESS) {
        fprintf(stderr, "xchg-info: %s\n", XCHG_Last_error());
        return 1;
    }
    printf("%s\n# %s, P=%d on %d node(s) of %d ranks, %lld B per block (the model sees %lld): "
           "%s\n", rule ? rule : name, collective, ranks, in.num_nodes, in.max_node_size, bytes,
           (long long)in.bytes, rule ? "decided by a rule of the tuning file" : "the cost model");
    for (int i = 0; i < npredict; i++) { /* --predict SEL: one line "predict SEL us" */
        xchg_choice choice;
        if (xchg_choice_parse(coll, predict[i], &choice) != MPI_SUCCESS ||
            xchg_choice_fit(&model_ctx, &choice) != MPI_SUCCESS) {
            printf("predict %s error %s\n", predict[i], XCHG_Last_error());
            continue;
        }
        xchg_cost_case c = xchg_cost_case_of(&in);
        printf("predict %s %s\n", predict[i],
               choice.algo->cost ? (snprintf(name, sizeof name, "%.3f",
                                             choice.algo->cost(&c, &choice, plat) * 1e6),
                                    name)
                                 : "unmodelled");
    }
    return print_ranking(&model_ctx, &in, top);
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
