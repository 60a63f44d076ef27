/* Shared helpers for the fabmpi benchmark programs.
 *
 * Portable C99 + standard MPI only, so every program builds with any mpicc
 * (fabmpi, MPICH, Open MPI). Output is one machine-readable line per
 * measurement:
 *
 *   metric=<name> size=<bytes> value=<number> [key=value ...]
 *
 * Iteration counts are chosen from a short timed calibration so that every
 * cell takes about `target_ms`, whatever the MPI's speed: a slow or
 * oversubscribed MPI makes fewer iterations instead of making the run long.
 */
#ifndef FABMPI_BENCH_COMMON_H
#define FABMPI_BENCH_COMMON_H

/* The programs build with -std=c99: ask for POSIX (shm_open, mmap, sysconf) explicitly. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <mpi.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct {
    int quick;          /* tiny sizes, few iterations: CI smoke */
    double target_ms;   /* time budget per measured cell */
    long min_iters;
    long max_iters;
    long max_size;      /* upper size bound (bytes), 0 = program default */
    long min_size;      /* lower size bound (bytes), -1 = program default */
    const char *only;   /* comma list of tests to run, NULL = all */
    long sizes[64];     /* explicit size list (overrides min/max) */
    int nsizes;
    int alloc_mem;      /* --alloc-mem: message buffers from MPI_Alloc_mem (programs that support it) */
    long shift;         /* --shift B: odd ranks' buffers start B bytes into a page, even ranks' at one (osu_style) */
} bench_opts;

static inline void bench_die(const char *what)
{
    fprintf(stderr, "bench: FAILED: %s\n", what);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static inline long bench_parse_size(const char *s)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (end && (*end == 'k' || *end == 'K')) v *= 1024.0;
    else if (end && (*end == 'm' || *end == 'M')) v *= 1024.0 * 1024.0;
    else if (end && (*end == 'g' || *end == 'G')) v *= 1024.0 * 1024.0 * 1024.0;
    return (long)v;
}

static inline void bench_usage(const char *prog, const char *extra)
{
    fprintf(stderr,
            "usage: %s [--quick] [--target-ms MS] [--min-iters N] [--max-iters N]\n"
            "          [--min-size B] [--max-size B] [--sizes B,B,...] [--only a,b,...] [--alloc-mem]\n"
            "          [--shift B]\n"
            "sizes accept k/m suffixes (KiB/MiB). %s\n",
            prog, extra ? extra : "");
}

static inline void bench_parse_args(int argc, char **argv, bench_opts *o, const char *extra)
{
    int i;
    memset(o, 0, sizeof *o);
    o->target_ms = 60.0;
    o->min_iters = 3;
    o->max_iters = 20000;
    o->min_size = -1;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quick")) {
            o->quick = 1;
        } else if (!strcmp(a, "--alloc-mem")) {
            o->alloc_mem = 1;
        } else if (!strcmp(a, "--shift") && v) {
            o->shift = atol(v) & 4095;
            i++;
        } else if (!strcmp(a, "--target-ms") && v) {
            o->target_ms = atof(v); i++;
        } else if (!strcmp(a, "--min-iters") && v) {
            o->min_iters = atol(v); i++;
        } else if (!strcmp(a, "--max-iters") && v) {
            o->max_iters = atol(v); i++;
        } else if (!strcmp(a, "--max-size") && v) {
            o->max_size = bench_parse_size(v); i++;
        } else if (!strcmp(a, "--min-size") && v) {
            o->min_size = bench_parse_size(v); i++;
        } else if (!strcmp(a, "--only") && v) {
            o->only = v; i++;
        } else if (!strcmp(a, "--sizes") && v) {
            char *copy = (char *)malloc(strlen(v) + 1), *tok, *save = copy;
            strcpy(copy, v);
            for (tok = strtok(copy, ","); tok && o->nsizes < 64; tok = strtok(NULL, ","))
                o->sizes[o->nsizes++] = bench_parse_size(tok);
            free(save);
            i++;
        } else {
            int rank;
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
            if (rank == 0) bench_usage(argv[0], extra);
            MPI_Finalize();
            exit(strcmp(a, "--help") && strcmp(a, "-h") ? 1 : 0);
        }
    }
    if (o->quick) {
        o->target_ms = 5.0;
        o->min_iters = 2;
        if (o->max_iters > 50) o->max_iters = 50;
    }
}

/* Is `name` selected by the --only list? */
static inline int bench_selected(const bench_opts *o, const char *name)
{
    const char *p;
    size_t n = strlen(name);
    if (!o->only) return 1;
    for (p = o->only; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n)) return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

/* Build the list of sizes: explicit --sizes, else powers of two in [lo, hi]
 * (0 included when lo == 0). Returns the count. */
static inline int bench_size_list(const bench_opts *o, long lo, long hi, long *out, int cap)
{
    int n = 0;
    long s;
    if (o->nsizes > 0) {
        for (n = 0; n < o->nsizes && n < cap; n++) out[n] = o->sizes[n];
        return n;
    }
    if (o->min_size >= 0) lo = o->min_size;
    if (o->max_size > 0) hi = o->max_size;
    if (lo == 0) {
        out[n++] = 0;
        lo = 1;
    }
    for (s = lo; s <= hi && n < cap; s *= 2) out[n++] = s;
    return n;
}

/* Iterations for a cell, given the measured seconds per iteration. */
static inline long bench_iters_for(const bench_opts *o, double sec_per_iter)
{
    double want;
    long it;
    if (sec_per_iter <= 0.0) sec_per_iter = 1e-7;
    want = (o->target_ms * 1e-3) / sec_per_iter;
    it = (want > (double)o->max_iters) ? o->max_iters : (long)want;
    if (it < o->min_iters) it = o->min_iters;
    return it;
}

/* Deterministic byte pattern: depends on position, a seed and the size. */
static inline unsigned char bench_pat(long i, int seed)
{
    return (unsigned char)((i * 131 + seed * 7 + 1) & 0xff);
}

static inline void *bench_alloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) bench_die("malloc");
    memset(p, 0, n ? n : 1);
    return p;
}

/* A message buffer of n zeroed bytes: from MPI_Alloc_mem with --alloc-mem, else malloc. */
static inline void *bench_buffer(const bench_opts *o, size_t n)
{
    void *p = NULL;
    if (!o->alloc_mem) return bench_alloc(n);
    if (MPI_Alloc_mem((MPI_Aint)(n ? n : 1), MPI_INFO_NULL, &p) != MPI_SUCCESS) bench_die("MPI_Alloc_mem");
    memset(p, 0, n ? n : 1);
    return p;
}

static inline void bench_buffer_free(const bench_opts *o, void *p)
{
    if (o->alloc_mem) MPI_Free_mem(p);
    else free(p);
}

/* Machine-state probe. On the development VM the two vCPUs sit, from one
 * moment to the next, on one physical core, on two cores sharing a cache,
 * or farther apart: a cache line travels between ranks 0 and 1 in ~25,
 * ~55 or 140-260 ns, and every small-message figure of every MPI moves with
 * it (changing every ~20 s). Before and after each measured cell, ranks 0
 * and 1 bounce a line in a POSIX shared-memory object, outside MPI, and the
 * metric line carries the half round trip (probe_ns=, probe_after_ns=), so
 * compare.py can set figures measured in the same state side by side.
 * Off (no output) when the ranks outnumber the cores (a spinning pair would
 * measure the scheduler) or ranks 0 and 1 do not share a node. */
typedef struct {
    volatile long ping __attribute__((aligned(64)));
    volatile long pong __attribute__((aligned(64)));
} bench_probe_lines;

static bench_probe_lines *bench_probe_mem;
static long bench_probe_seq;

static inline void bench_probe_init(void)
{
    int rank, size, ok = 1, all_ok = 0;
    char name[64];
    bench_probe_lines *mem = NULL;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || size > sysconf(_SC_NPROCESSORS_ONLN)) return;
    memset(name, 0, sizeof name);
    if (rank == 0) snprintf(name, sizeof name, "/bench-probe-%ld", (long)getpid());
    MPI_Bcast(name, (int)sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        ok = fd >= 0 && ftruncate(fd, (off_t)sizeof *mem) == 0;
        if (ok) {
            void *p = mmap(NULL, sizeof *mem, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            ok = p != MAP_FAILED;
            if (ok) mem = (bench_probe_lines *)p;
        }
        if (fd >= 0) close(fd);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        int fd = shm_open(name, O_RDWR, 0600);
        ok = fd >= 0;
        if (ok) {
            void *p = mmap(NULL, sizeof *mem, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            ok = p != MAP_FAILED;
            if (ok) mem = (bench_probe_lines *)p;
            close(fd);
        }
    }
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0 && mem) shm_unlink(name);
    if (all_ok) {
        bench_probe_mem = mem;
    } else if (mem) {
        munmap(mem, sizeof *mem);
    }
}

/* Collective over MPI_COMM_WORLD; rank 0 gets the half round trip in ns
 * (median of 5 rounds of 200 bounces), -1 when the probe is off. */
static inline double bench_probe(void)
{
    int rank, round, i;
    double best[5];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!bench_probe_mem) return -1.0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (round = 0; round < 5; round++) {
        double t0 = MPI_Wtime();
        for (i = 0; i < 200; i++) {
            long v = ++bench_probe_seq;
            if (rank == 0) {
                __atomic_store_n(&bench_probe_mem->ping, v, __ATOMIC_RELEASE);
                while (__atomic_load_n(&bench_probe_mem->pong, __ATOMIC_ACQUIRE) != v) {}
            } else if (rank == 1) {
                while (__atomic_load_n(&bench_probe_mem->ping, __ATOMIC_ACQUIRE) != v) {}
                __atomic_store_n(&bench_probe_mem->pong, v, __ATOMIC_RELEASE);
            }
        }
        best[round] = (MPI_Wtime() - t0) * 1e9 / 400.0;
    }
    {   /* median of 5 */
        int a, b;
        for (a = 0; a < 5; a++)
            for (b = a + 1; b < 5; b++)
                if (best[b] < best[a]) { double x = best[a]; best[a] = best[b]; best[b] = x; }
    }
    return best[2];
}

/* " probe_ns=B probe_after_ns=A" for a metric line, or "" when the probe is off. */
static inline const char *bench_probe_text(double before, double after)
{
    static char text[96];
    text[0] = 0;
    if (before >= 0 && after >= 0) snprintf(text, sizeof text, " probe_ns=%.0f probe_after_ns=%.0f", before, after);
    return text;
}

#endif
