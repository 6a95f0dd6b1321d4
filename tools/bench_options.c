/* xchg-bench's command line (xchg_bench.c says what the options do). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static void usage(FILE *out)
{
    fprintf(out,
        "usage: mpirun -n P xchg-bench [options]\n"
        "  -c, --coll C         alltoallv (default), alltoall, allgather, allgatherv,\n"
        "                       alltoallw (the alltoallv blocks, each a strided vector\n"
        "                       datatype per peer)\n"
        "  -m, --message-size [MIN:]MAX\n"
        "                       sizes S in bytes, powers of two from MIN to MAX (16:16384);\n"
        "                       alltoall/allgather: block per peer; alltoallv: maximum block;\n"
        "                       allgatherv: largest contribution (rank p's from --dist)\n"
        "  -i, --iterations N   timed iterations per size and algorithm (500)\n"
        "  -x, --warmup N       untimed warm-up calls of each row before its first timed\n"
        "                       one (300: they cover auto's exploration, up to about 250\n"
        "                       calls of a short call); each later round re-warms N/rounds\n"
        "  -r, --rounds N       interleave: time MPI and every algorithm in N rounds of\n"
        "                       ITER/N iterations each (10), so load changes hit all alike\n"
        "  -f, --full           also print min and max columns\n"
        "  -a, --algo SPEC      repeatable; default all (auto first). SPEC: all | auto | name[:p=v,...] |\n"
        "                       name:p=all | name:p=A..B (B may be P) | name:p=A,B,C\n"
        "                       (p=all: every valid value; unbounded integers: min..P)\n"
        "  -d, --dist D         alltoallv/allgatherv block sizes: uniform (default), normal, powerlaw,\n"
        "                       sparse, fft1, fft2 (fixed sizes, -m ignored)\n"
        "      --seed N         seed of the block sizes (1)\n"
        "      --csv FILE|-     write every row as CSV\n"
        "      --json FILE|-    write every row as JSON\n"
        "      --progress       progress line on stderr (default: when stderr is a tty)\n"
        "  -b, --breakdown      per-phase medians (gather, inter-node, intra-node, scatter,\n"
        "                       repack) of algorithms that report phases\n"
        "      --persistent N   also per round one persistent request (XCHG_*_init with\n"
        "                       info xchg_algorithm, N starts): init, median start, and\n"
        "                       per-call time (init + N starts) / N next to the blocking median\n"
        "      --first-call     also per round a fresh communicator (MPI_Comm_dup): context\n"
        "                       creation, first call (builds the plan) and second call\n"
        "      --skew MIF       arrival skew: each rank waits up to MIF x T(S) after the\n"
        "                       barrier (T(S): one S-byte message, ping-pong); reports the\n"
        "                       completion time (mean over ranks of exit - own arrival)\n"
        "                       and span_us (last exit - first arrival)\n"
        "      --overlap C[,C]  nonblocking overlap (bench_overlap.c): per row the exchange\n"
        "                       alone, and start + compute C + wait; C in us, or Fx = F\n"
        "                       times MPI's own nonblocking exchange; reports the hidden\n"
        "                       fraction (comm + compute - total) / comm\n"
        "      --test-every US  --overlap: test the request every US us of compute\n"
        "      --overlap-persistent  --overlap with XCHG_*_init + XCHG_Start\n"
        "      --skew-dist D    uniform (default): U[0, MIF x T) per rank; one-late: one\n"
        "                       seeded rank per iteration MIF x T late, the others on time\n"
        "  -h, --help\n"
        "ratio = median time / median time of MPI's own collective; < 1 means xchg is faster.\n");
}

static int parse_sizes(const char *text, bench_options *o)
{
    char *end;
    const char *colon = strchr(text, ':');
    if (colon) {
        o->min_size = strtoll(text, &end, 10);
        if (end != colon) return 1;
        text = colon + 1;
    }
    o->max_size = strtoll(text, &end, 10);
    return *end != '\0' || o->min_size < 1 || o->max_size < o->min_size;
}

/* --overlap C[,C...]: each C microseconds, or Fx (F times MPI's exchange). */
static int parse_overlap(const char *text, bench_options *o)
{
    o->overlap_levels = 0;
    for (const char *p = text; *p;) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || !(v > 0) || o->overlap_levels == BENCH_MAX_OVERLAP) return 1;
        int l = o->overlap_levels++;
        o->overlap_us[l] = *end == 'x' ? 0 : v;
        o->overlap_factor[l] = *end == 'x' ? v : 0;
        p = end + (*end == 'x');
        if (*p != ',' && *p != '\0') return 1;
        p += *p == ',';
    }
    return o->overlap_levels == 0;
}

/* 0: run, 1: exit successfully (help), 2: usage error. */
int bench_parse_options(int argc, char **argv, bench_options *o, int rank)
{
    enum { OPT_SEED = 256, OPT_CSV, OPT_JSON, OPT_PROGRESS, OPT_PERSISTENT, OPT_FIRST_CALL,
           OPT_SKEW, OPT_SKEW_DIST, OPT_OVERLAP, OPT_TEST_EVERY, OPT_OVERLAP_PERSISTENT };
    static const struct option longs[] = {
        {"coll", required_argument, 0, 'c'},       {"message-size", required_argument, 0, 'm'},
        {"iterations", required_argument, 0, 'i'}, {"warmup", required_argument, 0, 'x'},
        {"full", no_argument, 0, 'f'},             {"algo", required_argument, 0, 'a'},
        {"rounds", required_argument, 0, 'r'},
        {"dist", required_argument, 0, 'd'},       {"seed", required_argument, 0, OPT_SEED},
        {"csv", required_argument, 0, OPT_CSV},    {"json", required_argument, 0, OPT_JSON},
        {"progress", no_argument, 0, OPT_PROGRESS}, {"help", no_argument, 0, 'h'},
        {"breakdown", no_argument, 0, 'b'},
        {"persistent", required_argument, 0, OPT_PERSISTENT},
        {"first-call", no_argument, 0, OPT_FIRST_CALL},
        {"skew", required_argument, 0, OPT_SKEW},
        {"skew-dist", required_argument, 0, OPT_SKEW_DIST},
        {"overlap", required_argument, 0, OPT_OVERLAP},
        {"test-every", required_argument, 0, OPT_TEST_EVERY},
        {"overlap-persistent", no_argument, 0, OPT_OVERLAP_PERSISTENT},
        {0, 0, 0, 0}};
    *o = (bench_options){.coll = BENCH_ALLTOALLV, .coll_name = "alltoallv", .min_size = 16,
                         .max_size = 16384, .iterations = 500, .warmup = 300, .rounds = 10, .dist = DIST_UNIFORM,
                         .seed = 1};
    opterr = rank == 0;
    int c, bad = 0;
    while ((c = getopt_long(argc, argv, "c:m:i:x:r:fa:d:hb", longs, NULL)) != -1 && !bad) {
        switch (c) {
        case 'c':
            /* neighbor_alltoallv needs a graph: xchg-neighbor-bench times it */
            bad = 1;
            for (int k = 0; k < BENCH_NUM_COLLS; k++)
                if (strcmp(optarg, bench_coll_names[k]) == 0) o->coll = (bench_coll)k, bad = 0;
            o->coll_name = optarg;
            break;
        case 'm': bad = parse_sizes(optarg, o); break;
        case 'i': o->iterations = atoi(optarg); bad = o->iterations < 1; break;
        case 'x': o->warmup = atoi(optarg); bad = o->warmup < 0; break;
        case 'r': o->rounds = atoi(optarg); bad = o->rounds < 1; break;
        case 'f': o->full = 1; break;
        case 'b': o->breakdown = 1; break;
        case 'a':
            bad = o->num_algo_specs >= 64;
            if (!bad) o->algo_specs[o->num_algo_specs++] = optarg;
            break;
        case 'd':
            bad = 1;
            for (int d = 0; d < DIST_COUNT; d++)
                if (strcmp(optarg, bench_dist_names[d]) == 0) o->dist = (bench_dist)d, bad = 0;
            break;
        case OPT_SEED: o->seed = strtoull(optarg, NULL, 10); break;
        case OPT_CSV: o->csv_path = optarg; break;
        case OPT_JSON: o->json_path = optarg; break;
        case OPT_PROGRESS: o->progress = 1; break;
        case OPT_PERSISTENT: o->persistent = atoi(optarg); bad = o->persistent < 1; break;
        case OPT_FIRST_CALL: o->first_call = 1; break;
        case OPT_SKEW: o->skew_mif = atof(optarg); bad = !(o->skew_mif > 0); break;
        case OPT_SKEW_DIST:
            bad = strcmp(optarg, "uniform") != 0 && strcmp(optarg, "one-late") != 0;
            o->skew_dist = strcmp(optarg, "one-late") == 0 ? SKEW_ONE_LATE : SKEW_UNIFORM;
            break;
        case OPT_OVERLAP: bad = parse_overlap(optarg, o); break;
        case OPT_TEST_EVERY: o->test_every_us = atof(optarg); bad = !(o->test_every_us > 0); break;
        case OPT_OVERLAP_PERSISTENT: o->overlap_persistent = 1; break;
        case 'h':
            if (rank == 0) usage(stdout);
            return 1;
        default: bad = 1;
        }
        if (bad && rank == 0 && c != '?')
            fprintf(stderr, "xchg-bench: bad value for -%c: %s\n", c < 256 ? c : '-', optarg);
    }
    if (!bad && optind < argc) {
        if (rank == 0) fprintf(stderr, "xchg-bench: unexpected argument '%s'\n", argv[optind]);
        bad = 1;
    }
    if (bad && rank == 0) usage(stderr);
    return bad ? 2 : 0;
}
