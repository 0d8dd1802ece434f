#!/usr/bin/python3
"""rogue.py — a hostile peer for the hostile scenarios of the end-to-end suite
(deploy/e2e/tests/*_hostile_*.sh). One subcommand per attack, plus the probes the scenarios
measure with (ping, rss-watch).

Run it with /usr/bin/python3 (it needs python3-zmq; the `python3` of a pyenv shim has no zmq).

Rules it keeps: every loop is bounded in count and in time; it binds only 127.0.0.1, on a random
free port below 32768 (REX_PORT_RANGE, default 17000-31999, never a port of the cluster file) or
on the exact endpoint it is given; it closes every socket (the context is destroyed on exit).

Data-plane wire format (docs/protocol.md): two frames, [topic NUL header, value], where the
header is "<sender> <epoch> <sequence>". --epoch sets the epoch the rogue claims (default 1).

On a secured cluster (its cluster file, $REXCTL_CLUSTER, has keys) the rogue plays with stolen
keys (README, "Security": what CURVE cannot prevent): its connections to a node's publisher use
the member key of $ROGUE_MEMBER (default n3), its control connections the operator key, and a
publisher bound on a member's own endpoint that member's key — all from keys/ beside the cluster
file. A rogue publisher on a port of its own cannot be added as a peer there.

Output: progress on stderr; one JSON summary line on stdout. Exit codes: 0 the attack was
delivered; 2 a control request got no reply where one was required; 3 a precondition failed
(the node never subscribed, or did not take the rogue's probe message);
64 usage.
"""

import argparse
import json
import os
import random
import sys
import time
from keyfile import read_key
import membership_wire

try:
    import zmq
except ImportError:  # pragma: no cover
    sys.stderr.write("rogue.py: no zmq module — install python3-zmq and run with /usr/bin/python3\n")
    sys.exit(64)

UINT64_MAX = 2**64 - 1
CTX = zmq.Context()
ARGS = None


def say(text):
    sys.stderr.write("      rogue: %s\n" % text)
    sys.stderr.flush()


def now():
    return time.monotonic()


class Precondition(Exception):
    """The attack could not be set up; exit 3 with this message."""


# --- wire format ---------------------------------------------------------------------------------


def wire_head(topic, sender, sequence, epoch=None):
    """The first frame: topic NUL sender epoch sequence; the sequence may be any decimal text."""
    topic = topic if isinstance(topic, bytes) else topic.encode()
    sender = sender if isinstance(sender, bytes) else sender.encode()
    seq = sequence if isinstance(sequence, bytes) else str(sequence).encode()
    ep = str(ARGS.epoch if epoch is None else epoch).encode()
    return topic + b"\0" + sender + b" " + ep + b" " + seq


# --- ports ---------------------------------------------------------------------------------------


def cluster_entries():
    try:
        with open(os.environ.get("REXCTL_CLUSTER", "")) as f:
            return json.load(f)["nodes"]
    except (OSError, ValueError, KeyError):
        return []




def key_dir():
    return os.path.join(os.path.dirname(os.path.abspath(os.environ.get("REXCTL_CLUSTER", "."))), "keys")


def secure_client(sock, endpoint):
    """On a secured cluster: CURVE to `endpoint` with the stolen key that gets in there."""
    for node in cluster_entries():
        if not node.get("key"):
            continue
        if endpoint == node.get("control"):
            public, secret = read_key(os.path.join(key_dir(), "operator.key"))
        elif endpoint == node.get("pub"):
            public, secret = read_key(os.path.join(key_dir(), os.environ.get("ROGUE_MEMBER", "n3") + ".key"))
        else:
            continue
        sock.curve_publickey, sock.curve_secretkey = public, secret
        sock.curve_serverkey = node["key"].encode()
        return


def secure_server(sock, endpoint):
    """On a secured cluster, a publisher on a member's own endpoint serves with its stolen key."""
    for node in cluster_entries():
        if node.get("key") and endpoint == node.get("pub"):
            sock.curve_server = True
            sock.curve_secretkey = read_key(os.path.join(key_dir(), node["id"] + ".key"))[1]
            return


def cluster_ports():
    path = os.environ.get("REXCTL_CLUSTER", "")
    ports = set()
    try:
        with open(path) as f:
            for node in json.load(f)["nodes"]:
                for key in ("pub", "control"):
                    if key in node:
                        ports.add(int(node[key].rsplit(":", 1)[1]))
    except (OSError, ValueError, KeyError):
        pass
    return ports


def bind_random(sock):
    """Binds tcp://127.0.0.1:PORT with PORT random in REX_PORT_RANGE (below 32768)."""
    low, high = (int(x) for x in os.environ.get("REX_PORT_RANGE", "17000-31999").split("-"))
    high = min(high, 32767)
    avoid = cluster_ports()
    for _ in range(200):
        port = random.randint(low, high)
        if port in avoid:
            continue
        endpoint = "tcp://127.0.0.1:%d" % port
        try:
            sock.bind(endpoint)
            return endpoint
        except zmq.ZMQError as error:
            if error.errno != zmq.EADDRINUSE:
                raise
    raise Precondition("no free port in %d-%d after 200 tries" % (low, high))


def bind_exact(sock, endpoint, seconds=3.0):
    if not endpoint.startswith("tcp://127.0.0.1:"):
        raise Precondition("refusing to bind %s: only tcp://127.0.0.1:PORT" % endpoint)
    port = int(endpoint.rsplit(":", 1)[1])
    if port >= 32768:
        raise Precondition("refusing to bind %s: the port is not below 32768" % endpoint)
    deadline = now() + seconds
    while True:
        try:
            sock.bind(endpoint)
            return endpoint
        except zmq.ZMQError as error:
            if error.errno != zmq.EADDRINUSE or now() > deadline:
                raise Precondition("cannot bind %s: %s" % (endpoint, error))
            time.sleep(0.05)


# --- control protocol ----------------------------------------------------------------------------


class Control:
    """A DEALER to a node's control ROUTER: JSON, one request → one reply, matched by id."""

    def __init__(self, endpoint, timeout=2.0):
        self.endpoint = endpoint
        self.timeout = timeout
        self.sock = CTX.socket(zmq.DEALER)
        self.sock.setsockopt(zmq.LINGER, 0)
        secure_client(self.sock, endpoint)
        self.sock.connect(endpoint)
        self.count = 0

    def next_id(self):
        self.count += 1
        return "rogue-%d-%d" % (os.getpid(), self.count)

    def request(self, op, timeout=None, **fields):
        """The reply document, or None when none came within the timeout."""
        rid = self.next_id()
        doc = dict(v=1, id=rid, op=op, **fields)
        self.sock.send(json.dumps(doc).encode())
        return self.await_reply(rid, self.timeout if timeout is None else timeout)

    def await_reply(self, rid, timeout):
        deadline = now() + timeout
        while True:
            left = deadline - now()
            if left <= 0 or not self.sock.poll(max(1, int(left * 1000))):
                return None
            frames = self.sock.recv_multipart()
            try:
                reply = json.loads(frames[-1])
            except ValueError:
                continue
            if isinstance(reply, dict) and reply.get("id") == rid:
                return reply

    def result(self, op, timeout=None, **fields):
        reply = self.request(op, timeout=timeout, **fields)
        if reply is None or not reply.get("ok"):
            return None
        return reply.get("result")

    def dispatch(self, action, required=True):
        reply = self.request("dispatch", action=action)
        if required and (reply is None or not reply.get("ok")):
            raise Precondition("dispatch %s to %s: %s" % (action.get("type"), self.endpoint,
                                                          "no reply" if reply is None else reply.get("error")))
        return reply

    def close(self):
        self.sock.close(0)


def dig(doc, *path):
    for key in path:
        if not isinstance(doc, dict) or key not in doc:
            return None
        doc = doc[key]
    return doc


def wait_until(seconds, predicate, interval=0.05):
    """Calls predicate until it returns a true value (returned) or seconds pass (None)."""
    deadline = now() + seconds
    while True:
        value = predicate()
        if value:
            return value
        if now() >= deadline:
            return None
        time.sleep(interval)


def wait_follow_prefix(control, name, prefix, seconds):
    """True when the follow's lastValue starts with `prefix` within `seconds`; False when not;
    None when the last state request got no reply."""
    deadline = now() + seconds
    while True:
        state = control.result("state", timeout=1.0)
        value = dig(state, "follows", name, "lastValue")
        if isinstance(value, str) and value.startswith(prefix):
            return True
        if state is None and now() >= deadline:
            return None
        if now() >= deadline:
            return False
        time.sleep(0.05)


def wait_follow_value(control, name, value, seconds):
    """Waits until the node's follow `name` holds `value`; gives up early when the node stops
    answering (two state requests in a row without a reply)."""
    deadline = now() + seconds
    silent = 0
    while True:
        state = control.result("state", timeout=1.0)
        silent = silent + 1 if state is None else 0
        if dig(state, "follows", name, "lastValue") == value:
            return True
        if now() >= deadline or silent >= 2:
            return False
        time.sleep(0.05)


# The metrics counters (messages.*) of what a node read off its SUB sockets: taken, or dropped
# for a reason; whichever of them the node reports.
READ_COUNTERS = ("received", "malformed", "oversized", "dropped", "rejected")


def received_total(control):
    """Every message the node read, taken or dropped (None when it does not answer)."""
    messages = dig(control.result("metrics"), "messages")
    if messages is None:
        return None
    return sum(int(messages[k]) for k in READ_COUNTERS if isinstance(messages.get(k), int))


def wait_received(control, target, seconds, stall=2.0):
    """Waits until the node counted `target` received messages, at most `seconds`, and gives up
    early once the count grew by less than 100 a second for `stall` seconds (the feeds of other
    peers may keep it moving slowly). Returns the last count seen (None: no answer)."""
    deadline = now() + seconds
    last = None
    window_start, window_total = now(), None
    while True:
        total = received_total(control)
        if total is not None and total >= target:
            return total
        if total is not None:
            last = total
            if window_total is None:
                window_start, window_total = now(), total
            elif now() - window_start >= stall:
                if total - window_total < 100 * stall:
                    return last
                window_start, window_total = now(), total
        if now() >= deadline:
            return last
        time.sleep(0.1)


# --- a rogue publisher, added to a node as a peer -------------------------------------------------


class RoguePublisher:
    """An XPUB the target node's SUB connects to: sees every subscription frame (XPUB_VERBOSE),
    blocks rather than drops on a full queue (XPUB_NODROP), bounded by a send timeout."""

    def __init__(self, bind=None, hwm=1000, send_timeout=5.0):
        self.sock = CTX.socket(zmq.XPUB)
        self.sock.setsockopt(zmq.XPUB_VERBOSE, 1)
        self.sock.setsockopt(zmq.XPUB_NODROP, 1)
        self.sock.setsockopt(zmq.SNDHWM, hwm)
        self.sock.setsockopt(zmq.SNDTIMEO, int(send_timeout * 1000))
        self.sock.setsockopt(zmq.LINGER, 2000)
        if bind:
            secure_server(self.sock, bind)
        self.endpoint = bind_exact(self.sock, bind) if bind else bind_random(self.sock)
        self.subscriptions = []
        self.sent = 0
        self.blocked = 0

    def read_subscriptions(self, timeout):
        if self.sock.poll(max(0, int(timeout * 1000))):
            while True:
                try:
                    frame = self.sock.recv(zmq.NOBLOCK)
                except zmq.Again:
                    break
                if frame[:1] == b"\x01":
                    self.subscriptions.append(frame[1:])

    def wait_subscribed(self, heads, seconds=5.0, count=1):
        """Waits until, for each head (a first frame), `count` subscriptions match it."""
        deadline = now() + seconds
        while True:
            if all(sum(1 for s in self.subscriptions if head.startswith(s)) >= count for head in heads):
                return True
            left = deadline - now()
            if left <= 0:
                return False
            self.read_subscriptions(min(left, 0.1))

    def send(self, head, value):
        try:
            self.sock.send_multipart([head, value])
            self.sent += 1
            return True
        except zmq.Again:
            self.blocked += 1
            return False

    def close(self):
        self.sock.close()  # its linger (2 s) lets queued messages go out


def parse_msg(text):
    seq, _, value = text.partition("=")
    if not seq.isdigit():
        raise SystemExit("rogue.py: --msg wants SEQUENCE=VALUE (got %r)" % text)
    return seq, value


# --- subcommands -----------------------------------------------------------------------------------


def cmd_ping(args):
    """Round trips of a control ping: passes when one of --tries is within --limit-ms; any missing
    reply fails at once (exit 2)."""
    control = Control(args.control, timeout=args.timeout_ms / 1000.0)
    samples, pid = [], None
    try:
        for attempt in range(args.tries):
            rid = control.next_id()
            started = time.perf_counter()
            control.sock.send(json.dumps({"v": 1, "id": rid, "op": "ping"}).encode())
            reply = control.await_reply(rid, args.timeout_ms / 1000.0)
            ms = (time.perf_counter() - started) * 1000.0
            if reply is None or not reply.get("ok"):
                print(json.dumps({"ok": False, "reply": False, "samples": samples,
                                  "error": "no reply within %d ms" % args.timeout_ms if reply is None
                                  else "error reply: %s" % reply.get("error")}))
                return 2
            pid = dig(reply, "result", "pid")
            samples.append(round(ms, 2))
            if ms <= args.limit_ms:
                break
            time.sleep(args.gap_ms / 1000.0)
        best = min(samples)
        print(json.dumps({"ok": best <= args.limit_ms, "reply": True, "ms": best, "pid": pid, "samples": samples}))
        return 0 if best <= args.limit_ms else 1
    finally:
        control.close()


def read_kib(pid, field):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def cmd_rss_watch(args):
    """Samples VmRSS of each --pid every --interval-ms and keeps the peak per pid (KiB) in --out
    (JSON, rewritten atomically); stops when --stop exists, every pid is gone, or after --max-seconds."""
    peaks = {str(p): 0 for p in args.pid}
    deadline = now() + args.max_seconds
    while now() < deadline and not (args.stop and os.path.exists(args.stop)):
        alive = 0
        for pid in args.pid:
            kib = read_kib(pid, "VmRSS")
            if kib is not None:
                alive += 1
                peaks[str(pid)] = max(peaks[str(pid)], kib)
        tmp = args.out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(peaks, f)
        os.replace(tmp, args.out)
        if alive == 0:
            break
        time.sleep(args.interval_ms / 1000.0)
    return 0


def cmd_request(args):
    """One control request (a JSON object with at least "op"); prints the reply document, exit 2
    when none came."""
    control = Control(args.control, timeout=args.timeout_ms / 1000.0)
    try:
        doc = json.loads(args.json)
        op = doc.pop("op")
        doc.pop("v", None)
        doc.pop("id", None)
        reply = control.request(op, **doc)
        print(json.dumps(reply if reply is not None else {"noReply": True}))
        return 0 if reply is not None else 2
    finally:
        control.close()


def attach(args, control, publisher, heads, count=1):
    """Adds the publisher as a peer of the node and waits until the node subscribed to every head."""
    control.dispatch({"type": "addPeer", "id": args.peer_id, "endpoint": publisher.endpoint})
    say("added as peer %s at %s of the node at %s" % (args.peer_id, publisher.endpoint, args.control))
    if not publisher.wait_subscribed(heads, seconds=5.0, count=count):
        raise Precondition("the node never subscribed at the rogue to %s within 5 s (seen: %s)"
                           % (", ".join(repr(h.split(b"\0")[0].decode()) for h in heads),
                              [s[:40] for s in publisher.subscriptions[:8]]))


def detach(args, control):
    reply = control.request("dispatch", timeout=0.5, action={"type": "removePeer", "id": args.peer_id})
    return bool(reply and reply.get("ok"))


def probe(args, control, publisher, name, topic, sender, seq):
    """Sends one well-formed message and waits until the node's follow took it: proves the node
    parses what the rogue sends, so what follows is really received."""
    value = "probe-%d-%d" % (os.getpid(), random.randint(0, 10**9))
    publisher.send(wire_head(topic, sender, seq), value.encode())
    if not wait_follow_value(control, name, value, 5.0):
        raise Precondition("the node's follow %s did not take the rogue's probe message" % name)
    say("probe taken: follows.%s.lastValue=%s" % (name, value))
    return value


def cmd_data(args):
    """A rogue publisher on a followed topic: the node follows --topic as --follow (and
    --topic.marker as --follow_marker), adds the rogue as a peer; the rogue sends a probe (sequence
    --probe-seq), then each --msg SEQ=VALUE, or the bulk of --senders / --count × --size, then a
    marker on the marker topic, waits until the node took the marker (so everything before it was
    processed), reports the follow, then sends --final SEQ=VALUE and checks it is taken."""
    control = Control(args.control)
    publisher = RoguePublisher(hwm=1000)
    summary = {"attack": "data", "epoch": ARGS.epoch}
    name, marker_name = args.follow, args.follow + "_marker"
    topic, marker_topic = args.topic, args.topic + ".marker"
    try:
        if args.prefix:
            control.dispatch({"type": "follow", "name": name, "topic": args.prefix + "*"})
        else:
            control.dispatch({"type": "follow", "name": name, "topic": topic})
        control.dispatch({"type": "follow", "name": marker_name, "topic": marker_topic})
        attach(args, control, publisher, [wire_head(topic, "x", 1), wire_head(marker_topic, "x", 1)])
        probe_value = probe(args, control, publisher, name, topic, args.sender, args.probe_seq)
        summary["probe"] = probe_value
        before = received_total(control) or 0
        started = now()
        expected = 0
        if args.senders:
            deadline = now() + args.max_seconds
            for i in range(args.senders):
                if not publisher.send(wire_head(topic, "sender%d" % i, 1), b"1") or now() > deadline:
                    break
                expected += 1
            say("sent %d messages from %d distinct senders in %.1f s" % (publisher.sent - 1, expected, now() - started))
        elif args.count:
            value = b"x" * args.size
            deadline = now() + args.max_seconds
            for i in range(args.count):
                if not publisher.send(wire_head(topic, args.sender, args.probe_seq + 1 + i), value) or now() > deadline:
                    break
                expected += 1
            say("sent %d × %d bytes (%.0f MB) in %.1f s" % (expected, args.size, expected * args.size / 1e6, now() - started))
        for text in args.msg:
            seq, value = parse_msg(text)
            publisher.send(wire_head(topic, args.sender, seq), value.encode())
            expected += 1
            say("sent %s sequence %s value %r" % (topic, seq, value))
        summary["sent"] = expected
        summary["blocked"] = publisher.blocked
        if expected > 1000:
            total = wait_received(control, before + expected, seconds=args.max_seconds, stall=3.0)
            summary["nodeReceived"] = None if total is None else total - before
            say("the node counted %s of them after %.1f s" % (summary["nodeReceived"], now() - started))
        # The marker is re-sent (a new sequence each time) until it is taken: a node that dropped
        # the rogue's connection for an oversized frame reconnects and subscribes again, and a
        # marker sent meanwhile goes nowhere.
        marker = "marker-%d" % random.randint(0, 10**9)
        took = False
        silent = 0
        marker_deadline = now() + args.marker_seconds
        for k in range(1, 1000):
            publisher.send(wire_head(marker_topic, "marker", k), ("%s-%d" % (marker, k)).encode())
            left = marker_deadline - now()
            if left <= 0:
                break
            taken = wait_follow_prefix(control, marker_name, marker, min(0.5, left))
            if taken:
                took = True
                break
            silent = silent + 1 if taken is None else 0
            if silent >= 2:  # the node stopped answering
                break
        summary["processed"] = bool(took)
        summary["processSeconds"] = round(now() - started, 2)
        say("marker %s after %.1f s" % ("taken" if took else "NOT taken", now() - started))
        state = control.result("state", timeout=5.0 if took else 1.0)
        follow = dig(state, "follows", name) or {}
        summary["follow"] = {k: follow.get(k) for k in ("lastValue", "lastSender", "count", "gaps")}
        value = summary["follow"]["lastValue"]
        if isinstance(value, str) and len(value) > 64:
            summary["follow"]["lastValue"] = "%s… (%d bytes)" % (value[:24], len(value.encode()))
        # What the follow remembers per sender: `senders` (with the epoch field), `lastSequence` before.
        remembered = follow.get("senders", follow.get("lastSequence")) or {}
        summary["senders"] = None if state is None else len(remembered)
        if args.final:
            seq, value = parse_msg(args.final)
            publisher.send(wire_head(topic, args.sender, seq), value.encode())
            summary["finalTaken"] = wait_follow_value(control, name, value, 3.0)
        summary["detached"] = detach(args, control)
        print(json.dumps(summary))
        return 0
    finally:
        publisher.close()
        control.close()


def cmd_takeover(args):
    """The dead-port takeover: binds the PUB port of a node that is down (--bind), waits until
    --subscribers survivors reconnected and subscribed to --topic, then forges data messages from
    the victim on it with the given --seqs (the first one a probe: each --verify node's follow
    --follow must take it)."""
    publisher = RoguePublisher(bind=args.bind)
    verifiers = [Control(endpoint) for endpoint in args.verify]
    topic = args.topic
    seqs = args.seqs.split(",")
    summary = {"attack": "takeover", "epoch": ARGS.epoch, "bound": publisher.endpoint}
    try:
        say("bound the dead node's port %s" % publisher.endpoint)
        if not publisher.wait_subscribed([wire_head(topic, args.victim, 1)], seconds=5.0, count=args.subscribers):
            raise Precondition("only %d of %d survivors subscribed to %s at %s within 5 s"
                               % (len(publisher.subscriptions), args.subscribers, topic, publisher.endpoint))
        say("%d survivors subscribed to %s at the rogue" % (args.subscribers, topic))

        def seen(control):
            return dig(control.result("state", timeout=1.0), "follows", args.follow, "count")

        before = [seen(c) for c in verifiers]
        publisher.send(wire_head(topic, args.victim, seqs[0]), b"")
        taken = [bool(wait_until(1.0, lambda: (lambda s: s is not None and s != was)(seen(control))))
                 for control, was in zip(verifiers, before)]
        summary["firstTaken"] = taken
        say("forged message %s sequence %s taken by %d of %d survivors" % (topic, seqs[0], sum(taken), len(taken)))
        for seq in seqs[1:]:
            publisher.send(wire_head(topic, args.victim, seq), b"")
            say("sent forged message %s sequence %s" % (topic, seq))
        time.sleep(0.3)
        summary["sent"] = len(seqs)
        print(json.dumps(summary))
        return 0
    finally:
        publisher.close()
        for control in verifiers:
            control.close()


def cmd_slow_sub(args):
    """A subscriber that never reads: SUB to --pub, subscribed to everything, tiny receive
    buffers; it reads one message (so the subscription is known to be in place), writes --ready,
    then sleeps until --stop exists or --seconds pass."""
    sock = CTX.socket(zmq.SUB)
    try:
        sock.setsockopt(zmq.RCVHWM, 1)
        sock.setsockopt(zmq.RCVBUF, 4096)
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.SUBSCRIBE, b"")
        secure_client(sock, args.pub)
        sock.connect(args.pub)
        if not sock.poll(5000):
            raise Precondition("no message from %s within 5 s" % args.pub)
        sock.recv_multipart()
        with open(args.ready, "w") as f:
            f.write("ready\n")
        say("subscribed to everything at %s and no longer reading" % args.pub)
        deadline = now() + args.seconds
        while now() < deadline and not os.path.exists(args.stop):
            time.sleep(0.05)
        print(json.dumps({"attack": "slow-sub", "seconds": round(args.seconds - (deadline - now()), 1)}))
        return 0
    finally:
        sock.close(0)


def pipelined(control, request, count, window, max_seconds):
    """Sends `request(i)` for i < count on the control DEALER with at most `window` replies
    outstanding, until every reply came, `max_seconds` passed, or no reply came for 5 s. Returns
    (sent, accepted, errors, unanswered, seconds)."""
    sent = accepted = errors = outstanding = 0
    started = now()
    deadline = started + max_seconds
    last_reply = now()
    while (sent < count or outstanding > 0) and now() < deadline:
        while sent < count and outstanding < window:
            control.sock.send(request(sent))
            sent += 1
            outstanding += 1
        if control.sock.poll(100):
            while True:
                try:
                    frames = control.sock.recv_multipart(zmq.NOBLOCK)
                except zmq.Again:
                    break
                outstanding -= 1
                last_reply = now()
                try:
                    ok = json.loads(frames[-1]).get("ok")
                except ValueError:
                    ok = False
                accepted += 1 if ok else 0
                errors += 0 if ok else 1
        elif now() - last_reply > 5.0:
            say("no reply for 5 s: giving up")
            break
    return sent, accepted, errors, outstanding, now() - started


def cmd_flood(args):
    """Pipelined control dispatches of `publish` actions with --size byte payloads, at most
    --window in flight on one DEALER, --count of them or until --max-seconds."""
    control = Control(args.control)
    payload = json.dumps("x" * args.size)
    template = ('{"v":1,"op":"dispatch","id":"%%s","action":{"type":"publish","topic":%s,"payload":%s}}'
                % (json.dumps(args.topic), payload))
    try:
        sent, accepted, errors, outstanding, seconds = pipelined(
            control, lambda i: (template % ("f%d" % i)).encode(), args.count, args.window, args.max_seconds)
        summary = {"attack": "flood", "sent": sent, "accepted": accepted, "errors": errors,
                   "unanswered": outstanding, "seconds": round(seconds, 2), "rate": round(accepted / max(seconds, 1e-9))}
        say("flood: %d publish dispatches of %d bytes, %d accepted, %d errors, %d unanswered, %.1f s"
            % (sent, args.size, accepted, errors, outstanding, seconds))
        print(json.dumps(summary))
        return 0
    finally:
        control.close()


def zmtp_connect(endpoint, socket_type=b"XSUB", timeout=5.0):
    """A plain TCP connection speaking ZMTP 3.0 (NULL mechanism) as a `socket_type` peer: the
    rogue's own libzmq would keep a copy of every subscription in a trie of its own (and a
    10 MB one overflows its stack), so big frames go out by hand."""
    import socket
    import struct
    host, port = endpoint[len("tcp://"):].rsplit(":", 1)
    if host != "127.0.0.1":
        raise Precondition("refusing to connect to %s: only 127.0.0.1" % endpoint)
    conn = socket.create_connection((host, int(port)), timeout=timeout)
    greeting = b"\xff" + b"\0" * 8 + b"\x7f" + b"\x03\x00" + b"NULL".ljust(20, b"\0") + b"\0" + b"\0" * 31
    conn.sendall(greeting)
    body = b"\x05READY" + bytes([len(b"Socket-Type")]) + b"Socket-Type" + struct.pack(">I", len(socket_type)) + socket_type
    conn.sendall(b"\x04" + bytes([len(body)]) + body)
    # The peer's greeting (64 bytes) and its READY command.
    received = b""
    deadline = now() + timeout
    while len(received) < 66 and now() < deadline:
        chunk = conn.recv(4096)
        if not chunk:
            raise Precondition("%s closed the connection during the ZMTP handshake" % endpoint)
        received += chunk
    if received[:1] != b"\xff" or len(received) < 66:
        raise Precondition("%s did not answer with a ZMTP greeting" % endpoint)
    return conn


def zmtp_send(conn, body):
    """One single-frame ZMTP message."""
    import struct
    if len(body) < 256:
        conn.sendall(b"\x00" + bytes([len(body)]) + body)
    else:
        conn.sendall(b"\x02" + struct.pack(">Q", len(body)) + body)


def xsub(pub):
    sock = CTX.socket(zmq.XSUB)
    sock.setsockopt(zmq.LINGER, 5000)
    sock.setsockopt(zmq.SNDHWM, 0)
    secure_client(sock, pub)
    sock.connect(pub)
    return sock


def cmd_big_sub(args):
    """One subscription frame of --size bytes (1 + prefix) sent as an XSUB peer to the node's
    XPUB (raw ZMTP), held for --hold seconds, then the connection is closed."""
    started = now()
    conn = zmtp_connect(args.pub)
    closed_by_node = False
    try:
        try:
            zmtp_send(conn, b"\x01" + b"s" * (args.size - 1))
            say("sent one %d-byte subscription frame to %s" % (args.size, args.pub))
        except OSError as error:
            closed_by_node = True
            say("the node closed the connection while the frame was sent (%s)" % error)
        deadline = now() + args.hold
        conn.settimeout(0.1)
        while now() < deadline and not closed_by_node:
            try:
                if conn.recv(65536) == b"":
                    closed_by_node = True
                    say("the node closed the connection")
            except OSError:
                pass
    finally:
        conn.close()
    print(json.dumps({"attack": "big-sub", "bytes": args.size, "closedByNode": closed_by_node,
                      "seconds": round(now() - started, 2)}))
    return 0


def cmd_sub_churn(args):
    """--bytes worth of subscribe/unsubscribe frame pairs for --prefix, from one XSUB."""
    sock = xsub(args.pub)
    sub, unsub = b"\x01" + args.prefix.encode(), b"\x00" + args.prefix.encode()
    pairs = max(1, args.bytes // (len(sub) + len(unsub)))
    started = now()
    try:
        deadline = now() + 10.0
        for i in range(pairs):
            if now() > deadline:
                break
            sock.send(sub)
            sock.send(unsub)
        say("sent %d subscribe/unsubscribe pairs for %r (%d bytes) to %s" % (pairs, args.prefix, pairs * (len(sub) + len(unsub)), args.pub))
        time.sleep(args.hold)
    finally:
        sock.close()
    print(json.dumps({"attack": "sub-churn", "pairs": pairs, "seconds": round(now() - started, 2)}))
    return 0


def cmd_big_request(args):
    """One control request of --size bytes: `ping` with a huge id (the reply would echo it), or a
    `set` whose value is that big (--kind set). Waits up to --wait seconds for any reply."""
    sock = CTX.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    secure_client(sock, args.control)
    sock.connect(args.control)
    started = now()
    try:
        if args.kind == "ping":
            head, tail = b'{"v":1,"op":"ping","id":"', b'"}'
        else:
            head = b'{"v":1,"id":"big-set","op":"dispatch","action":{"type":"set","topic":"big.value","value":"'
            tail = b'"}}'
        body = b"a" * max(0, args.size - len(head) - len(tail))
        request = head + body + tail
        del body
        sock.send(request, copy=False)
        say("sent one %d-byte %s request to %s" % (len(request), args.kind, args.control))
        del request
        reply = None
        if sock.poll(int(args.wait * 1000)):
            frames = sock.recv_multipart()
            raw = frames[-1]
            try:
                doc = json.loads(raw) if len(raw) < 1 << 20 else None
            except ValueError:
                doc = None
            reply = {"bytes": len(raw), "ok": doc.get("ok") if doc else None,
                     "error": dig(doc, "error", "code") if doc else None}
        seconds = now() - started
        say("reply: %s after %.1f s" % (reply, seconds))
        print(json.dumps({"attack": "big-request", "kind": args.kind, "bytes": args.size, "reply": reply,
                          "seconds": round(seconds, 2)}))
        return 0
    finally:
        sock.close(0)


def cmd_follows(args):
    """--count distinct follows (name hv<i>, topic hv.<i>) dispatched pipelined, --window in flight,
    until --max-seconds."""
    control = Control(args.control)

    def request(i):
        return json.dumps({"v": 1, "id": "h%d" % i, "op": "dispatch",
                           "action": {"type": "follow", "name": "hv%d" % i, "topic": "hv.%d" % i}}).encode()
    try:
        sent, accepted, _, outstanding, seconds = pipelined(control, request, args.count, args.window, args.max_seconds)
        say("%d follows sent, %d accepted, %d unanswered in %.1f s" % (sent, accepted, outstanding, seconds))
        print(json.dumps({"attack": "follows", "sent": sent, "accepted": accepted, "unanswered": outstanding,
                          "seconds": round(seconds, 2)}))
        return 0
    finally:
        control.close()


def membership_keys(sock, endpoint, key):
    """CURVE for a connection to a node's membership endpoint on a secured cluster: `stolen` (the
    member key of $ROGUE_MEMBER), `stranger` (a key pair of its own) or `plain` (no CURVE)."""
    for node in cluster_entries():
        if node.get("key") and endpoint == node.get("membership"):
            if key == "plain":
                return "plain"
            if key == "stranger":
                public, secret = zmq.curve_keypair()
            else:
                public, secret = read_key(os.path.join(key_dir(), os.environ.get("ROGUE_MEMBER", "n3") + ".key"))
            sock.curve_publickey, sock.curve_secretkey = public, secret
            sock.curve_serverkey = node["key"].encode()
            return key
    return "plain"


def cmd_membership(args):
    """Hostile bytes at a node's membership ROUTER (--endpoint) from a DEALER: each --send is one
    message — a malformed one by the reason a node counts it under (membership_wire.MALFORMED),
    `huge` (a frame over twice the limit: libzmq drops the connection), `three-frames`, or a
    well-formed forgery: `join-as:ID`, `ping-as:ID[:INCARNATION]`, `gossip:ID` (a message from
    --as that says ID is alive). On a secured cluster --key picks the CURVE identity."""
    sock = CTX.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 1000)
    sock.setsockopt(zmq.SNDHWM, 10000)
    sock.setsockopt(zmq.SNDTIMEO, 2000)
    curve = membership_keys(sock, args.endpoint, args.key)
    if not args.endpoint.startswith("tcp://127.0.0.1:") or int(args.endpoint.rsplit(":", 1)[1]) >= 32768:
        raise Precondition("refusing %s: only tcp://127.0.0.1:PORT below 32768" % args.endpoint)
    sent = []
    try:
        sock.connect(args.endpoint)
        for kind in args.send:
            name, _, rest = kind.partition(":")
            if name in membership_wire.MALFORMED:
                frames = [membership_wire.malformed(name, sender=args.as_id, address=args.address)]
            elif name == "huge":
                frames = [b"\0" * (4 * membership_wire.MAX_MESSAGE_BYTES)]
            elif name == "three-frames":
                frames = [b"\x01", b"\x02"]
            elif name == "join-as":
                frames = [membership_wire.message("join", rest, args.address, incarnation=1)]
            elif name == "ping-as":
                target, _, incarnation = rest.partition(":")
                frames = [membership_wire.message("ping", target, args.address, incarnation=int(incarnation or 1))]
            elif name == "gossip":
                stranger = membership_wire.update(rest, args.address, incarnation=1)
                frames = [membership_wire.message("gossip", args.as_id, args.address, gossip=[stranger])]
            else:
                raise SystemExit("rogue.py membership: unknown --send %r" % kind)
            try:
                sock.send_multipart(frames)
                sent.append(kind)
            except zmq.Again:
                say("send of %s timed out (no connection)" % kind)
        # Let libzmq hand the messages over (a refused handshake keeps them queued: dropped on close).
        time.sleep(min(max(args.settle, 0.0), 5.0))
        print(json.dumps({"attack": "membership", "endpoint": args.endpoint, "curve": curve, "sent": sent}))
        return 0
    finally:
        sock.close(0)


# --- command line ----------------------------------------------------------------------------------


def main(argv):
    global ARGS
    parser = argparse.ArgumentParser(prog="rogue.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--epoch", type=int, default=1, help="the epoch the rogue's data headers claim (default 1)")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("ping", help="control ping round trip")
    p.add_argument("--control", required=True)
    p.add_argument("--tries", type=int, default=5)
    p.add_argument("--limit-ms", type=float, default=100.0)
    p.add_argument("--timeout-ms", type=int, default=2000)
    p.add_argument("--gap-ms", type=int, default=100)
    p.set_defaults(run=cmd_ping)

    p = sub.add_parser("rss-watch", help="peak VmRSS of processes")
    p.add_argument("--pid", type=int, action="append", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--stop")
    p.add_argument("--interval-ms", type=int, default=50)
    p.add_argument("--max-seconds", type=float, default=300.0)
    p.set_defaults(run=cmd_rss_watch)

    p = sub.add_parser("request", help="one control request, the reply printed")
    p.add_argument("--control", required=True)
    p.add_argument("--json", required=True)
    p.add_argument("--timeout-ms", type=int, default=2000)
    p.set_defaults(run=cmd_request)

    p = sub.add_parser("data", help="a rogue publisher on a followed topic")
    p.add_argument("--control", required=True, help="the attacked node's control endpoint")
    p.add_argument("--pub", help="its PUB endpoint (for the wire-format hint)")
    p.add_argument("--peer-id", default="rogue")
    p.add_argument("--follow", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--prefix", help="follow this prefix (PREFIX*) instead of the exact topic")
    p.add_argument("--sender", default="rogue")
    p.add_argument("--probe-seq", type=int, default=1)
    p.add_argument("--msg", action="append", default=[], metavar="SEQ=VALUE")
    p.add_argument("--senders", type=int, default=0, help="then this many messages from distinct senders")
    p.add_argument("--count", type=int, default=0, help="then this many messages of --size bytes")
    p.add_argument("--size", type=int, default=100 * 1024)
    p.add_argument("--final", metavar="SEQ=VALUE")
    p.add_argument("--max-seconds", type=float, default=30.0)
    p.add_argument("--marker-seconds", type=float, default=5.0)
    p.set_defaults(run=cmd_data)

    p = sub.add_parser("takeover", help="forged data from a dead node's port")
    p.add_argument("--bind", required=True)
    p.add_argument("--victim", required=True)
    p.add_argument("--subscribers", type=int, default=2)
    p.add_argument("--verify", action="append", default=[])
    p.add_argument("--seqs", default="1,%d" % UINT64_MAX)
    p.add_argument("--topic", required=True, help="forge data on this topic")
    p.add_argument("--follow", required=True, help="the --verify nodes' follow of --topic (the probe)")
    p.set_defaults(run=cmd_takeover)

    p = sub.add_parser("slow-sub", help="a subscriber that never reads")
    p.add_argument("--pub", required=True)
    p.add_argument("--ready", required=True)
    p.add_argument("--stop", required=True)
    p.add_argument("--seconds", type=float, default=60.0)
    p.set_defaults(run=cmd_slow_sub)

    p = sub.add_parser("flood", help="pipelined publish dispatches over the control endpoint")
    p.add_argument("--control", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--size", type=int, default=10240)
    p.add_argument("--window", type=int, default=64)
    p.add_argument("--max-seconds", type=float, default=30.0)
    p.set_defaults(run=cmd_flood)

    p = sub.add_parser("big-sub", help="one huge subscription frame")
    p.add_argument("--pub", required=True)
    p.add_argument("--size", type=int, default=10 * 1000 * 1000)
    p.add_argument("--hold", type=float, default=1.0)
    p.set_defaults(run=cmd_big_sub)

    p = sub.add_parser("sub-churn", help="subscribe/unsubscribe pairs (replay amplification)")
    p.add_argument("--pub", required=True)
    p.add_argument("--prefix", required=True)
    p.add_argument("--bytes", type=int, default=40 * 1000)
    p.add_argument("--hold", type=float, default=1.0)
    p.set_defaults(run=cmd_sub_churn)

    p = sub.add_parser("big-request", help="one huge control request")
    p.add_argument("--control", required=True)
    p.add_argument("--size", type=int, default=300 * 1000 * 1000)
    p.add_argument("--kind", choices=("ping", "set"), default="ping")
    p.add_argument("--wait", type=float, default=15.0)
    p.set_defaults(run=cmd_big_request)

    p = sub.add_parser("follows", help="many follows, pipelined")
    p.add_argument("--control", required=True)
    p.add_argument("--count", type=int, default=100000)
    p.add_argument("--window", type=int, default=256)
    p.add_argument("--max-seconds", type=float, default=60.0)
    p.set_defaults(run=cmd_follows)

    p = sub.add_parser("membership", help="hostile bytes at a node's membership ROUTER")
    p.add_argument("--endpoint", required=True)
    p.add_argument("--send", action="append", required=True)
    p.add_argument("--key", choices=("stolen", "stranger", "plain"), default="stolen")
    p.add_argument("--as", dest="as_id", default="rogue", help="the sender id of malformed and gossip messages")
    p.add_argument("--address", default="tcp://127.0.0.1:1 tcp://127.0.0.1:2", help="the forged member's 'MEMBERSHIP PUB'")
    p.add_argument("--settle", type=float, default=0.5)
    p.set_defaults(run=cmd_membership)

    ARGS = parser.parse_args(argv)
    try:
        return ARGS.run(ARGS)
    except Precondition as problem:
        say("PRECONDITION FAILED: %s" % problem)
        print(json.dumps({"precondition": str(problem)}))
        return 3
    finally:
        CTX.destroy(linger=0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
