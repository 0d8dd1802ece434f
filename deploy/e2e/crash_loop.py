#!/usr/bin/env python3
"""Crash consistency of a node's durable state: kill -9 at a random moment, restart, compare.

Each iteration starts `rexnode --data-dir DIR` (same ports, same directory), streams a random load
of operator actions (set, unset, follow, unfollow over small key spaces, so later actions overwrite
earlier ones) through one pipelined DEALER connection, kills the process with SIGKILL after a
random delay, restarts it and reads its state. The check, every iteration:

    acknowledged ⊆ recovered ⊆ sent:  the recovered feeds and follows equal the fold of a prefix
    of the actions sent (in order, onto the state recovered before), and that prefix holds every
    action answered "accepted" with durability "batch".

Prints one line per iteration and a summary; exits 1 on the first violation (with the details).
Every wait is bounded; the node is always stopped on exit.
"""
import argparse, json, os, random, signal, subprocess, sys, time
import zmq

def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--rexnode", required=True)
    p.add_argument("--dir", required=True, help="data directory (created)")
    p.add_argument("--log", required=True)
    p.add_argument("--pub-port", type=int, required=True)
    p.add_argument("--control-port", type=int, required=True)
    p.add_argument("--iterations", type=int, default=50)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--window", type=int, default=256, help="requests in flight")
    p.add_argument("--max-kill-ms", type=int, default=400)
    p.add_argument("--compact-actions", type=int, default=0,
                   help="pass --compact-actions to the node (small: kills land in compactions too)")
    p.add_argument("--big-restart", type=int, default=0, metavar="FOLLOWS",
                   help="instead of the loop: start on a data dir holding FOLLOWS follows, time until they are back")
    p.add_argument("--max-restart-s", type=float, default=2.0,
                   help="bound on the node's own restart: process start to control endpoint open, state restored")
    p.add_argument("--max-ping-s", type=float, default=20.0,
                   help="bound on the first ping answered (after the engine's first reconcile of every follow)")
    p.add_argument("--max-live-s", type=float, default=60.0,
                   help="bound on every follow's channel live (process start to the last follow channel open)")
    p.add_argument("--metrics-cost", type=int, default=0, metavar="N",
                   help="with --big-restart: once every follow is live, time N metrics requests (the probe's own cost)")
    return p.parse_args()

def fold(state, action):
    feeds, follows = state
    t = action["type"]
    if t == "set": feeds[action["topic"]] = action["value"]
    elif t == "unset": feeds.pop(action["topic"], None)
    elif t == "follow": follows[action["name"]] = action["topic"]
    elif t == "unfollow": follows.pop(action["name"], None)

def copy(state): return (dict(state[0]), dict(state[1]))

def random_action(rng, n):
    kind = rng.random()
    if kind < 0.4: return {"type": "set", "topic": f"crash.k{rng.randrange(24)}", "value": f"v{n}"}
    if kind < 0.55: return {"type": "unset", "topic": f"crash.k{rng.randrange(24)}"}
    if kind < 0.85: return {"type": "follow", "name": f"f{rng.randrange(24)}", "topic": f"crash.t{n % 97}"}
    return {"type": "unfollow", "name": f"f{rng.randrange(24)}"}

class Node:
    def __init__(self, args, level="warning"):
        self.args, self.proc, self.level = args, None, level
        self.endpoint = f"tcp://127.0.0.1:{args.control_port}"

    def start(self):
        log = open(self.args.log, "ab")
        self.proc = subprocess.Popen([
            self.args.rexnode, "--id", "crash", "--pub", f"tcp://127.0.0.1:{self.args.pub_port}",
            "--control", self.endpoint, "--data-dir", self.args.dir, "--log-level", self.level,
        ] + (["--compact-actions", str(self.args.compact_actions)] if self.args.compact_actions else []),
            stdout=log, stderr=log, stdin=subprocess.DEVNULL)
        log.close()

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)
        self.proc = None

def request(ctx, endpoint, op, timeout_ms):
    s = ctx.socket(zmq.DEALER)
    s.setsockopt(zmq.LINGER, 0)
    s.connect(endpoint)
    try:
        s.send(json.dumps({"v": 1, "id": "q", "op": op}).encode())
        if s.poll(timeout_ms):
            return json.loads(s.recv_multipart()[-1])
        return None
    finally:
        s.close()

def wait_ready(ctx, node, deadline_s=10):
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if node.proc.poll() is not None:
            raise SystemExit(f"FAIL: rexnode exited with {node.proc.returncode} at start (see {node.args.log})")
        reply = request(ctx, node.endpoint, "ping", 200)
        if reply and reply.get("ok"): return
    raise SystemExit(f"FAIL: rexnode did not answer ping within {deadline_s}s")

def read_state(ctx, node, timeout_ms=5000):
    reply = request(ctx, node.endpoint, "state", timeout_ms)
    if not reply or not reply.get("ok"): raise SystemExit(f"FAIL: no state reply: {reply}")
    doc = reply["result"]
    return ({k: v["value"] for k, v in doc["feeds"].items()}, {k: v["topic"] for k, v in doc["follows"].items()})

def drive(ctx, node, rng, base_n, kill_after_s, window):
    """Sends random actions until the kill; returns (sent, acked indexes)."""
    s = ctx.socket(zmq.DEALER)
    s.setsockopt(zmq.LINGER, 0)
    s.setsockopt(zmq.SNDHWM, 100000)
    s.connect(node.endpoint)
    sent, acked, errors = [], set(), []
    inflight = 0
    kill_at = time.monotonic() + kill_after_s
    killed = False
    try:
        while True:
            now = time.monotonic()
            if not killed and now >= kill_at:
                node.kill()
                killed = True
                drain_until = now + 0.05
            if killed and time.monotonic() >= drain_until: break
            if not killed:
                while inflight < window:
                    action = random_action(rng, base_n + len(sent))
                    s.send(json.dumps({"v": 1, "id": len(sent), "op": "dispatch", "action": action}).encode())
                    sent.append(action)
                    inflight += 1
            timeout = max(0, int(((drain_until if killed else kill_at) - time.monotonic()) * 1000))
            if s.poll(min(timeout, 20)):
                while True:
                    try: frames = s.recv_multipart(zmq.NOBLOCK)
                    except zmq.Again: break
                    reply = json.loads(frames[-1])
                    inflight -= 1
                    if reply.get("ok") and reply["result"].get("accepted") and reply["result"].get("durability") == "batch":
                        acked.add(reply["id"])
                    else:
                        errors.append(reply)
    finally:
        s.close()
    return sent, acked, errors

def write_follows(directory, count):
    """A data directory holding COUNT follows in its journal, written in the format NodeJournal
    documents (batch rows of binary records, each row with a CRC-32 of its numbers and bytes):
    sending them through a node is bounded by its engine (each store batch reconciles every
    follow), not by the journal, and would take minutes."""
    import sqlite3, struct, zlib
    os.makedirs(directory, exist_ok=True)
    db = sqlite3.connect(os.path.join(directory, "node.db"))
    db.executescript("""
        PRAGMA journal_mode=WAL;
        CREATE TABLE meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);
        CREATE TABLE snapshot(chunk INTEGER PRIMARY KEY, payload BLOB NOT NULL, crc INTEGER NOT NULL);
        CREATE TABLE journal(batch INTEGER PRIMARY KEY, last_seq INTEGER NOT NULL, actions INTEGER NOT NULL,
                             payload BLOB NOT NULL, crc INTEGER NOT NULL);
        INSERT INTO meta VALUES ('format', 1), ('snapshot_seq', 0), ('snapshot_chunks', 0);
    """)
    def field(text):
        data = text.encode()
        return struct.pack("<I", len(data)) + data
    seq, batch = 0, 0
    while seq < count:
        n = min(1000, count - seq)
        payload = b"".join(b"\x03" + field(f"big{seq + i}") + field(f"big.t{(seq + i) % 1000}") for i in range(n))
        seq += n; batch += 1
        crc = zlib.crc32(payload, zlib.crc32(struct.pack("<QQQ", batch, seq, n)))
        db.execute("INSERT INTO journal VALUES (?, ?, ?, ?, ?)", (batch, seq, n, payload, crc))
    db.commit(); db.close()

def metrics_cost(args, ctx, node):
    """What one probe request costs: N metrics requests in a row (each bounded at 5 s), their
    median round trip and the node's CPU per request, from its own cpuSeconds."""
    times, cpu = [], []
    for _ in range(min(args.metrics_cost, 1000)):
        started = time.monotonic()
        reply = request(ctx, node.endpoint, "metrics", 5000)
        if not reply or not reply.get("ok"): raise SystemExit(f"FAIL: no metrics reply: {reply}")
        times.append(time.monotonic() - started)
        cpu.append(reply["result"]["process"]["cpuSeconds"])
    times.sort()
    per_request = (cpu[-1] - cpu[0]) / max(len(cpu) - 1, 1)
    print(f"probe cost: {len(times)} metrics requests with every follow live: round trip median "
          f"{times[len(times) // 2] * 1000:.1f} ms, node CPU {per_request * 1000:.1f} ms per request", flush=True)

def big_restart(args, ctx, node):
    write_follows(args.dir, args.big_restart)
    t0, t0_wall = time.monotonic(), time.time()
    node.start(); wait_ready(ctx, node, deadline_s=30)
    ping_s = time.monotonic() - t0
    # Restart completes when every follow's channel is live (a ping answered earlier is not it).
    live_s, live, cpu_s = None, 0, None
    while time.monotonic() - t0 < 60:
        reply = request(ctx, node.endpoint, "metrics", 5000)
        result = (reply or {}).get("result") or {}
        live = (result.get("channels") or {}).get("liveByKind", {}).get("follow", 0)
        if live >= args.big_restart:
            live_s = time.monotonic() - t0
            # The node's CPU time by then: less noisy than wall time on a shared machine.
            cpu_s = (result.get("process") or {}).get("cpuSeconds")
            break
        time.sleep(0.02)
    follows = len(read_state(ctx, node, 60000)[1])
    state_s = time.monotonic() - t0
    print(f"restart after kill -9 with {follows} follows: control endpoint answers after {ping_s:.2f}s "
          f"(state replayed before it opens); every follow live after "
          f"{'%.2fs' % live_s if live_s is not None else f'> 60 s ({live} live)'}; "
          f"the state document read back after {state_s:.2f}s"
          f"{'; node CPU by every follow live %.2fs' % cpu_s if cpu_s is not None else ''}", flush=True)
    if live_s is None: raise SystemExit(f"FAIL: {live} of {args.big_restart} follow channels live after 60 s")
    if args.metrics_cost > 0: metrics_cost(args, ctx, node)
    # The node's own account: recovery (read + fold) and the moment its control endpoint opened.
    import datetime
    stamps = {}
    for line in open(args.log, errors="replace"):
        for event in ("recovered", "started"):
            if f"event={event} " in line:
                stamps[event] = datetime.datetime.fromisoformat(line.split()[0].replace("Z", "+00:00")).timestamp()
                if event == "recovered": recovery_ms = line.split("elapsed_ms=")[1].split()[0]
    if "started" in stamps:
        print(f"node log: recovery {recovery_ms} ms; 'started' (state restored, store created, control endpoint "
              f"bound) {(stamps['started'] - t0_wall) * 1000:.0f} ms after the process was started", flush=True)
    if follows != args.big_restart: raise SystemExit(f"FAIL: {follows} follows recovered of {args.big_restart}")
    if "started" not in stamps: raise SystemExit(f"FAIL: no 'started' line in {args.log}")
    started_s = stamps["started"] - t0_wall
    if started_s > args.max_restart_s:
        raise SystemExit(f"FAIL: the node opened its control endpoint {started_s:.2f}s after start (limit {args.max_restart_s}s)")
    if ping_s > args.max_ping_s: raise SystemExit(f"FAIL: the first ping took {ping_s:.2f}s (limit {args.max_ping_s}s)")
    if live_s > args.max_live_s:
        raise SystemExit(f"FAIL: every follow live only after {live_s:.2f}s (limit {args.max_live_s}s; node CPU by then "
                         f"{cpu_s if cpu_s is not None else '?'}s: a figure far above the CPU means a loaded machine)")
    print(f"OK: restart with {follows} follows: state restored and control endpoint open in {started_s:.2f}s "
          f"(≤ {args.max_restart_s}s), first ping answered in {ping_s:.2f}s, every follow live in {live_s:.2f}s "
          f"(≤ {args.max_live_s}s)", flush=True)

def main():
    args = parse()
    if args.big_restart:
        ctx, node = zmq.Context(), Node(args, level="info")
        try: big_restart(args, ctx, node)
        finally:
            node.kill(); ctx.destroy(linger=0)
        return
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    print(f"crash loop: {args.iterations} iterations, seed {seed}, window {args.window}"
          + (f", a snapshot every {args.compact_actions} actions" if args.compact_actions else ""), flush=True)
    ctx = zmq.Context()
    node = Node(args)
    state = ({}, {})
    totals = {"sent": 0, "acked": 0, "recovered": 0}
    started = time.monotonic()
    try:
        node.start(); wait_ready(ctx, node)
        for iteration in range(1, args.iterations + 1):
            kill_after = rng.uniform(0.005, args.max_kill_ms / 1000)
            sent, acked, errors = drive(ctx, node, rng, totals["sent"], kill_after, args.window)
            if errors:
                raise SystemExit(f"FAIL iteration {iteration}: error replies before the kill: {errors[:3]}")
            node.start(); wait_ready(ctx, node)
            recovered = read_state(ctx, node)
            need = max(acked) + 1 if acked else 0
            folded = copy(state)
            for action in sent[:need]: fold(folded, action)
            prefix = None
            for p in range(need, len(sent) + 1):
                if p > need: fold(folded, sent[p - 1])
                if folded == recovered: prefix = p; break
            if prefix is None:
                raise SystemExit(f"FAIL iteration {iteration} (seed {seed}): the recovered state is no fold of a prefix of "
                                 f"the {len(sent)} actions sent that holds the {len(acked)} acknowledged (up to #{need - 1}).\n"
                                 f"recovered: {json.dumps(recovered, sort_keys=True)[:2000]}")
            print(f"  #{iteration:02d} kill after {kill_after * 1000:5.0f} ms: sent {len(sent):5d}  acknowledged {len(acked):5d}  "
                  f"recovered prefix {prefix:5d}  (feeds {len(recovered[0])}, follows {len(recovered[1])})", flush=True)
            totals["sent"] += len(sent); totals["acked"] += len(acked); totals["recovered"] += prefix
            state = recovered
    finally:
        node.kill()
        ctx.destroy(linger=0)
    print(f"OK: {args.iterations} kill -9 restarts in {time.monotonic() - started:.1f}s: {totals['sent']} actions sent, "
          f"{totals['acked']} acknowledged, {totals['recovered']} recovered; acknowledged ⊆ recovered ⊆ sent every time", flush=True)

if __name__ == "__main__":
    main()
