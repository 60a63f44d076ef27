/* coll: latency per call of the blocking collectives on MPI_COMM_WORLD.
 *
 * Collectives: barrier bcast reduce allreduce allgather gather scatter
 * reduce_scatter_block alltoall (select with --only a,b,...).
 * Default sizes 8 B, 1 KiB, 64 KiB, 1 MiB, 8 MiB; --sizes overrides;
 * --quick uses 8 B and 1 KiB with few iterations.
 *
 * "size" is the number of bytes per rank block:
 *   bcast                 the message
 *   reduce, allreduce     the vector (MPI_INT, MPI_SUM; size/4 elements)
 *   gather, allgather     each rank's contribution
 *   scatter               each rank's piece
 *   reduce_scatter_block  each rank's result block (input is np blocks)
 *   alltoall              the block sent to each peer
 * Root is rank 0. Output (rank 0):
 *   metric=<coll>_latency_us size=S value=<mean over ranks of time per call>
 *          max=<slowest rank> np=N iters=I
 *
 * --alloc-mem: both buffers from MPI_Alloc_mem; metrics <coll>_alloc_mem_latency_us.
 *
 * Correctness: before timing each cell, one call on patterned data is checked
 * element by element on every rank; a mismatch aborts with "bench: FAILED".
 */
#include "bench_common.h"

enum coll_id {
    C_BARRIER, C_BCAST, C_REDUCE, C_ALLREDUCE, C_ALLGATHER, C_GATHER, C_SCATTER, C_REDSCAT, C_ALLTOALL, C_COUNT
};
static const char *coll_name[C_COUNT] = {"barrier", "bcast",   "reduce",  "allreduce",           "allgather",
                                         "gather",  "scatter", "reduce_scatter_block", "alltoall"};
static const int coll_is_reduction[C_COUNT] = {0, 0, 1, 1, 0, 0, 0, 1, 0};

static int g_rank, g_np;
static unsigned char *g_s, *g_r;

/* Run collective `c` once with per-rank block `size` bytes. */
static void run_coll(int c, long size)
{
    int n = (int)size;
    int cnt = (int)(size / 4);
    switch (c) {
    case C_BARRIER: MPI_Barrier(MPI_COMM_WORLD); break;
    case C_BCAST: MPI_Bcast(g_s, n, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case C_REDUCE: MPI_Reduce(g_s, g_r, cnt, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD); break;
    case C_ALLREDUCE: MPI_Allreduce(g_s, g_r, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD); break;
    case C_ALLGATHER: MPI_Allgather(g_s, n, MPI_BYTE, g_r, n, MPI_BYTE, MPI_COMM_WORLD); break;
    case C_GATHER: MPI_Gather(g_s, n, MPI_BYTE, g_r, n, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case C_SCATTER: MPI_Scatter(g_s, n, MPI_BYTE, g_r, n, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case C_REDSCAT: MPI_Reduce_scatter_block(g_s, g_r, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD); break;
    case C_ALLTOALL: MPI_Alltoall(g_s, n, MPI_BYTE, g_r, n, MPI_BYTE, MPI_COMM_WORLD); break;
    }
}

static void fail_at(int c, long size, long idx, long got, long want)
{
    char msg[200];
    snprintf(msg, sizeof msg, "%s size %ld: rank %d element %ld is %ld, expected %ld", coll_name[c], size, g_rank,
             idx, got, want);
    bench_die(msg);
}

static int int_in(long j, int r) { return (int)(j % 1000) + r; }
static int int_sum(long j) { return g_np * (int)(j % 1000) + g_np * (g_np - 1) / 2; }

/* Fill inputs with a pattern, run once, check every output element. */
static void validate(int c, long size)
{
    long i, b, cnt = size / 4;
    int *si = (int *)g_s, *ri = (int *)g_r;
    memset(g_r, 0, (size_t)(size * g_np));
    switch (c) {
    case C_BARRIER: run_coll(c, size); return;
    case C_BCAST:
        for (i = 0; i < size; i++) g_s[i] = g_rank == 0 ? bench_pat(i, 0) : 0;
        run_coll(c, size);
        for (i = 0; i < size; i++)
            if (g_s[i] != bench_pat(i, 0)) fail_at(c, size, i, g_s[i], bench_pat(i, 0));
        return;
    case C_REDUCE:
    case C_ALLREDUCE:
        for (i = 0; i < cnt; i++) si[i] = int_in(i, g_rank);
        run_coll(c, size);
        if (c == C_ALLREDUCE || g_rank == 0)
            for (i = 0; i < cnt; i++)
                if (ri[i] != int_sum(i)) fail_at(c, size, i, ri[i], int_sum(i));
        return;
    case C_REDSCAT:
        for (i = 0; i < cnt * g_np; i++) si[i] = int_in(i, g_rank);
        run_coll(c, size);
        for (i = 0; i < cnt; i++) {
            long j = (long)g_rank * cnt + i;
            if (ri[i] != int_sum(j)) fail_at(c, size, i, ri[i], int_sum(j));
        }
        return;
    case C_ALLGATHER:
    case C_GATHER:
        for (i = 0; i < size; i++) g_s[i] = bench_pat(i, g_rank);
        run_coll(c, size);
        if (c == C_ALLGATHER || g_rank == 0)
            for (b = 0; b < g_np; b++)
                for (i = 0; i < size; i++)
                    if (g_r[b * size + i] != bench_pat(i, (int)b))
                        fail_at(c, size, b * size + i, g_r[b * size + i], bench_pat(i, (int)b));
        return;
    case C_SCATTER:
        for (b = 0; b < g_np; b++)
            for (i = 0; i < size; i++) g_s[b * size + i] = g_rank == 0 ? bench_pat(i, (int)b) : 0;
        run_coll(c, size);
        for (i = 0; i < size; i++)
            if (g_r[i] != bench_pat(i, g_rank)) fail_at(c, size, i, g_r[i], bench_pat(i, g_rank));
        return;
    case C_ALLTOALL:
        for (b = 0; b < g_np; b++)
            for (i = 0; i < size; i++) g_s[b * size + i] = bench_pat(i, g_rank * g_np + (int)b);
        run_coll(c, size);
        for (b = 0; b < g_np; b++)
            for (i = 0; i < size; i++) {
                unsigned char want = bench_pat(i, (int)b * g_np + g_rank);
                if (g_r[b * size + i] != want) fail_at(c, size, b * size + i, g_r[b * size + i], want);
            }
        return;
    }
}

static double timed(int c, long size, long iters)
{
    long i;
    double t0;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (i = 0; i < iters; i++) run_coll(c, size);
    return MPI_Wtime() - t0;
}

int main(int argc, char **argv)
{
    static const long def_sizes[] = {8, 1024, 65536, 1048576, 8388608};
    static const long quick_sizes[] = {8, 1024};
    bench_opts o;
    long sizes[64], maxsize = 0;
    int nsz = 0, c, j;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_np);
    bench_probe_init();
    bench_parse_args(argc, argv, &o,
                     "collectives: barrier,bcast,reduce,allreduce,allgather,gather,scatter,"
                     "reduce_scatter_block,alltoall");
    if (o.nsizes > 0) {
        for (j = 0; j < o.nsizes; j++) sizes[nsz++] = o.sizes[j];
    } else if (o.quick) {
        for (j = 0; j < 2; j++) sizes[nsz++] = quick_sizes[j];
    } else {
        for (j = 0; j < 5; j++)
            if ((o.max_size <= 0 || def_sizes[j] <= o.max_size) && def_sizes[j] >= o.min_size)
                sizes[nsz++] = def_sizes[j];
    }
    for (j = 0; j < nsz; j++)
        if (sizes[j] > maxsize) maxsize = sizes[j];
    g_s = (unsigned char *)bench_buffer(&o, (size_t)(maxsize * g_np));
    g_r = (unsigned char *)bench_buffer(&o, (size_t)(maxsize * g_np));

    for (c = 0; c < C_COUNT; c++) {
        if (!bench_selected(&o, coll_name[c])) continue;
        for (j = 0; j < nsz; j++) {
            long size = c == C_BARRIER ? 0 : sizes[j], iters, calib;
            double t, sum, mx, probe_before, probe_after;
            if (coll_is_reduction[c] && size < 4) continue;
            validate(c, size);
            /* Warm-up of 2 calls is the first estimate; refine with `calib`
             * more only when that is cheap. Calibrate on the slowest rank:
             * a bcast root alone finishes early. */
            calib = size <= 65536 ? 10 : 2;
            t = timed(c, size, 2);
            MPI_Allreduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            mx /= 2.0;
            /* OSU-style warm-up (up to 1000 calls, bounded to ~10 ms): first-use costs stay out of the
             * first size measured. */
            {
                long warm = mx > 0 ? (long)(0.01 / mx) : 1000;
                if (warm > 1000) warm = 1000;
                if (warm > 2) {
                    t = timed(c, size, warm);
                    MPI_Allreduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                    mx /= (double)warm;
                }
            }
            if (calib > 2 && mx * (double)calib < 0.25e-3 * o.target_ms) {
                t = timed(c, size, calib);
                MPI_Allreduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                mx /= (double)calib;
            }
            iters = bench_iters_for(&o, mx);
            probe_before = bench_probe();
            t = timed(c, size, iters) / (double)iters;
            probe_after = bench_probe();
            MPI_Reduce(&t, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
            MPI_Reduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            if (g_rank == 0)
                printf("metric=%s%s_latency_us size=%ld value=%.3f max=%.3f np=%d iters=%ld%s\n", coll_name[c],
                       o.alloc_mem ? "_alloc_mem" : "", size,
                       sum / g_np * 1e6, mx * 1e6, g_np, iters, bench_probe_text(probe_before, probe_after));
            fflush(stdout);
            if (c == C_BARRIER) break;
        }
    }
    bench_buffer_free(&o, g_s);
    bench_buffer_free(&o, g_r);
    MPI_Finalize();
    return 0;
}
