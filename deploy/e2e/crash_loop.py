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
    p.add_argument("--big-restart", type=int, default=0, metavar="FOLLOWS",
                   help="instead of the loop: send FOLLOWS follows, kill -9, restart, time until they are back")
    p.add_argument("--max-restart-s", type=float, default=2.0)
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
    def __init__(self, args):
        self.args, self.proc = args, None
        self.endpoint = f"tcp://127.0.0.1:{args.control_port}"

    def start(self):
        log = open(self.args.log, "ab")
        self.proc = subprocess.Popen([
            self.args.rexnode, "--id", "crash", "--pub", f"tcp://127.0.0.1:{self.args.pub_port}",
            "--control", self.endpoint, "--data-dir", self.args.dir, "--log-level", "warning",
        ], stdout=log, stderr=log, stdin=subprocess.DEVNULL)
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

def read_state(ctx, node):
    reply = request(ctx, node.endpoint, "state", 5000)
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

def flood_follows(ctx, node, count, window):
    s = ctx.socket(zmq.DEALER)
    s.setsockopt(zmq.LINGER, 0)
    s.connect(node.endpoint)
    sent = answered = 0
    deadline = time.monotonic() + 120
    try:
        while answered < count:
            while sent < count and sent - answered < window:
                s.send(json.dumps({"v": 1, "id": sent, "op": "dispatch",
                                   "action": {"type": "follow", "name": f"big{sent}", "topic": f"big.t{sent % 1000}"}}).encode())
                sent += 1
            if time.monotonic() > deadline: raise SystemExit(f"FAIL: {answered} of {count} follows answered in 120 s")
            if not s.poll(1000): continue
            while True:
                try: reply = json.loads(s.recv_multipart(zmq.NOBLOCK)[-1])
                except zmq.Again: break
                if not reply.get("ok"): raise SystemExit(f"FAIL: follow refused: {reply}")
                answered += 1
    finally:
        s.close()

def big_restart(args, ctx, node):
    node.start(); wait_ready(ctx, node)
    t0 = time.monotonic()
    flood_follows(ctx, node, args.big_restart, args.window)
    print(f"{args.big_restart} follows accepted (durability batch) in {time.monotonic() - t0:.1f}s", flush=True)
    node.kill()
    t0 = time.monotonic()
    node.start(); wait_ready(ctx, node, deadline_s=30)
    ping_s = time.monotonic() - t0
    follows = len(read_state(ctx, node)[1])
    state_s = time.monotonic() - t0
    print(f"restart after kill -9 with {follows} follows: control endpoint answers after {ping_s:.2f}s "
          f"(state replayed before it opens); the state document read back after {state_s:.2f}s", flush=True)
    if follows != args.big_restart: raise SystemExit(f"FAIL: {follows} follows recovered of {args.big_restart}")
    if ping_s > args.max_restart_s: raise SystemExit(f"FAIL: restart took {ping_s:.2f}s (limit {args.max_restart_s}s)")
    print(f"OK: restart with {follows} follows in {ping_s:.2f}s (≤ {args.max_restart_s}s)", flush=True)

def main():
    args = parse()
    if args.big_restart:
        ctx, node = zmq.Context(), Node(args)
        try: big_restart(args, ctx, node)
        finally:
            node.kill(); ctx.destroy(linger=0)
        return
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    print(f"crash loop: {args.iterations} iterations, seed {seed}, window {args.window}", flush=True)
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
