/* Raw libzmq PUB->SUB throughput over tcp loopback, plain or CURVE: the C reference that
 * zmqbench's and nodebench's CURVE figures are compared with (deploy/bench/curve.sh runs them).
 *
 *   curve_thr <plain|curve> <payload-bytes> <count>
 *
 * Publisher and subscriber are two threads with a ZeroMQ context each (so each side has its
 * own I/O thread, as two processes would). The subscriber subscribes to the data topic and to
 * "sync"; the publisher repeats "sync" every millisecond until the subscriber says (over a
 * PAIR side channel) that it saw one, then sends <count> [topic, payload] messages with HWM 0.
 * Timing runs from the first data message received to the last. Prints one line:
 *   CURVETHR impl=c mode=curve size=16 count=200000 recv=200000 secs=… msg_s=…
 */
#include <zmq.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *topic = "bench.topic!";   /* 12 bytes, as the baseline's topic */
static int curve, size;
static long count;
static char server_public[41], server_secret[41], client_public[41], client_secret[41];
static char endpoint[256];

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void check(int rc, const char *what) {
    if (rc < 0) { fprintf(stderr, "curve_thr: %s: %s\n", what, zmq_strerror(zmq_errno())); exit(2); }
}

static char go_endpoint[256];
static volatile int go_bound;

/* The side channel the subscriber says "go" and "done" on. */
static void *go_socket(void *ctx) {
    void *go = zmq_socket(ctx, ZMQ_PAIR);
    check(zmq_bind(go, "tcp://127.0.0.1:*"), "bind go");
    size_t length = sizeof go_endpoint;
    check(zmq_getsockopt(go, ZMQ_LAST_ENDPOINT, go_endpoint, &length), "go endpoint");
    go_bound = 1;
    return go;
}

static void *publisher(void *ready) {
    void *ctx = zmq_ctx_new();
    void *pub = zmq_socket(ctx, ZMQ_PUB);
    int zero = 0, one = 1;
    check(zmq_setsockopt(pub, ZMQ_SNDHWM, &zero, sizeof zero), "sndhwm");
    if (curve) {
        check(zmq_setsockopt(pub, ZMQ_CURVE_SERVER, &one, sizeof one), "curve_server");
        check(zmq_setsockopt(pub, ZMQ_CURVE_SECRETKEY, server_secret, 40), "secretkey");
    }
    check(zmq_bind(pub, "tcp://127.0.0.1:*"), "bind");
    size_t length = sizeof endpoint;
    check(zmq_getsockopt(pub, ZMQ_LAST_ENDPOINT, endpoint, &length), "last_endpoint");
    *(volatile int *)ready = 1;
    char *payload = calloc(1, size > 8 ? size : 8);
    void *go = go_socket(ctx);
    zmq_pollitem_t item = { go, 0, ZMQ_POLLIN, 0 };
    double deadline = now() + 10;
    for (;;) {
        zmq_send(pub, "sync", 4, ZMQ_SNDMORE);
        zmq_send(pub, "", 0, 0);
        if (zmq_poll(&item, 1, 1) > 0) break;
        if (now() > deadline) { fprintf(stderr, "curve_thr: no subscriber\n"); exit(3); }
    }
    char buffer[8];
    zmq_recv(go, buffer, sizeof buffer, 0);
    for (long i = 0; i < count; i++) {
        memcpy(payload, &i, sizeof i);
        zmq_send(pub, topic, 12, ZMQ_SNDMORE);
        zmq_send(pub, payload, size, 0);
    }
    zmq_recv(go, buffer, sizeof buffer, 0);   /* "done" */
    free(payload);
    zmq_close(go);
    zmq_close(pub);
    zmq_ctx_term(ctx);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 4 || (strcmp(argv[1], "plain") && strcmp(argv[1], "curve"))) {
        fprintf(stderr, "usage: curve_thr <plain|curve> <payload-bytes> <count>\n");
        return 64;
    }
    curve = strcmp(argv[1], "curve") == 0;
    size = atoi(argv[2]);
    count = atol(argv[3]);
    if (size < 0 || size > 1 << 20 || count < 1 || count > 100000000) { fprintf(stderr, "curve_thr: bad size or count\n"); return 64; }
    if (curve) {
        check(zmq_curve_keypair(server_public, server_secret), "keypair");
        check(zmq_curve_keypair(client_public, client_secret), "keypair");
    }
    volatile int ready = 0;
    pthread_t thread;
    pthread_create(&thread, NULL, publisher, (void *)&ready);
    while (!ready || !go_bound) { struct timespec t = {0, 1000000}; nanosleep(&t, NULL); }

    void *ctx = zmq_ctx_new();
    void *sub = zmq_socket(ctx, ZMQ_SUB);
    void *go = zmq_socket(ctx, ZMQ_PAIR);
    int zero = 0, timeout = 10000;
    check(zmq_setsockopt(sub, ZMQ_RCVHWM, &zero, sizeof zero), "rcvhwm");
    if (curve) {
        check(zmq_setsockopt(sub, ZMQ_CURVE_SERVERKEY, server_public, 40), "serverkey");
        check(zmq_setsockopt(sub, ZMQ_CURVE_PUBLICKEY, client_public, 40), "publickey");
        check(zmq_setsockopt(sub, ZMQ_CURVE_SECRETKEY, client_secret, 40), "secretkey");
    }
    check(zmq_setsockopt(sub, ZMQ_SUBSCRIBE, topic, 12), "subscribe");
    check(zmq_setsockopt(sub, ZMQ_SUBSCRIBE, "sync", 4), "subscribe sync");
    check(zmq_setsockopt(sub, ZMQ_RCVTIMEO, &timeout, sizeof timeout), "rcvtimeo");
    check(zmq_connect(sub, endpoint), "connect");
    check(zmq_connect(go, go_endpoint), "connect go");
    zmq_msg_t message;
    zmq_msg_init(&message);
    for (;;) {   /* a sync message: both subscriptions reached the publisher */
        check(zmq_msg_recv(&message, sub, 0), "recv sync");
        int is_sync = zmq_msg_size(&message) == 4 && memcmp(zmq_msg_data(&message), "sync", 4) == 0;
        while (zmq_msg_more(&message)) check(zmq_msg_recv(&message, sub, 0), "recv");
        if (is_sync) break;
    }
    zmq_setsockopt(sub, ZMQ_UNSUBSCRIBE, "sync", 4);
    zmq_send(go, "go", 2, 0);
    long got = 0;
    double first = 0, last = 0;
    int short_timeout = 1000;
    while (got < count) {
        if (zmq_msg_recv(&message, sub, 0) < 0) break;   /* timeout: the rest was dropped */
        int is_sync = zmq_msg_size(&message) == 4;
        while (zmq_msg_more(&message)) zmq_msg_recv(&message, sub, 0);
        if (is_sync) continue;
        last = now();
        if (got++ == 0) { first = last; zmq_setsockopt(sub, ZMQ_RCVTIMEO, &short_timeout, sizeof short_timeout); }
    }
    zmq_send(go, "done", 4, 0);
    pthread_join(thread, NULL);
    double seconds = last - first > 1e-9 ? last - first : 1e-9;
    printf("CURVETHR impl=c mode=%s size=%d count=%ld recv=%ld secs=%.4f msg_s=%.0f\n", argv[1], size, count, got, seconds, got / seconds);
    zmq_msg_close(&message);
    zmq_close(go);
    zmq_close(sub);
    zmq_ctx_term(ctx);
    return got == count ? 0 : 1;
}
