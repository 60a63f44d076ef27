/* xcopy_bw: what ONE copy from another process's memory reaches on this machine, beside memcpy_bw's
 * single-core memcpy. The streaming-bandwidth target (>= 0.8x memcpy) compares an MPI against a copy
 * inside one process; these two numbers show what crossing the process boundary costs before any MPI
 * is involved. Plain C (POSIX + Linux), no MPI.
 *
 *   metric=xcopy_cma_MBps size=<bytes> value=<MB/s>
 *       the parent copies its child's private (malloc'd) buffer into its own with process_vm_readv:
 *       Linux cross-memory attach, the single-copy path MPICH and Open MPI use between the processes
 *       of a node (and fabmpi's fallback); the kernel pins the source pages on every call.
 *   metric=xcopy_shared_MBps size=<bytes> value=<MB/s>
 *       the parent memcpy's from a buffer the child shares with it (MAP_SHARED): what a mapping of the
 *       sender's memory (XPMEM, a kernel module not in Debian) would give; user-space MPIs cannot map a
 *       malloc'd buffer of another process on a stock kernel.
 *
 * As in memcpy_bw: sizes 4 KiB .. 16 MiB (powers of two) or --sizes a,b,...; the same source and
 * destination every time (cache-resident at small sizes, as for the MPI bandwidth test); each size
 * runs about --target-ms (default 60) after a calibration; --quick: 4 KiB .. 64 KiB, 5 ms. Every copy
 * loop is checked (first, middle and last byte) after timing. Where cross-memory attach is refused
 * (Yama ptrace_scope, seccomp, containers) the cma lines are left out with a notice on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "copy_args.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

volatile unsigned char sink;

/* One timed loop of `iters` copies of n bytes from the owner; < 0 when a copy fails. */
static double cma_loop(pid_t owner, unsigned char *dst, unsigned char *remote_src, size_t n, long iters)
{
    long i;
    double t0 = now_s();
    for (i = 0; i < iters; i++) {
        size_t done = 0;
        while (done < n) {
            struct iovec local = {dst + done, n - done}, remote = {remote_src + done, n - done};
            ssize_t got = process_vm_readv(owner, &local, 1, &remote, 1, 0);
            if (got <= 0) return -1.0;
            done += (size_t)got;
        }
        sink = dst[(size_t)i % n];
    }
    return now_s() - t0;
}

static double shared_loop(unsigned char *dst, const unsigned char *shared_src, size_t n, long iters)
{
    long i;
    double t0 = now_s();
    for (i = 0; i < iters; i++) {
        memcpy(dst, shared_src, n);
        sink = dst[(size_t)i % n];
    }
    return now_s() - t0;
}

static int check(const unsigned char *dst, size_t n, const char *what)
{
    size_t at[3];
    int k;
    at[0] = 0;
    at[1] = n / 2;
    at[2] = n - 1;
    for (k = 0; k < 3; k++) {
        if (dst[at[k]] != (unsigned char)(at[k] * 131 + 1)) {
            fprintf(stderr, "bench: FAILED: %s check at size %zu, byte %zu\n", what, n, at[k]);
            return 0;
        }
    }
    return 1;
}

static long calibrate(double one, double target)
{
    long iters = (long)(target / (one > 0 ? one : 1e-9));
    if (iters < 3) iters = 3;
    if (iters > 1000000) iters = 1000000;
    return iters;
}

int main(int argc, char **argv)
{
    copy_args args;
    long *sizes = args.sizes, maxsz;
    int n, i, status = 0, ready_pipe[2], done_pipe[2], cma_ok = 1;
    double target;
    unsigned char *priv, *shared, *dst;
    pid_t owner;
    char byte = 0;

    if (parse_copy_args(argc, argv, &args) != 0) return 1;
    n = args.n;
    target = args.target_s;
    maxsz = args.max_size;
    if (maxsz <= 0) return 0;

    priv = (unsigned char *)malloc((size_t)maxsz);
    shared = (unsigned char *)mmap(NULL, (size_t)maxsz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (!priv || shared == MAP_FAILED || pipe(ready_pipe) != 0 || pipe(done_pipe) != 0) {
        fprintf(stderr, "bench: FAILED: allocation\n");
        return 2;
    }
    owner = fork();
    if (owner < 0) {
        fprintf(stderr, "bench: FAILED: fork: %s\n", strerror(errno));
        return 2;
    }
    if (owner == 0) {
        /* The child owns the source buffers: it writes them after the fork, so its private buffer is its
         * own pages (not copy-on-write shared with the parent), then waits until the parent is done.
         * The parent reads the child, which Yama's ptrace_scope=1 allows (a descendant). */
        long k;
        close(ready_pipe[0]);
        close(done_pipe[1]);
        for (k = 0; k < maxsz; k++) priv[k] = shared[k] = (unsigned char)(k * 131 + 1);
        if (write(ready_pipe[1], &byte, 1) != 1) _exit(2);
        while (read(done_pipe[0], &byte, 1) > 0) {
        }
        _exit(0);
    }
    close(ready_pipe[1]);
    close(done_pipe[0]);
    if (read(ready_pipe[0], &byte, 1) != 1) {
        fprintf(stderr, "bench: FAILED: the owner process did not start\n");
        return 2;
    }
    dst = (unsigned char *)malloc((size_t)maxsz);
    if (!dst) return 2;
    memset(dst, 0, (size_t)maxsz);
    if (cma_loop(owner, dst, priv, 64, 1) < 0) {
        fprintf(stderr, "notice: process_vm_readv refused (%s): no xcopy_cma lines\n", strerror(errno));
        cma_ok = 0;
    }
    for (i = 0; i < n; i++) {
        size_t sz = (size_t)sizes[i];
        long iters;
        double t;
        if (sz == 0) continue;
        if (cma_ok) {
            cma_loop(owner, dst, priv, sz, 1);
            iters = calibrate(cma_loop(owner, dst, priv, sz, 3) / 3.0, target);
            memset(dst, 0, sz);
            t = cma_loop(owner, dst, priv, sz, iters);
            if (t < 0 || !check(dst, sz, "process_vm_readv")) break;
            printf("metric=xcopy_cma_MBps size=%zu value=%.1f iters=%ld\n", sz, (double)sz * (double)iters / t / 1e6,
                   iters);
        }
        shared_loop(dst, shared, sz, 1);
        iters = calibrate(shared_loop(dst, shared, sz, 3) / 3.0, target);
        memset(dst, 0, sz);
        t = shared_loop(dst, shared, sz, iters);
        if (!check(dst, sz, "shared memcpy")) break;
        printf("metric=xcopy_shared_MBps size=%zu value=%.1f iters=%ld\n", sz, (double)sz * (double)iters / t / 1e6,
               iters);
        fflush(stdout);
    }
    close(done_pipe[1]);
    free(dst);
    free(priv);
    munmap(shared, (size_t)maxsz);
    if (waitpid(owner, &status, 0) != owner || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return 2;
    return i < n ? 2 : 0;
}
