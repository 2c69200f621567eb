/*
 * A point-to-point link with a fixed one-way delay, for scripts/bench on kernels without netem.
 *
 * Creates two TUN interfaces, A and B, and copies every IP packet read from one into the other
 * after DELAY_MS milliseconds, in order. scripts/bench moves A into the clients' network namespace
 * and gives each end an address, so every packet the tools exchange with the servers (SYN
 * included) crosses the link twice: one round trip costs 2 x DELAY_MS, as with netem on a veth.
 *
 *   delay-link IFACE_A IFACE_B DELAY_MS
 *
 * Prints "ready" on stdout once both interfaces exist; runs until SIGTERM or SIGINT, and the
 * interfaces disappear with it. Bounded: at most MAX_QUEUED packets wait per direction (more are
 * dropped, as a full router queue would, and counted on exit).
 * Build: cc -O2 -o delay-link delay-link.c
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define MAX_PACKET 65536
#define MAX_QUEUED 200000

struct packet {
    struct packet *next;
    long long due_ns;
    size_t length;
    unsigned char bytes[];
};

struct queue {
    struct packet *head, *tail;
    long count, dropped;
};

static volatile sig_atomic_t stopping = 0;

static void on_signal(int signum) { (void)signum; stopping = 1; }

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int open_tun(const char *name) {
    struct ifreq ifr;
    int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -1;
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
    snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
    if (ioctl(fd, TUNSETIFF, &ifr) < 0) { close(fd); return -1; }
    return fd;
}

/* Reads every packet waiting on `from` into `queue`, due `delay_ns` from now. */
static void take(int from, struct queue *queue, long long delay_ns, unsigned char *buffer) {
    for (;;) {
        ssize_t n = read(from, buffer, MAX_PACKET);
        if (n <= 0) return;
        if (queue->count >= MAX_QUEUED) { queue->dropped++; continue; }
        struct packet *p = malloc(sizeof *p + (size_t)n);
        if (!p) { queue->dropped++; continue; }
        p->next = NULL;
        p->due_ns = now_ns() + delay_ns;
        p->length = (size_t)n;
        memcpy(p->bytes, buffer, (size_t)n);
        if (queue->tail) queue->tail->next = p; else queue->head = p;
        queue->tail = p;
        queue->count++;
    }
}

/* Writes the packets that are due into `to`; returns ms until the next one is due (-1: none). */
static int give(int to, struct queue *queue) {
    long long now = now_ns();
    while (queue->head && queue->head->due_ns <= now) {
        struct packet *p = queue->head;
        if (write(to, p->bytes, p->length) < 0 && errno == EAGAIN) return 1;  /* retry shortly */
        queue->head = p->next;
        if (!queue->head) queue->tail = NULL;
        queue->count--;
        free(p);
    }
    if (!queue->head) return -1;
    long long wait = (queue->head->due_ns - now + 999999) / 1000000;
    return wait > 1000 ? 1000 : (int)wait;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: delay-link IFACE_A IFACE_B DELAY_MS\n");
        return 64;
    }
    double delay_ms = atof(argv[3]);
    if (delay_ms < 0 || delay_ms > 10000) {
        fprintf(stderr, "delay-link: delay '%s' is not 0 to 10000 ms\n", argv[3]);
        return 64;
    }
    long long delay_ns = (long long)(delay_ms * 1e6);
    int a = open_tun(argv[1]), b = open_tun(argv[2]);
    if (a < 0 || b < 0) {
        perror("delay-link: cannot create the TUN interfaces");
        return 70;
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    printf("ready\n");
    fflush(stdout);

    unsigned char *buffer = malloc(MAX_PACKET);
    struct queue a_to_b = {0}, b_to_a = {0};
    while (!stopping) {
        int wait_ab = give(b, &a_to_b), wait_ba = give(a, &b_to_a);
        int timeout = wait_ab < 0 ? wait_ba : (wait_ba < 0 ? wait_ab : (wait_ab < wait_ba ? wait_ab : wait_ba));
        if (timeout < 0 || timeout > 200) timeout = 200;  /* wake to notice a signal */
        struct pollfd fds[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
        if (poll(fds, 2, timeout) < 0 && errno != EINTR) break;
        if (fds[0].revents & POLLIN) take(a, &a_to_b, delay_ns, buffer);
        if (fds[1].revents & POLLIN) take(b, &b_to_a, delay_ns, buffer);
    }
    fprintf(stderr, "delay-link: dropped %ld + %ld packets (queue full)\n", a_to_b.dropped, b_to_a.dropped);
    return 0;
}
