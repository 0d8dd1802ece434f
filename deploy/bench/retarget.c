/* retarget.c — raw libzmq doing the work of nodebench's shared-socket follow churn, so the node's
 * figure has a floor to be read against.
 *
 *   retarget <snap4|manual2|batch> <follows> <seconds>
 *
 * One process, two threads over tcp loopback: a follower's SUB holds <follows> subscriptions and
 * re-targets all of them, round after round; a publisher's XPUB answers each new subscription with
 * one snapshot message for that subscriber only. A round counts once every snapshot of the round
 * came back (so the publisher has seen every new subscription: the strict sync of nodebench).
 *
 * snap4:   the node's protocol (docs/protocol.md, "Late joiners"): per change the follower
 *          unsubscribes the old topic and its snapshot request `$snap.<epoch>.<route>\0topic\0`
 *          and subscribes the new ones (four frames); an XPUB_VERBOSER publisher answers on the
 *          request's tag, which only the requester subscribed to.
 * manual2: a two-frame alternative: the follower unsubscribes the old topic and subscribes the
 *          new one; its SUB also holds one `$snap.` subscription from the start (a local filter:
 *          the publisher never applies it). The publisher runs ZMQ_XPUB_MANUAL: it applies each
 *          topic (un)subscription itself, and answers a subscription by subscribing the pipe it
 *          came from to `$snap.` for one send.
 * batch:   a round's re-targets in one command: the follower's SUB holds one empty subscription
 *          (a local filter the manual publisher never applies) and per round subscribes, then
 *          unsubscribes, one `$rt.<round>\0` frame listing `-old\0+new\0` per follow; the
 *          publisher (ZMQ_XPUB_MANUAL) applies each entry to the pipe the command came from, then
 *          answers every `+` under one momentary `$snap.` subscription of that pipe. Two frames
 *          per round, not per change. (A sketch of
 *          the cost only: nothing here resends the follower's topics after a reconnect.)
 *
 * Prints one line: RETARGET mode=… follows=… rounds=… changes=… secs=… changes_s=…
 * cpu_us_per_change=… (the whole process: both threads and libzmq's I/O threads).
 * Bounded: rounds end at <seconds> (at most 60), a round that does not complete within 5 s fails
 * the run (exit 1), follows are 1–10,000.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <zmq.h>

#define FAIL(...)                         \
    do {                                  \
        fprintf(stderr, "retarget: ");    \
        fprintf(stderr, __VA_ARGS__);     \
        fprintf(stderr, "\n");            \
        exit(1);                          \
    } while (0)
#define CHECK(call)                                                                      \
    do {                                                                                 \
        if ((call) == -1) FAIL("%s (line %d): %s", #call, __LINE__, zmq_strerror(zmq_errno())); \
    } while (0)

static const char snap_prefix[] = "$snap.";
static const char batch_prefix[] = "$rt.";
enum mode { SNAP4, MANUAL2, BATCH };

static enum mode g_mode;
static char g_endpoint[256];
static atomic_int g_ready, g_stop;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double cpu_seconds(void)
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

static void set_int(void *socket, int option, int value) { CHECK(zmq_setsockopt(socket, option, &value, sizeof value)); }

/* The snapshot answer: [tag + "p 1 1", "v"], the tag being the subscription it answers. */
static void send_snapshot(void *xpub, const char *tag, size_t tag_len, const char *request, size_t request_len)
{
    char head[600];
    if (tag_len + request_len + 5 > sizeof head) FAIL("a subscription of %zu bytes", request_len);
    memcpy(head, tag, tag_len);
    memcpy(head + tag_len, request, request_len);
    memcpy(head + tag_len + request_len, "p 1 1", 5);
    CHECK(zmq_send(xpub, head, tag_len + request_len + 5, ZMQ_SNDMORE));
    CHECK(zmq_send(xpub, "v", 1, 0));
}

static void *publisher(void *context)
{
    void *xpub = zmq_socket(context, ZMQ_XPUB);
    if (!xpub) FAIL("zmq_socket: %s", zmq_strerror(zmq_errno()));
    set_int(xpub, ZMQ_LINGER, 0);
    set_int(xpub, ZMQ_SNDHWM, 0);
    set_int(xpub, ZMQ_RCVHWM, 0);
    set_int(xpub, g_mode == SNAP4 ? ZMQ_XPUB_VERBOSER : ZMQ_XPUB_MANUAL, 1);
    CHECK(zmq_bind(xpub, "tcp://127.0.0.1:*"));
    size_t length = sizeof g_endpoint;
    CHECK(zmq_getsockopt(xpub, ZMQ_LAST_ENDPOINT, g_endpoint, &length));
    atomic_store(&g_ready, 1);
    enum { frame_capacity = 1 << 20 }; /* a batch of 10,000 follows' re-targets fits */
    char *frame = malloc(frame_capacity);
    if (!frame) FAIL("malloc");
    while (!atomic_load(&g_stop)) {
        zmq_pollitem_t item = {xpub, 0, ZMQ_POLLIN, 0};
        if (zmq_poll(&item, 1, 50) <= 0) continue;
        for (;;) {
            int size = zmq_recv(xpub, frame, frame_capacity, ZMQ_DONTWAIT);
            if (size == -1) break;
            if (size < 1 || size > frame_capacity) continue; /* not a subscription we make */
            int subscribe = frame[0] == 1;
            const char *body = frame + 1;
            size_t body_len = (size_t)size - 1;
            int is_snap = body_len >= sizeof snap_prefix - 1 && memcmp(body, snap_prefix, sizeof snap_prefix - 1) == 0;
            if (g_mode == SNAP4) {
                if (subscribe && is_snap) send_snapshot(xpub, "", 0, body, body_len);
            } else if (g_mode == BATCH) {
                int is_batch = body_len > sizeof batch_prefix - 1 && memcmp(body, batch_prefix, sizeof batch_prefix - 1) == 0;
                if (!subscribe || !is_batch) continue; /* the empty filter, or the command's removal */
                const char *first = memchr(body, 0, body_len), *end = body + body_len;
                if (!first) continue;
                /* Two passes: apply every entry, then answer every `+` under one momentary
                 * `$snap.` subscription of the pipe. */
                for (int pass = 0; pass < 2; pass++) {
                    if (pass == 1) CHECK(zmq_setsockopt(xpub, ZMQ_SUBSCRIBE, snap_prefix, sizeof snap_prefix - 1));
                    for (const char *cursor = first + 1; cursor < end;) {
                        char op = *cursor++;
                        const char *nul = memchr(cursor, 0, (size_t)(end - cursor));
                        if (!nul) break;
                        size_t topic_len = (size_t)(nul - cursor) + 1;
                        if (pass == 0) {
                            CHECK(zmq_setsockopt(xpub, op == '-' ? ZMQ_UNSUBSCRIBE : ZMQ_SUBSCRIBE, cursor, topic_len));
                        } else if (op == '+') {
                            send_snapshot(xpub, snap_prefix, sizeof snap_prefix - 1, cursor, topic_len);
                        }
                        cursor += topic_len;
                    }
                }
                CHECK(zmq_setsockopt(xpub, ZMQ_UNSUBSCRIBE, snap_prefix, sizeof snap_prefix - 1));
            } else if (!is_snap) {
                /* Manual: the (un)subscription applies to the pipe it came from (the last read). */
                CHECK(zmq_setsockopt(xpub, subscribe ? ZMQ_SUBSCRIBE : ZMQ_UNSUBSCRIBE, body, body_len));
                if (subscribe) {
                    CHECK(zmq_setsockopt(xpub, ZMQ_SUBSCRIBE, snap_prefix, sizeof snap_prefix - 1));
                    send_snapshot(xpub, snap_prefix, sizeof snap_prefix - 1, body, body_len);
                    CHECK(zmq_setsockopt(xpub, ZMQ_UNSUBSCRIBE, snap_prefix, sizeof snap_prefix - 1));
                }
            }
        }
    }
    free(frame);
    zmq_close(xpub);
    return NULL;
}

/* The follow's topic (`c.<index>.<round>\0`) and, for snap4, its snapshot request. */
static size_t topic_of(char *out, int index, long round) { return (size_t)sprintf(out, "c.%d.%ld", index, round) + 1; }
static size_t request_of(char *out, int index, long round)
{
    size_t tag = (size_t)sprintf(out, "$snap.1.%ld", round * 100000 + index) + 1;
    return tag + topic_of(out + tag, index, round);
}

/* batch: one command re-targeting every follow from `round - 1` to `round` (round 0: adds only),
 * subscribed then unsubscribed so the SUB keeps none of it. */
static void send_batch(void *sub, int follows, long round)
{
    static char command[1 << 20];
    size_t length = (size_t)sprintf(command, "%s%ld", batch_prefix, round) + 1;
    for (int index = 0; index < follows; index++) {
        if (round > 0) {
            command[length++] = '-';
            length += topic_of(command + length, index, round - 1);
        }
        command[length++] = '+';
        length += topic_of(command + length, index, round);
    }
    CHECK(zmq_setsockopt(sub, ZMQ_SUBSCRIBE, command, length));
    CHECK(zmq_setsockopt(sub, ZMQ_UNSUBSCRIBE, command, length));
}

static void change(void *sub, int option, int index, long round)
{
    char buffer[128];
    CHECK(zmq_setsockopt(sub, option, buffer, topic_of(buffer, index, round)));
    if (g_mode == SNAP4) CHECK(zmq_setsockopt(sub, option, buffer, request_of(buffer, index, round)));
}

/* Reads snapshots until every follow's answer of `round` came; answers of older rounds are dropped. */
static void await_round(void *sub, int follows, long round)
{
    char expected_suffix[32];
    int suffix_len = sprintf(expected_suffix, ".%ld", round);
    int got = 0;
    uint64_t deadline = now_ns() + 5000000000u;
    char frame[600];
    while (got < follows) {
        if (now_ns() > deadline) FAIL("round %ld: %d of %d snapshots within 5 s", round, got, follows);
        zmq_pollitem_t item = {sub, 0, ZMQ_POLLIN, 0};
        if (zmq_poll(&item, 1, 100) <= 0) continue;
        int size = zmq_recv(sub, frame, sizeof frame - 1, 0);
        int more = 0;
        size_t more_len = sizeof more;
        zmq_getsockopt(sub, ZMQ_RCVMORE, &more, &more_len);
        if (more) zmq_recv(sub, NULL, 0, 0);
        if (size <= 0 || size >= (int)sizeof frame) continue;
        frame[size] = 0;
        /* Every answer ends in "<topic>\0p 1 1" and the topic in ".<round>". */
        int end = size - 6;
        if (end < suffix_len || frame[end] != 0 || memcmp(frame + end - suffix_len, expected_suffix, suffix_len) != 0)
            continue;
        got++;
    }
}

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[1], "snap4") && strcmp(argv[1], "manual2") && strcmp(argv[1], "batch")))
        FAIL("usage: retarget <snap4|manual2|batch> <follows 1-10000> <seconds 0.1-60>");
    g_mode = !strcmp(argv[1], "snap4") ? SNAP4 : !strcmp(argv[1], "manual2") ? MANUAL2 : BATCH;
    int follows = atoi(argv[2]);
    double seconds = atof(argv[3]);
    if (follows < 1 || follows > 10000 || !(seconds >= 0.1 && seconds <= 60)) FAIL("follows 1-10000, seconds 0.1-60");

    void *context = zmq_ctx_new();
    pthread_t thread;
    void *publisher_context = zmq_ctx_new(); /* one context per side, as two nodes have */
    if (pthread_create(&thread, NULL, publisher, publisher_context)) FAIL("pthread_create");
    for (int wait = 0; !atomic_load(&g_ready); wait++) {
        if (wait > 5000) FAIL("the publisher never bound");
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
    void *sub = zmq_socket(context, ZMQ_SUB);
    set_int(sub, ZMQ_LINGER, 0);
    set_int(sub, ZMQ_SNDHWM, 0); /* a SUB's subscriptions beyond its send HWM are lost otherwise */
    set_int(sub, ZMQ_RCVHWM, 0);
    CHECK(zmq_connect(sub, g_endpoint));
    if (g_mode == MANUAL2) CHECK(zmq_setsockopt(sub, ZMQ_SUBSCRIBE, snap_prefix, sizeof snap_prefix - 1));
    if (g_mode == BATCH) {
        CHECK(zmq_setsockopt(sub, ZMQ_SUBSCRIBE, "", 0));
        send_batch(sub, follows, 0);
    } else {
        for (int index = 0; index < follows; index++) change(sub, ZMQ_SUBSCRIBE, index, 0);
    }
    await_round(sub, follows, 0);

    long round = 0;
    double cpu0 = cpu_seconds();
    uint64_t start = now_ns(), budget = (uint64_t)(seconds * 1e9);
    while (now_ns() - start < budget) {
        round++;
        if (g_mode == BATCH) {
            send_batch(sub, follows, round);
        } else {
            for (int index = 0; index < follows; index++) {
                change(sub, ZMQ_UNSUBSCRIBE, index, round - 1);
                change(sub, ZMQ_SUBSCRIBE, index, round);
            }
        }
        await_round(sub, follows, round);
    }
    double secs = (now_ns() - start) / 1e9, cpu = cpu_seconds() - cpu0;
    long changes = round * follows;
    printf("RETARGET mode=%s follows=%d rounds=%ld changes=%ld secs=%.3f changes_s=%.0f cpu_us_per_change=%.2f\n",
           argv[1], follows, round, changes, secs, changes / secs, changes ? 1e6 * cpu / changes : 0.0);
    atomic_store(&g_stop, 1);
    pthread_join(thread, NULL);
    zmq_close(sub);
    zmq_ctx_term(context);
    zmq_ctx_term(publisher_context);
    return 0;
}
