#!/usr/bin/env bash
# Runs the examples of README.md and docs/*.md against real nodes, so that each one works as
# written: a phase of deploy/test.sh (after the release build). Exits 1 when any example fails,
# naming the file and line.
#
#   deploy/docs-check.sh                  every marked example
#   deploy/docs-check.sh KIND|FILE:LINE…  only those (e.g. promql, README.md:52)
#   deploy/docs-check.sh --show …         also print what each session printed in this run, in
#                                         the example's form (to recapture one after a change)
#
# Marking: an HTML comment `<!-- check: KIND [ARGS] -->` on the line right before a fenced block
# (Markdown renders nothing for it). The kinds:
#
#   rexctl-session [nodes=N] [insecure]
#       Lines `$ COMMAND` each followed by what it prints (stdout and stderr together), and
#       `(exit N)` last when the command exits non-zero. Runs on a fresh `deploy/cluster.sh up N`
#       (3, secured unless `insecure`) in a directory of its own holding that cluster's .deploy/
#       and a link to deploy/: each command through bash, as written, with rexctl on PATH. The
#       output must match line for line, compared without what changes from run to run: ports,
#       durations, rates, sizes, incarnations (10 digits or more), clock times, pids, key
#       prefixes, the state directory's path; every other word and number must match (headers,
#       columns, row counts, statuses, counts). The exit status must match. A port the example
#       writes in a command stands for the endpoint an earlier output line showed with it (so the
#       whole block must be one capture: one port for two endpoints fails). A glob character
#       left unquoted in a command fails too (zsh refuses it).
#   cluster-file
#       A ```json cluster file. Every tcp://HOST:PORT in it is moved to 127.0.0.1 at a free port
#       below 32768 (an address off this machine cannot be bound here), and one node per entry
#       is started from it; the example fails when a node exits, or when rexctl does not show
#       every node reachable and seen alive by the others within 20 s. Without a
#       cluster-commands block after it, the commands are `rexnode --cluster cluster.json --id
#       ID` and `rexctl --cluster cluster.json nodes`.
#   cluster-commands
#       The block after a cluster-file: one line running rexnode (any path; its `--id` value is
#       replaced by each node's id) and one running rexctl, both naming cluster.json; `# …`
#       comments are dropped. They are the commands the cluster-file check runs.
#   prometheus-config
#       A ```yaml block that must be what `deploy/prometheus.sh config` writes for a 3-node
#       cluster, comments and ports aside.
#   promql
#       One PromQL query per line (`#` lines are comments). A real Prometheus (Debian's,
#       deploy/prometheus.sh) scrapes a 3-node cluster holding a follow, a recreated channel and
#       a refused control request; every query must evaluate, every metric it selects must have
#       series, and every label value it names (`=`, `!=`, each word of a `=~"a|b"`) must occur:
#       a matcher on a value no node emits never matches, or excludes nothing.
#   protocol-exchange
#       A ```json request of the control protocol, then `→ REPLY` lines (`→ with …: REPLY` is a
#       variant of the reply before it; `{…}` stands for any object; `→ …` is not compared). Sent
#       as written to n1 of a plain 3-node cluster over one DEALER (in file order, so a watch one
#       example starts is the one the next renews), n1 first given what the examples show (a feed
#       eu.prices, a follow prices of it that n2 feeds, recreated once); a later reply is a
#       watch's push, made by a change of n1's feed. Every member the example shows must be in
#       the reply with the same kind of value (string, number, object, array, null); booleans,
#       `v`, `id`, error codes and messages, and the counts of accepted/renewed/unwatched exactly.
#   skip NAME
#       An example the check cannot run; NAME must be one of the exceptions listed, each with its
#       reason, in EXCEPTIONS of deploy/lib/docs_check.py (none at present), and every exception
#       must be used.
#
#   targets
#       The module map: every target of Package.swift (under Sources/) must be named in it, and a
#       line `NAME → A, B  …` must list exactly NAME's dependencies, for every target that has any.
#
# An unmarked block that looks like one of these kinds (`$ rexctl`/`$ deploy/` lines, ```promql,
# a ```json with "nodes" or with "v": 1, a ```yaml scrape config) fails the check, so a new
# example is marked or exempted, never silently unchecked. Prose, the Swift sketches (their
# reducers elided with …), log excerpts and lists of commands are not examples this check runs.
#
# Everything started is stopped and its directory removed, also on failure. Needs the release
# build (built here when stale, as deploy/cluster.sh does) and Prometheus (ensure_prometheus).
set -euo pipefail
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$REPO_ROOT"

build_if_stale
prometheus=$(ensure_prometheus) || fatal "no prometheus binary: the promql examples need one"
PATH="$(dirname "$prometheus"):$PATH"
# Not `py` (-S): the protocol examples need python3-zmq from the system's site packages.
REPO_ROOT="$REPO_ROOT" BIN_DIR="$BIN_DIR" PATH="$PATH" "$PYTHON" "$DEPLOY_LIB_DIR/docs_check.py" "$@"
