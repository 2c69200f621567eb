/*
 * The floor client for scripts/bench: the simplest program that makes the same network work as
 * one atsprobe run, so every figure atsprobe shows can be read as a ratio to what the network and
 * OpenSSL alone cost.
 *
 * For every target (host:port) it opens CONNS TLS connections at once, completes each handshake
 * (OpenSSL defaults, no verification: verifying is not network work), sends one HTTP/1.1 GET and
 * reads until the end of the response head, then closes. One thread, non-blocking sockets and
 * epoll; at most INFLIGHT connections open at a time. That is 3 round trips per connection
 * (TCP, TLS 1.3, HTTP), all connections of a target in parallel: the network floor atsprobe aims
 * at.
 *
 *   floor-client [-n CONNS] [-c INFLIGHT] [-t SECONDS] host:port...   (or targets on stdin with -)
 *
 * Prints "ok=N failed=M" on stderr; exits 0 when every connection completed.
 * Build: cc -O2 -o floor-client floor-client.c -lssl -lcrypto
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum state { CONNECTING, HANDSHAKING, WRITING, READING, DONE, FAILED };

struct conn {
    int fd;
    SSL *ssl;
    enum state state;
    short events;
    const char *host;
    char request[512];
    size_t sent, request_len;
    char head[8192];
    size_t head_len;
};

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Splits "host:port" or "[v6]:port"; returns 0 on success. */
static int split(const char *target, char *host, size_t host_size, char *port, size_t port_size) {
    const char *colon;
    if (target[0] == '[') {
        const char *end = strchr(target, ']');
        if (!end || end[1] != ':') return -1;
        snprintf(host, host_size, "%.*s", (int)(end - target - 1), target + 1);
        snprintf(port, port_size, "%s", end + 2);
        return 0;
    }
    colon = strrchr(target, ':');
    if (!colon) return -1;
    snprintf(host, host_size, "%.*s", (int)(colon - target), target);
    snprintf(port, port_size, "%s", colon + 1);
    return 0;
}

static void start(struct conn *c, SSL_CTX *ctx, const char *target) {
    char host[256], port[16];
    struct addrinfo hints = {0}, *ai = NULL;
    memset(c, 0, sizeof *c);
    c->fd = -1;
    c->state = FAILED;
    c->host = target;
    if (split(target, host, sizeof host, port, sizeof port) != 0) return;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, port, &hints, &ai) != 0 || !ai) return;
    c->fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0) { freeaddrinfo(ai); return; }
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(c->fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
        freeaddrinfo(ai);
        return;
    }
    freeaddrinfo(ai);
    c->ssl = SSL_new(ctx);
    SSL_set_fd(c->ssl, c->fd);
    SSL_set_connect_state(c->ssl);
    if (inet_pton(AF_INET, host, &(struct in_addr){0}) != 1 && inet_pton(AF_INET6, host, &(struct in6_addr){0}) != 1)
        SSL_set_tlsext_host_name(c->ssl, host);
    c->request_len = (size_t)snprintf(c->request, sizeof c->request,
        "GET / HTTP/1.1\r\nHost: %s\r\nUser-Agent: floor-client\r\nAccept: */*\r\nConnection: close\r\n\r\n", host);
    c->state = CONNECTING;
    c->events = POLLOUT;
}

/* Advances one connection as far as it can go without blocking. */
static void step(struct conn *c) {
    for (;;) {
        int r, err;
        switch (c->state) {
        case CONNECTING: {
            int soerr = 0;
            socklen_t len = sizeof soerr;
            if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0 || soerr != 0) { c->state = FAILED; return; }
            c->state = HANDSHAKING;
            continue;
        }
        case HANDSHAKING:
            r = SSL_do_handshake(c->ssl);
            if (r == 1) { c->state = WRITING; continue; }
            break;
        case WRITING:
            r = SSL_write(c->ssl, c->request + c->sent, (int)(c->request_len - c->sent));
            if (r > 0) {
                c->sent += (size_t)r;
                if (c->sent == c->request_len) c->state = READING;
                continue;
            }
            break;
        case READING:
            if (c->head_len + 1 >= sizeof c->head) { c->state = DONE; return; }
            r = SSL_read(c->ssl, c->head + c->head_len, (int)(sizeof c->head - 1 - c->head_len));
            if (r > 0) {
                c->head_len += (size_t)r;
                c->head[c->head_len] = 0;
                if (strstr(c->head, "\r\n\r\n")) { c->state = DONE; return; }
                continue;
            }
            break;
        default:
            return;
        }
        err = SSL_get_error(c->ssl, r);
        if (err == SSL_ERROR_WANT_READ) { c->events = POLLIN; return; }
        if (err == SSL_ERROR_WANT_WRITE) { c->events = POLLOUT; return; }
        c->state = (c->state == READING && c->head_len > 0) ? DONE : FAILED;
        return;
    }
}

static void finish(struct conn *c, int *ok, int *failed) {
    if (c->state == DONE) (*ok)++; else (*failed)++;
    if (c->ssl) SSL_free(c->ssl);
    if (c->fd >= 0) close(c->fd);
    c->ssl = NULL;
    c->fd = -1;
}

int main(int argc, char **argv) {
    int conns = 10, inflight = 1000, ok = 0, failed = 0, opt;
    double timeout = 30;
    while ((opt = getopt(argc, argv, "n:c:t:")) != -1) {
        if (opt == 'n') conns = atoi(optarg);
        else if (opt == 'c') inflight = atoi(optarg);
        else if (opt == 't') timeout = atof(optarg);
        else { fprintf(stderr, "usage: floor-client [-n CONNS] [-c INFLIGHT] [-t SECONDS] host:port... | -\n"); return 64; }
    }
    if (conns < 1 || inflight < 1 || optind >= argc) { fprintf(stderr, "floor-client: nothing to do\n"); return 64; }
    /* A server that resets a connection must fail that connection, not kill the run (SIGPIPE
     * from SSL_write on a reset socket; atsprobe sends with MSG_NOSIGNAL). */
    signal(SIGPIPE, SIG_IGN);

    /* Targets: from the arguments, or one per line on stdin after "-". */
    char **targets = NULL;
    size_t count = 0, capacity = 0;
    if (strcmp(argv[optind], "-") == 0) {
        char line[512];
        while (fgets(line, sizeof line, stdin)) {
            line[strcspn(line, "\r\n")] = 0;
            if (!line[0]) continue;
            if (count == capacity) targets = realloc(targets, (capacity = capacity ? capacity * 2 : 64) * sizeof *targets);
            targets[count++] = strdup(line);
        }
    } else {
        targets = argv + optind;
        count = (size_t)(argc - optind);
    }

    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
    SSL_CTX_set_security_level(ctx, 0); /* the floor must reach every test server */
    SSL_CTX_set_cipher_list(ctx, "ALL:@SECLEVEL=0");
    SSL_CTX_set_min_proto_version(ctx, TLS1_VERSION);

    size_t total = count * (size_t)conns, next = 0, open_count = 0;
    if (inflight > (int)total) inflight = (int)total;
    struct conn *slots = calloc((size_t)inflight, sizeof *slots);
    int *free_slots = calloc((size_t)inflight, sizeof *free_slots), free_count = inflight;
    for (int i = 0; i < inflight; i++) free_slots[i] = inflight - 1 - i, slots[i].fd = -1;
    struct epoll_event *events = calloc((size_t)inflight, sizeof *events);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    double deadline = now() + timeout;

    while ((next < total || open_count > 0) && now() < deadline) {
        /* Fill free slots. */
        while (free_count > 0 && next < total) {
            int i = free_slots[--free_count];
            struct conn *c = &slots[i];
            start(c, ctx, targets[next / (size_t)conns]);
            next++;
            struct epoll_event ev = {.events = (uint32_t)c->events, .data.u32 = (uint32_t)i};
            if (c->state == FAILED || epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev) != 0) {
                finish(c, &ok, &failed);
                free_slots[free_count++] = i;
                continue;
            }
            open_count++;
        }
        int ready = epoll_wait(ep, events, inflight, 100);
        if (ready < 0 && errno != EINTR) break;
        for (int k = 0; k < ready; k++) {
            int i = (int)events[k].data.u32;
            struct conn *c = &slots[i];
            short before = c->events;
            step(c);
            if (c->state == DONE || c->state == FAILED) {
                epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
                finish(c, &ok, &failed);
                free_slots[free_count++] = i;
                open_count--;
            } else if (c->events != before) {
                struct epoll_event ev = {.events = (uint32_t)c->events, .data.u32 = (uint32_t)i};
                epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
            }
        }
    }
    for (int i = 0; i < inflight; i++)
        if (slots[i].ssl || slots[i].fd >= 0) finish(&slots[i], &ok, &failed);
    failed += (int)(total - next);
    fprintf(stderr, "ok=%d failed=%d\n", ok, failed);
    SSL_CTX_free(ctx);
    return failed == 0 ? 0 : 1;
}
