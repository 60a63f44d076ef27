/* osu_style: point-to-point latency and bandwidth, in the manner of the OSU
 * micro-benchmarks (osu_latency, osu_bw, osu_bibw).
 *
 * Ranks are paired (0,1), (2,3), ...; every pair runs at the same time. With
 * np=2 that is the classic single-pair benchmark; with more pairs each figure
 * is the slowest pair's (the time until every pair has done its iterations),
 * which shows the cost of sharing the cores without rewarding an MPI that
 * runs one pair while starving another. An odd last rank idles.
 *
 *   pingpong_latency_us  one-way latency = round trip / 2, 0 B .. 4 MiB
 *   bw_MBps              one direction, window of 64 MPI_Isend/MPI_Irecv,
 *                        then a 4-byte ack; 4 KiB .. 16 MiB; MB = 1e6 bytes
 *   bibw_MBps            both directions at once (window each way),
 *                        bytes moved in both directions / time
 *
 * Correctness: before each size one untimed exchange of a full byte pattern
 * in both directions is checked byte by byte; during the timed loops every
 * message carries a per-iteration stamp in its first and last byte, checked
 * by the receiver. Any mismatch aborts with "bench: FAILED".
 *
 * As in OSU, all receives of one window land in the same buffer.
 *
 * --alloc-mem: the send and receive buffers come from MPI_Alloc_mem instead of malloc (memory an MPI may
 * make special for message passing, MPI-3.1 section 8.2); the metrics are then named
 * pingpong_latency_alloc_mem_us, bw_alloc_mem_MBps and bibw_alloc_mem_MBps.
 */
#include "bench_common.h"

#define WINDOW 64
#define TAG_DATA 100
#define TAG_ACK 101
#define TAG_CHECK 102

static int g_rank, g_size, g_peer, g_even, g_active;
/* Real status arrays: MPI_STATUSES_IGNORE trips GCC's -Wstringop-overflow. */
static MPI_Status g_st[2 * WINDOW];

static void check_stamp(const unsigned char *buf, long size, unsigned char stamp, const char *what)
{
    if (size <= 0) return;
    if (buf[0] != stamp || buf[size - 1] != stamp) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s: size %ld: stamp %u expected, got first=%u last=%u", what, size,
                 (unsigned)stamp, (unsigned)buf[0], (unsigned)buf[size - 1]);
        bench_die(msg);
    }
}

static void stamp(unsigned char *buf, long size, unsigned char s)
{
    if (size <= 0) return;
    buf[0] = s;
    buf[size - 1] = s;
}

/* One full-pattern message each way between the pair, checked byte by byte. */
static void validate_exchange(unsigned char *sbuf, unsigned char *rbuf, long size)
{
    long i;
    if (!g_active) return;
    for (i = 0; i < size; i++) sbuf[i] = bench_pat(i, g_rank);
    memset(rbuf, 0, (size_t)size);
    if (g_even) {
        MPI_Send(sbuf, (int)size, MPI_BYTE, g_peer, TAG_CHECK, MPI_COMM_WORLD);
        MPI_Recv(rbuf, (int)size, MPI_BYTE, g_peer, TAG_CHECK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(rbuf, (int)size, MPI_BYTE, g_peer, TAG_CHECK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(sbuf, (int)size, MPI_BYTE, g_peer, TAG_CHECK, MPI_COMM_WORLD);
    }
    for (i = 0; i < size; i++) {
        if (rbuf[i] != bench_pat(i, g_peer)) {
            char msg[160];
            snprintf(msg, sizeof msg, "validation exchange: size %ld: byte %ld is %u, expected %u", size, i,
                     (unsigned)rbuf[i], (unsigned)bench_pat(i, g_peer));
            bench_die(msg);
        }
    }
}

/* With several pairs, every rank's clock stops only when all pairs are done: a rank whose pair got the
 * cores only after another pair had finished would otherwise start its clock late and report its pair's
 * time alone, as if the pairs had run at once (seen with MPICH at np=4 on 2 cores: 0.25 us at 0 B in some
 * runs, 4000 us in others). The barrier adds its own cost once per measurement, not per iteration. */
static void pairs_done(void)
{
    if (g_size >= 4) MPI_Barrier(MPI_COMM_WORLD);
}

/* ---- ping-pong ---------------------------------------------------------- */

static double pingpong(unsigned char *sbuf, unsigned char *rbuf, long size, long iters)
{
    long i;
    double t0, t1;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    if (g_active) {
        for (i = 0; i < iters; i++) {
            unsigned char s = (unsigned char)(i % 251 + 1);
            if (g_even) {
                stamp(sbuf, size, s);
                MPI_Send(sbuf, (int)size, MPI_BYTE, g_peer, TAG_DATA, MPI_COMM_WORLD);
                MPI_Recv(rbuf, (int)size, MPI_BYTE, g_peer, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                check_stamp(rbuf, size, s, "pingpong echo");
            } else {
                MPI_Recv(rbuf, (int)size, MPI_BYTE, g_peer, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                check_stamp(rbuf, size, s, "pingpong");
                MPI_Send(rbuf, (int)size, MPI_BYTE, g_peer, TAG_DATA, MPI_COMM_WORLD);
            }
        }
    }
    pairs_done();
    t1 = MPI_Wtime();
    return t1 - t0;
}

/* ---- streaming bandwidth ------------------------------------------------ */

static double stream_bw(unsigned char *sbuf, unsigned char *rbuf, long size, long iters)
{
    MPI_Request req[WINDOW];
    int ack = 0;
    long i, w;
    double t0, t1;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    if (g_active) {
        for (i = 0; i < iters; i++) {
            unsigned char s = (unsigned char)(i % 251 + 1);
            if (g_even) {
                stamp(sbuf, size, s);
                for (w = 0; w < WINDOW; w++)
                    MPI_Isend(sbuf, (int)size, MPI_BYTE, g_peer, TAG_DATA, MPI_COMM_WORLD, &req[w]);
                MPI_Waitall(WINDOW, req, g_st);
                MPI_Recv(&ack, 1, MPI_INT, g_peer, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                for (w = 0; w < WINDOW; w++)
                    MPI_Irecv(rbuf, (int)size, MPI_BYTE, g_peer, TAG_DATA, MPI_COMM_WORLD, &req[w]);
                MPI_Waitall(WINDOW, req, g_st);
                check_stamp(rbuf, size, s, "bw");
                MPI_Send(&ack, 1, MPI_INT, g_peer, TAG_ACK, MPI_COMM_WORLD);
            }
        }
    }
    pairs_done();
    t1 = MPI_Wtime();
    return t1 - t0;
}

static double bidir_bw(unsigned char *sbuf, unsigned char *rbuf, long size, long iters)
{
    MPI_Request req[2 * WINDOW];
    long i, w;
    double t0, t1;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    if (g_active) {
        for (i = 0; i < iters; i++) {
            unsigned char s = (unsigned char)(i % 251 + 1);
            stamp(sbuf, size, s);
            for (w = 0; w < WINDOW; w++)
                MPI_Irecv(rbuf, (int)size, MPI_BYTE, g_peer, TAG_DATA, MPI_COMM_WORLD, &req[w]);
            for (w = 0; w < WINDOW; w++)
                MPI_Isend(sbuf, (int)size, MPI_BYTE, g_peer, TAG_DATA, MPI_COMM_WORLD, &req[WINDOW + w]);
            MPI_Waitall(2 * WINDOW, req, g_st);
            check_stamp(rbuf, size, s, "bibw");
        }
    }
    pairs_done();
    t1 = MPI_Wtime();
    return t1 - t0;
}

typedef double (*kernel_fn)(unsigned char *, unsigned char *, long, long);

/* Warm up, calibrate on rank 0, broadcast the iteration count, measure. */
static double g_probe_before = -1, g_probe_after = -1; /* machine state around the last cell */

static double measure(const bench_opts *o, kernel_fn k, unsigned char *sbuf, unsigned char *rbuf, long size,
                      long calib, long *iters_out)
{
    double t, per;
    long iters;
    /* Warm-up of 2 iterations (page faults), which is also a first estimate.
     * Rank 0's figure decides for everyone, so all ranks take the same branch.
     * Only when `calib` more iterations are cheap is a finer estimate made:
     * oversubscribed runs can cost a scheduler slice per message. */
    t = k(sbuf, rbuf, size, 2);
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    per = t / 2.0;
    /* Then warm up as OSU does (its default skips 1000 iterations of small messages): lazily built
     * state, ring or fastbox pages touched for the first time and a cold CPU otherwise land in the
     * first size measured. Bounded to ~10 ms, so an oversubscribed MPI paying a scheduler slice per
     * message is not held up; the same count on every rank (rank 0's estimate). */
    {
        long warm = per > 0 ? (long)(0.01 / per) : 1000;
        if (warm > 1000) warm = 1000;
        if (warm > 2) {
            t = k(sbuf, rbuf, size, warm);
            MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            per = t / (double)warm;
        }
    }
    if (calib > 2 && per * (double)calib < 0.25e-3 * o->target_ms) {
        t = k(sbuf, rbuf, size, calib);
        per = t / (double)calib;
    }
    iters = bench_iters_for(o, per);
    MPI_Bcast(&iters, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    g_probe_before = bench_probe();
    t = k(sbuf, rbuf, size, iters);
    g_probe_after = bench_probe();
    /* With several pairs the cell is the slowest pair's time (all pairs run at once). Pair (0,1)'s
     * own time would reward an MPI that lets that pair run while another waits for the cores:
     * Debian's MPICH at np=4 on 2 cores measured 0.28 us at 0 B for pair (0,1) in runs where pair
     * (2,3) was off the cores, 0.45 to hundreds of us in others (200,000 % spread). The kernels'
     * pairs_done() makes every rank's clock cover every pair. */
    if (g_size >= 4)
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    else
        MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    *iters_out = iters;
    return t;
}

int main(int argc, char **argv)
{
    bench_opts o;
    long sizes[64];
    int n, j;
    long maxbuf;
    unsigned char *sbuf, *rbuf, *sbase = NULL, *rbase = NULL;
    const char *variant;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    bench_parse_args(argc, argv, &o, "tests: latency,bw,bibw");
    if (g_size < 2) {
        if (g_rank == 0) fprintf(stderr, "osu_style needs at least 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    variant = o.alloc_mem ? "_alloc_mem" : "";
    bench_probe_init();
    g_peer = g_rank ^ 1;
    g_even = (g_rank % 2) == 0;
    g_active = g_peer < g_size;

    maxbuf = o.quick ? 64 * 1024 : 16L * 1024 * 1024;
    if (o.max_size > maxbuf) maxbuf = o.max_size;
    for (j = 0; j < o.nsizes; j++)
        if (o.sizes[j] > maxbuf) maxbuf = o.sizes[j];
    if (o.shift && !o.alloc_mem) {
        /* Page-aligned buffers, odd ranks' moved `shift` bytes on: the sender's and the receiver's
         * addresses then differ by `shift` modulo 4096, as two malloc'd buffers' may. */
        const long at = (g_rank % 2) ? o.shift : 0;
        sbase = (unsigned char *)bench_alloc((size_t)maxbuf + 8192);
        rbase = (unsigned char *)bench_alloc((size_t)maxbuf + 8192);
        sbuf = (unsigned char *)(((uintptr_t)sbase + 4095) & ~(uintptr_t)4095) + at;
        rbuf = (unsigned char *)(((uintptr_t)rbase + 4095) & ~(uintptr_t)4095) + at;
        variant = "_shifted";
    } else {
        sbuf = (unsigned char *)bench_buffer(&o, (size_t)maxbuf);
        rbuf = (unsigned char *)bench_buffer(&o, (size_t)maxbuf);
    }

    if (bench_selected(&o, "latency")) {
        n = bench_size_list(&o, 0, o.quick ? 4096 : 4L * 1024 * 1024, sizes, 64);
        for (j = 0; j < n; j++) {
            long iters, s = sizes[j];
            double t;
            validate_exchange(sbuf, rbuf, s);
            t = measure(&o, pingpong, sbuf, rbuf, s, s <= 65536 ? 20 : 2, &iters);
            if (g_rank == 0)
                printf("metric=pingpong_latency%s_us size=%ld value=%.3f np=%d iters=%ld%s\n", variant, s,
                       t * 1e6 / (2.0 * (double)iters), g_size, iters, bench_probe_text(g_probe_before, g_probe_after));
            fflush(stdout);
        }
    }
    if (bench_selected(&o, "bw")) {
        n = bench_size_list(&o, 4096, o.quick ? 65536 : 16L * 1024 * 1024, sizes, 64);
        for (j = 0; j < n; j++) {
            long iters, s = sizes[j];
            double t;
            validate_exchange(sbuf, rbuf, s);
            t = measure(&o, stream_bw, sbuf, rbuf, s, 1, &iters);
            if (g_rank == 0)
                printf("metric=bw%s_MBps size=%ld value=%.1f np=%d iters=%ld window=%d%s\n", variant, s,
                       (double)s * WINDOW * (double)iters / t / 1e6, g_size, iters, WINDOW,
                       bench_probe_text(g_probe_before, g_probe_after));
            fflush(stdout);
        }
    }
    if (bench_selected(&o, "bibw")) {
        n = bench_size_list(&o, 4096, o.quick ? 65536 : 16L * 1024 * 1024, sizes, 64);
        for (j = 0; j < n; j++) {
            long iters, s = sizes[j];
            double t;
            validate_exchange(sbuf, rbuf, s);
            t = measure(&o, bidir_bw, sbuf, rbuf, s, 1, &iters);
            if (g_rank == 0)
                printf("metric=bibw%s_MBps size=%ld value=%.1f np=%d iters=%ld window=%d%s\n", variant, s,
                       2.0 * (double)s * WINDOW * (double)iters / t / 1e6, g_size, iters, WINDOW,
                       bench_probe_text(g_probe_before, g_probe_after));
            fflush(stdout);
        }
    }
    if (sbase) {
        free(sbase);
        free(rbase);
    } else {
        bench_buffer_free(&o, sbuf);
        bench_buffer_free(&o, rbuf);
    }
    MPI_Finalize();
    return 0;
}
