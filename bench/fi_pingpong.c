/* fi_pingpong: raw libfabric tagged ping-pong between two processes on one
 * host, to show what a provider itself costs, below any MPI.
 *
 *   cc -O2 -std=c99 -o fi_pingpong fi_pingpong.c -lfabric
 *   FI_PROVIDER=shm ./fi_pingpong
 *   FI_PROVIDER='tcp;ofi_rxm' ./fi_pingpong      (or: ./fi_pingpong -p 'tcp;ofi_rxm')
 *
 * The process forks; parent and child each open fabric, domain, CQ, AV and an
 * FI_EP_RDM endpoint with FI_TAGGED (manual progress), exchange endpoint names
 * over a socketpair, then ping-pong: the parent sends, the child echoes.
 * Messages up to the provider's inject_size go with fi_tinject (no send
 * completion), larger ones with fi_tsend. Receives are posted before the
 * matching send can arrive only on the echo side, as an MPI would do for a
 * blocking receive.
 *
 * Output (parent), one line per size, one-way latency = round trip / 2:
 *   metric=fi_pingpong_latency_us size=S value=V prov=NAME iters=I
 * Sizes 0 B .. 4 MiB (capped by max_msg_size), or --sizes a,b,...; --quick:
 * 0 B .. 4 KiB with a few iterations. Each size begins with one exchange of a
 * full byte pattern checked byte by byte; timed messages carry a stamp in
 * their first and last byte. Any mismatch or libfabric error: exit status 2.
 * A watchdog alarm (--timeout S, default 120) ends a hung run.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#define TAG 0x42

static struct fi_info *g_info;
static struct fid_fabric *g_fabric;
static struct fid_domain *g_domain;
static struct fid_cq *g_cq;
static struct fid_av *g_av;
static struct fid_ep *g_ep;
static fi_addr_t g_peer;
static long g_tx_done, g_rx_done;
static int g_sock, g_is_parent;
static const char *g_who = "parent";

static void die(const char *what, long rc)
{
    fprintf(stderr, "fi_pingpong(%s): FAILED: %s: %ld (%s)\n", g_who, what, rc,
            rc < 0 ? fi_strerror((int)-rc) : "");
    exit(2);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void xwrite(const void *p, size_t n)
{
    const char *c = (const char *)p;
    while (n > 0) {
        ssize_t w = write(g_sock, c, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) die("socket write", errno);
        c += w;
        n -= (size_t)w;
    }
}

static void xread(void *p, size_t n)
{
    char *c = (char *)p;
    while (n > 0) {
        ssize_t r = read(g_sock, c, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) die("socket read (peer gone?)", r < 0 ? errno : 0);
        c += r;
        n -= (size_t)r;
    }
}

/* Poll the CQ once; count send and receive completions. */
static void progress(void)
{
    struct fi_cq_tagged_entry e[16];
    ssize_t n = fi_cq_read(g_cq, e, 16), i;
    if (n == -FI_EAGAIN) return;
    if (n == -FI_EAVAIL) {
        struct fi_cq_err_entry err;
        memset(&err, 0, sizeof err);
        fi_cq_readerr(g_cq, &err, 0);
        fprintf(stderr, "fi_pingpong(%s): cq error: %s (prov errno %d)\n", g_who, fi_strerror(err.err),
                err.prov_errno);
        die("completion error", -err.err);
    }
    if (n < 0) die("fi_cq_read", n);
    for (i = 0; i < n; i++) {
        if (e[i].flags & FI_RECV) g_rx_done++;
        else if (e[i].flags & FI_SEND) g_tx_done++;
    }
}

static struct fi_context g_rx_ctx, g_tx_ctx;

static void post_recv(void *buf, size_t len)
{
    ssize_t rc;
    while ((rc = fi_trecv(g_ep, buf, len, NULL, g_peer, TAG, 0, &g_rx_ctx)) == -FI_EAGAIN) progress();
    if (rc) die("fi_trecv", rc);
}

/* Send; returns 1 if a send completion will follow, 0 for an inject. */
static int post_send(const void *buf, size_t len)
{
    ssize_t rc;
    if (len <= g_info->tx_attr->inject_size) {
        while ((rc = fi_tinject(g_ep, buf, len, g_peer, TAG)) == -FI_EAGAIN) progress();
        if (rc) die("fi_tinject", rc);
        return 0;
    }
    while ((rc = fi_tsend(g_ep, buf, len, NULL, g_peer, TAG, &g_tx_ctx)) == -FI_EAGAIN) progress();
    if (rc) die("fi_tsend", rc);
    return 1;
}

static void wait_rx(long want) { while (g_rx_done < want) progress(); }
static void wait_tx(long want) { while (g_tx_done < want) progress(); }

static void setup(const char *prov)
{
    struct fi_info *hints = fi_allocinfo();
    struct fi_cq_attr cqa;
    struct fi_av_attr ava;
    char name[512], peer[512];
    size_t len = sizeof name;
    uint32_t plen;
    int rc;

    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = FI_TAGGED;
    hints->mode = FI_CONTEXT;
    /* No FI_MR_LOCAL: we pass no descriptors. */
    hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    hints->domain_attr->control_progress = FI_PROGRESS_MANUAL;
    hints->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    if (prov && *prov) hints->fabric_attr->prov_name = strdup(prov);
    rc = fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &g_info);
    if (rc) die("fi_getinfo (is the provider available? try fi_info -l)", rc);
    fi_freeinfo(hints);

    if ((rc = fi_fabric(g_info->fabric_attr, &g_fabric, NULL))) die("fi_fabric", rc);
    if ((rc = fi_domain(g_fabric, g_info, &g_domain, NULL))) die("fi_domain", rc);
    memset(&cqa, 0, sizeof cqa);
    cqa.format = FI_CQ_FORMAT_TAGGED;
    cqa.size = 256;
    cqa.wait_obj = FI_WAIT_NONE;
    if ((rc = fi_cq_open(g_domain, &cqa, &g_cq, NULL))) die("fi_cq_open", rc);
    memset(&ava, 0, sizeof ava);
    ava.type = FI_AV_TABLE;
    ava.count = 4;
    if ((rc = fi_av_open(g_domain, &ava, &g_av, NULL))) die("fi_av_open", rc);
    if ((rc = fi_endpoint(g_domain, g_info, &g_ep, NULL))) die("fi_endpoint", rc);
    if ((rc = fi_ep_bind(g_ep, &g_cq->fid, FI_TRANSMIT | FI_RECV))) die("fi_ep_bind cq", rc);
    if ((rc = fi_ep_bind(g_ep, &g_av->fid, 0))) die("fi_ep_bind av", rc);
    if ((rc = fi_enable(g_ep))) die("fi_enable", rc);
    if ((rc = fi_getname(&g_ep->fid, name, &len))) die("fi_getname", rc);

    plen = (uint32_t)len;
    xwrite(&plen, sizeof plen);
    xwrite(name, len);
    xread(&plen, sizeof plen);
    if (plen > sizeof peer) die("peer name too long", plen);
    xread(peer, plen);
    if (fi_av_insert(g_av, peer, 1, &g_peer, 0, NULL) != 1) die("fi_av_insert", -1);
}

static void teardown(void)
{
    fi_close(&g_ep->fid);
    fi_close(&g_av->fid);
    fi_close(&g_cq->fid);
    fi_close(&g_domain->fid);
    fi_close(&g_fabric->fid);
    fi_freeinfo(g_info);
}

static unsigned char pat(size_t i, int seed) { return (unsigned char)((i * 131 + (size_t)seed * 7 + 1) & 0xff); }

static void check_stamp(const unsigned char *b, size_t n, unsigned char s)
{
    if (n && (b[0] != s || b[n - 1] != s)) {
        fprintf(stderr, "fi_pingpong(%s): FAILED: size %zu stamp %u, got %u/%u\n", g_who, n, s, b[0], b[n - 1]);
        exit(2);
    }
}

/* Full-pattern exchange in both directions, checked byte by byte. */
static void validate(unsigned char *sb, unsigned char *rb, size_t n)
{
    size_t i;
    int me = g_is_parent ? 0 : 1;
    for (i = 0; i < n; i++) sb[i] = pat(i, me);
    memset(rb, 0, n);
    post_recv(rb, n);
    if (g_is_parent) {
        long t = g_tx_done + post_send(sb, n);
        wait_rx(g_rx_done + 1);
        wait_tx(t);
    } else {
        long t;
        wait_rx(g_rx_done + 1);
        t = g_tx_done + post_send(sb, n);
        wait_tx(t);
    }
    for (i = 0; i < n; i++)
        if (rb[i] != pat(i, 1 - me)) {
            fprintf(stderr, "fi_pingpong(%s): FAILED: size %zu byte %zu is %u, want %u\n", g_who, n, i, rb[i],
                    pat(i, 1 - me));
            exit(2);
        }
}

static double pingpong(unsigned char *sb, unsigned char *rb, size_t n, long iters)
{
    long i;
    double t0 = now_s();
    for (i = 0; i < iters; i++) {
        unsigned char s = (unsigned char)(i % 251 + 1);
        long rx = g_rx_done + 1, tx = g_tx_done;
        if (g_is_parent) {
            if (n) sb[0] = sb[n - 1] = s;
            post_recv(rb, n);
            tx += post_send(sb, n);
            wait_rx(rx);
            wait_tx(tx);
        } else {
            post_recv(rb, n);
            wait_rx(rx);
            tx += post_send(rb, n);
            wait_tx(tx);
        }
        check_stamp(rb, n, s);
    }
    return now_s() - t0;
}

int main(int argc, char **argv)
{
    const char *prov = getenv("FI_PROVIDER");
    long sizes[64], maxsz = 0;
    int n = 0, i, quick = 0, sv[2], status = 0;
    unsigned watchdog = 120;
    double target = 0.060;
    pid_t child;
    unsigned char *sb, *rb;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            quick = 1;
        } else if (!strcmp(argv[i], "-p") && i + 1 < argc) {
            prov = argv[++i];
        } else if (!strcmp(argv[i], "--target-ms") && i + 1 < argc) {
            target = atof(argv[++i]) * 1e-3;
        } else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) {
            watchdog = (unsigned)atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            char *tok;
            for (tok = strtok(argv[++i], ","); tok && n < 64; tok = strtok(NULL, ",")) {
                char *end;
                double v = strtod(tok, &end);
                if (*end == 'k' || *end == 'K') v *= 1024;
                if (*end == 'm' || *end == 'M') v *= 1024 * 1024;
                sizes[n++] = (long)v;
            }
        } else {
            fprintf(stderr, "usage: %s [-p PROVIDER] [--quick] [--target-ms MS] [--timeout S] [--sizes B,...]\n",
                    argv[0]);
            return 1;
        }
    }
    if (quick) target = 0.005;
    if (n == 0) {
        long s, hi = quick ? 4096 : 4L * 1024 * 1024;
        sizes[n++] = 0;
        for (s = 1; s <= hi; s *= 2) sizes[n++] = s;
    }
    for (i = 0; i < n; i++)
        if (sizes[i] > maxsz) maxsz = sizes[i];

    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) die("socketpair", errno);
    fflush(stdout);
    child = fork();
    if (child < 0) die("fork", errno);
    g_is_parent = child > 0;
    g_who = g_is_parent ? "parent" : "child";
    g_sock = g_is_parent ? sv[0] : sv[1];
    close(g_is_parent ? sv[1] : sv[0]);
    alarm(watchdog); /* default SIGALRM action ends a hung process */

    setup(prov);
    if (g_is_parent)
        fprintf(stderr, "fi_pingpong: provider %s, inject_size %zu, max_msg_size %zu\n",
                g_info->fabric_attr->prov_name, g_info->tx_attr->inject_size, g_info->ep_attr->max_msg_size);
    sb = (unsigned char *)calloc((size_t)maxsz + 1, 1);
    rb = (unsigned char *)calloc((size_t)maxsz + 1, 1);
    if (!sb || !rb) die("calloc", 0);

    for (i = 0; i < n; i++) {
        size_t sz = (size_t)sizes[i];
        long calib = sz <= 65536 ? 20 : 2, iters = 0;
        double t;
        if (sz > g_info->ep_attr->max_msg_size) break;
        validate(sb, rb, sz);
        pingpong(sb, rb, sz, calib); /* warm-up */
        t = pingpong(sb, rb, sz, calib);
        if (g_is_parent) {
            double per = t / (double)calib;
            iters = (long)(target / (per > 0 ? per : 1e-9));
            if (iters < 3) iters = 3;
            if (iters > 20000) iters = 20000;
            if (quick && iters > 50) iters = 50;
            xwrite(&iters, sizeof iters);
        } else {
            xread(&iters, sizeof iters);
        }
        t = pingpong(sb, rb, sz, iters);
        if (g_is_parent) {
            printf("metric=fi_pingpong_latency_us size=%zu value=%.3f prov=%s iters=%ld\n", sz,
                   t * 1e6 / (2.0 * (double)iters), g_info->fabric_attr->prov_name, iters);
            fflush(stdout);
        }
    }
    /* Final handshake so neither side closes its endpoint while the peer
     * may still need it. */
    {
        char c = 'x';
        xwrite(&c, 1);
        xread(&c, 1);
    }
    teardown();
    free(sb);
    free(rb);
    if (!g_is_parent) _exit(0);
    if (waitpid(child, &status, 0) < 0) die("waitpid", errno);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "fi_pingpong: FAILED: child status %d\n", status);
        return 2;
    }
    return 0;
}
