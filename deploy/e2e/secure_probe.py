#!/usr/bin/env python3
"""Probes for the secured-cluster scenarios (deploy/e2e/tests/2x_secure_*.sh): a subscriber with
a key of its choosing (or none), and an impostor publisher on a dead node's port. Loopback only,
every loop bounded in time; prints one JSON summary line.

  secure_probe.py sub --pub EP [--key FILE] [--server-key Z85] [--seconds S]
  secure_probe.py impostor --bind EP --victim ID [--key FILE] [--seconds S] [--epoch E]
"""
import argparse
import json
import os
import time

import zmq
from keyfile import read_key




def loopback(endpoint):
    if not endpoint.startswith("tcp://127.0.0.1:") or int(endpoint.rsplit(":", 1)[1]) >= 32768:
        raise SystemExit("refusing %s: only tcp://127.0.0.1:PORT below 32768" % endpoint)
    return endpoint


def cmd_sub(args):
    ctx = zmq.Context.instance()
    sock = ctx.socket(zmq.SUB)
    sock.setsockopt(zmq.LINGER, 0)
    if args.key:
        public, secret = read_key(args.key)
        sock.curve_publickey, sock.curve_secretkey = public, secret
        sock.curve_serverkey = args.server_key.encode()
    sock.setsockopt(zmq.SUBSCRIBE, b"")
    sock.connect(loopback(args.pub))
    received = 0
    deadline = time.monotonic() + args.seconds
    while time.monotonic() < deadline:
        if sock.poll(50):
            while True:
                try:
                    sock.recv_multipart(zmq.NOBLOCK)
                    received += 1
                except zmq.Again:
                    break
    sock.close()
    print(json.dumps({"probe": "sub", "keyed": bool(args.key), "received": received}))


def cmd_impostor(args):
    ctx = zmq.Context.instance()
    sock = ctx.socket(zmq.XPUB)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.XPUB_VERBOSE, 1)
    if args.key:
        public, secret = read_key(args.key)
    else:
        public, secret = zmq.curve_keypair()
    sock.curve_server = True
    sock.curve_secretkey = secret
    endpoint = loopback(args.bind)
    deadline = time.monotonic() + 3.0
    while True:
        try:
            sock.bind(endpoint)
            break
        except zmq.ZMQError as error:
            if error.errno != zmq.EADDRINUSE or time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    subscriptions = sent = 0
    topic = args.topic.encode()
    deadline = time.monotonic() + args.seconds
    sequence = 1
    while time.monotonic() < deadline:
        head = topic + b"\0" + args.victim.encode() + b" " + str(args.epoch).encode() + b" " + str(sequence).encode()
        sock.send_multipart([head, b""])
        sent += 1
        sequence += 1
        if sock.poll(50):
            while True:
                try:
                    frame = sock.recv(zmq.NOBLOCK)
                    if frame[:1] == b"\x01":
                        subscriptions += 1
                except zmq.Again:
                    break
    sock.close()
    print(json.dumps({"probe": "impostor", "keyed": bool(args.key), "subscriptions": subscriptions, "sent": sent}))


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("sub")
    p.add_argument("--pub", required=True)
    p.add_argument("--key")
    p.add_argument("--server-key", default="")
    p.add_argument("--seconds", type=float, default=2.0)
    p = sub.add_parser("impostor")
    p.add_argument("--bind", required=True)
    p.add_argument("--victim", required=True)
    p.add_argument("--key")
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--epoch", type=int, default=1)
    p.add_argument("--topic", default="imp.forged", help="the topic of the forged messages")
    args = parser.parse_args()
    args.seconds = min(max(args.seconds, 0.1), 30.0)
    {"sub": cmd_sub, "impostor": cmd_impostor}[args.command](args)


if __name__ == "__main__":
    main()
