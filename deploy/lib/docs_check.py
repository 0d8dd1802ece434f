"""The engine of deploy/docs-check.sh: finds the marked examples in README.md and docs/*.md and
runs each against real nodes. The marking convention and the exceptions are documented at the
top of deploy/docs-check.sh; this file is only run by it (it needs the environment it sets up).

Standard library only (the system python, run with -S)."""

import glob
import json
import os
import random
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

REPO = os.environ["REPO_ROOT"]
BIN_DIR = os.environ["BIN_DIR"]
REXNODE = os.path.join(BIN_DIR, "rexnode")
REXCTL = os.path.join(BIN_DIR, "rexctl")
CLUSTER_SH = os.path.join(REPO, "deploy", "cluster.sh")
PROMETHEUS_SH = os.path.join(REPO, "deploy", "prometheus.sh")

# Examples the check cannot run: name → why. A block is exempted with `<!-- check: skip NAME -->`;
# a name used nowhere, or a skip with a name not listed here, fails the check.
EXCEPTIONS = {}

MARKER = re.compile(r"^\s*<!--\s*check:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")


class Block:
    """One fenced block: FILE, the line of its opening fence, its language, its lines (each
    with its line number) and the marker before it (kind and arguments), if any."""

    def __init__(self, path, line, lang, lines, marker):
        self.path, self.line, self.lang, self.lines, self.marker = path, line, lang, lines, marker

    @property
    def where(self):
        return "%s:%d" % (self.path, self.line)

    @property
    def kind(self):
        return self.marker[0] if self.marker else None

    @property
    def text(self):
        return "\n".join(text for _, text in self.lines)


def read_blocks(paths):
    blocks = []
    for path in paths:
        with open(os.path.join(REPO, path), encoding="utf-8") as f:
            lines = f.read().split("\n")
        marker, marker_line, i = None, 0, 0
        while i < len(lines):
            m = MARKER.match(lines[i])
            if m:
                marker, marker_line = m.group(1).split(), i + 1
                i += 1
                continue
            fence = FENCE.match(lines[i])
            if fence:
                indent, start = fence.group(1), i
                body = []
                i += 1
                while i < len(lines) and not re.match(r"^\s*```\s*$", lines[i]):
                    body.append((i + 1, lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].lstrip()))
                    i += 1
                blocks.append(Block(path, start + 1, fence.group(2), body, marker))
                marker = None
                i += 1
                continue
            if lines[i].strip() and marker:
                raise SystemExit("%s:%d: a check marker must stand right before a fenced block" % (path, marker_line))
            i += 1
    return blocks


def looks_checkable(block):
    """Which checked kind an unmarked block looks like, or None: so a new example of a checked
    kind cannot go unnoticed."""
    text = block.text
    if any(text_line.startswith("$ rexctl") or text_line.startswith("$ deploy/") for _, text_line in block.lines):
        return "rexctl-session"
    if block.lang == "promql":
        return "promql"
    if block.lang == "json" and re.search(r'"nodes"\s*:', text):
        return "cluster-file"
    if block.lang == "json" and re.search(r'"v"\s*:\s*1', text):
        return "protocol-exchange"
    if block.lang == "yaml" and "scrape_configs" in text:
        return "prometheus-config"
    return None


# --- failures ----------------------------------------------------------------------------------

failures = []


def fail(where, message):
    failures.append("%s: %s" % (where, message))
    print("FAIL %s: %s" % (where, message), file=sys.stderr, flush=True)


def note(message):
    print("    · %s" % message, file=sys.stderr, flush=True)


# --- processes and ports -----------------------------------------------------------------------


def command_env(root):
    env = {k: v for k, v in os.environ.items() if k not in ("REXCTL_CLUSTER", "REXCTL_KEY")}
    env["PATH"] = BIN_DIR + os.pathsep + env.get("PATH", "")
    env["REX_DEPLOY_DIR"] = os.path.join(root, ".deploy")
    env["NO_COLOR"] = "1"
    return env


def run(args, root, timeout=60, **kwargs):
    return subprocess.run(args, cwd=root, env=command_env(root), capture_output=True, text=True, timeout=timeout, **kwargs)


def free_ports(count):
    """COUNT distinct loopback ports below 32768 that nothing holds right now."""
    chosen = []
    for _ in range(2000):
        if len(chosen) == count:
            return chosen
        port = random.randint(17000, 31999)
        if port in chosen:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        chosen.append(port)
    raise SystemExit("no %d free loopback ports in 17000-31999" % count)


def processes_naming(path):
    """Live processes (not zombies) whose command line has the word PATH."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                words = f.read().split(b"\0")
            with open("/proc/%s/stat" % entry) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if path.encode() in words and state not in ("Z", "X"):
            found.append(int(entry))
    return found


class Cluster:
    """A cluster of `deploy/cluster.sh up N` in a directory of its own (its .deploy/ beside a
    link to deploy/, so commands written `deploy/cluster.sh …` run as written); `stop` takes
    down the nodes and any Prometheus, and removes the directory."""

    def __init__(self, nodes, options=()):
        self.root = tempfile.mkdtemp(prefix="rex-docs-check.")
        os.symlink(os.path.join(REPO, "deploy"), os.path.join(self.root, "deploy"))
        self.prometheus = False
        started = time.monotonic()
        try:
            result = run([CLUSTER_SH, "up", str(nodes), *options], self.root, timeout=120)
        except BaseException:  # a timeout, or SIGTERM/Ctrl-C while the nodes start
            self.stop()
            raise
        if result.returncode != 0:
            self.stop()
            raise RuntimeError("deploy/cluster.sh up %d failed:\n%s" % (nodes, result.stderr[-3000:]))
        note("cluster of %d up in %.1fs (%s)" % (nodes, time.monotonic() - started, self.root))

    @property
    def cluster_file(self):
        return os.path.join(self.root, ".deploy", "cluster.json")

    def start_prometheus(self, interval):
        self.prometheus = True  # `down` is safe when none runs, and stops one cut short
        result = run([PROMETHEUS_SH, "up", interval], self.root, timeout=60)
        if result.returncode != 0:
            raise RuntimeError("deploy/prometheus.sh up failed:\n%s" % result.stderr[-3000:])
        with open(os.path.join(self.root, ".deploy", "prometheus", "port")) as f:
            return "http://127.0.0.1:%s" % f.read().strip()

    def stop(self):
        if self.prometheus:
            result = run([PROMETHEUS_SH, "down"], self.root)
            if result.returncode != 0:
                fail("docs-check", "deploy/prometheus.sh down failed: %s" % result.stderr[-500:])
        if os.path.exists(os.path.join(self.root, ".deploy", "cluster.json")):
            result = run([CLUSTER_SH, "down"], self.root)
            if result.returncode != 0:
                fail("docs-check", "deploy/cluster.sh down failed: %s" % result.stderr[-500:])
        # A node whose start was cut short (SIGTERM during `up`) may have no pid file for `down`:
        # any process still naming this directory's cluster file is one started here.
        leftovers = processes_naming(os.path.join(self.root, ".deploy", "cluster.json"))
        for pid in leftovers:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        deadline = time.monotonic() + 5
        while processes_naming(os.path.join(self.root, ".deploy", "cluster.json")) and time.monotonic() < deadline:
            time.sleep(0.05)
        shutil.rmtree(self.root, ignore_errors=True)


# --- masking volatile figures ------------------------------------------------------------------

ENDPOINT = re.compile(r"(tcp://[^\s:/\"]+|\b127\.0\.0\.1):(\d{1,5})\b")
VOLATILE = [
    (re.compile(r"\S*/\.deploy/"), "<dir>/.deploy/"),
    (re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:ns|µs|us|ms|s|m|h)\b"), "<duration>"),
    (re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:/s)"), "<rate>"),
    (re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:B|KiB|MiB|GiB)\b"), "<size>"),
    (re.compile(r"\b\d{10,}\b"), "<large>"),  # incarnations, epochs
    (re.compile(r"\b\d\d:\d\d:\d\d\b"), "<time>"),
    (re.compile(r"\bpid \d+"), "pid <pid>"),
    (re.compile(r"\bkey [0-9A-Za-z.\-:+=^!/*?&<>()\[\]{}@%$#]{4,40}…"), "key <key>…"),
    (re.compile(r"(?<!\S)[0-9A-Za-z.\-:+=^!/*?&<>()\[\]{}@%$#]{40}(?!\S)"), "<z85-key>"),
    (re.compile(r"(?<![\w.])\d+\.\d+(?![\w.])"), "<decimal>"),  # rates per second, fractions
    # One refusal, two wordings: which one rexctl prints depends on the socket events it saw
    # before the node closed the plain connection (ConnectionEvents).
    (re.compile(r"closed every connection during the handshake: it likely requires CURVE"), "requires CURVE"),
]


def masked(line):
    line = ENDPOINT.sub(lambda m: m.group(1) + ":<port>", line)
    for pattern, replacement in VOLATILE:
        line = pattern.sub(replacement, line)
    return " ".join(line.split())


def masked_lines(lines):
    """Each line masked; and in a table whose header has an INCARNATION column, that column's
    number too: 0 while the peers' membership has reported no change of status for the node,
    its start time once one did (a suspicion on a loaded machine is enough), so it varies."""
    out, column = [], None
    for line in lines:
        words = line.split()
        if "INCARNATION" in words and line.strip() == line.strip().upper():
            column = words.index("INCARNATION")
        elif not words:
            column = None
        elif column is not None and len(words) > column and words[column].isdigit():
            words[column] = "<incarnation>"
            line = " ".join(words)
        out.append(masked(line))
    return out


def endpoint_ports(line):
    return [m.group(2) for m in ENDPOINT.finditer(line)]


# --- rexctl sessions ---------------------------------------------------------------------------


def unquoted_glob(command):
    """The first character of COMMAND that a shell would expand as a glob (outside quotes), or
    None. bash leaves a glob that matches nothing as it is; zsh stops with "no matches found"."""
    quote = None
    i = 0
    while i < len(command):
        c = command[i]
        if quote:
            if c == quote:
                quote = None
            elif c == "\\" and quote == '"':
                i += 1
        elif c in "'\"":
            quote = c
        elif c == "\\":
            i += 1
        elif c == "#" and (i == 0 or command[i - 1].isspace()):
            return None
        elif c in "*?[":
            return c
        i += 1
    return None


def parse_session(block):
    """The session's commands: (line, command, expected output lines, expected exit status)."""
    steps = []
    for number, text in block.lines:
        if text.startswith("$ "):
            steps.append([number, text[2:], [], 0])
        elif steps:
            steps[-1][2].append((number, text))
        elif text.strip():
            fail("%s:%d" % (block.path, number), "a session block starts with a `$ ` command")
    for step in steps:
        output = step[2]
        while output and not output[-1][1].strip():
            output.pop()
        if output:
            m = re.fullmatch(r"\(exit (\d+)\)", output[-1][1].strip())
            if m:
                step[3] = int(m.group(1))
                output.pop()
    return steps


def run_session(block, show):
    args = dict(arg.split("=", 1) for arg in block.marker[1:] if "=" in arg)
    nodes = int(args.get("nodes", "3"))
    options = ["--insecure"] if "insecure" in block.marker[1:] else []
    ports, doc_ports = {}, {}  # the document's port → this run's, and back
    cluster = Cluster(nodes, options)
    shown = []
    try:
        for number, command, expected, expected_status in parse_session(block):
            where = "%s:%d" % (block.path, number)
            glob_char = unquoted_glob(command)
            if glob_char:
                fail(where, "`%s` has an unquoted %s: zsh stops with \"no matches found\"; quote that word" % (command, glob_char))
            real_command = command
            for doc_port in sorted(set(endpoint_ports(command)), key=len, reverse=True):
                if doc_port not in ports:
                    fail(where, "`%s` names port %s, which no earlier output of the session showed" % (command, doc_port))
                    continue
                real_command = re.sub(r"(?<=:)%s\b" % doc_port, ports[doc_port], real_command)
            started = time.monotonic()
            try:
                result = subprocess.run(["bash", "-c", real_command], cwd=cluster.root, env=command_env(cluster.root),
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
                status, output = result.returncode, result.stdout
            except subprocess.TimeoutExpired:
                status, output = None, "(no end after 60 s)"
            actual = output.rstrip("\n").split("\n") if output.strip() else []
            shown.append("$ " + command)
            shown.extend(actual)
            if status != 0:
                shown.append("(exit %s)" % status)
            shown.append("")
            note("%s $ %s → exit %s in %.2fs" % (where, command, status, time.monotonic() - started))
            if status != expected_status:
                fail(where, "`%s` exited %s, the example says %d; it printed:\n%s" % (command, status, expected_status, output))
                continue
            if len(actual) != len(expected):
                fail(where, "`%s` printed %d lines, the example shows %d; it printed:\n%s"
                     % (command, len(actual), len(expected), output))
                continue
            for (line_number, want), got, want_masked, got_masked in zip(
                    expected, actual, masked_lines([text for _, text in expected]), masked_lines(actual)):
                if want_masked != got_masked:
                    fail("%s:%d" % (block.path, line_number),
                         "`%s` printed\n      %s\n    where the example shows\n      %s\n    (compared without ports, durations, rates, sizes, "
                         "incarnations, times and pids:\n      %s\n      %s)" % (command, got, want, got_masked, want_masked))
                    break
                for doc_port, real_port in zip(endpoint_ports(want), endpoint_ports(got)):
                    if ports.setdefault(doc_port, real_port) != real_port:
                        fail("%s:%d" % (block.path, line_number),
                             "port %s stands for two endpoints (%s and %s): the session mixes two captures"
                             % (doc_port, ports[doc_port], real_port))
                    if doc_ports.setdefault(real_port, doc_port) != doc_port:
                        fail("%s:%d" % (block.path, line_number),
                             "ports %s and %s stand for one endpoint: the session mixes two captures"
                             % (doc_ports[real_port], doc_port))
    finally:
        cluster.stop()
    if show:
        print("--- %s: this run's session ---" % block.where)
        print("\n".join(shown))


# --- cluster files -----------------------------------------------------------------------------


def rewrite_endpoints(document, mapping):
    """Every tcp://HOST:PORT in the document on 127.0.0.1 at a free port (one per distinct
    endpoint), recording the pairs in MAPPING."""
    if isinstance(document, dict):
        return {k: rewrite_endpoints(v, mapping) for k, v in document.items()}
    if isinstance(document, list):
        return [rewrite_endpoints(v, mapping) for v in document]
    if isinstance(document, str) and re.fullmatch(r"tcp://[^\s]+:\d{1,5}", document):
        if document not in mapping:
            mapping[document] = "tcp://127.0.0.1:%d" % free_ports(1)[0]
        return mapping[document]
    return document


def parse_cluster_commands(block, file_name):
    """From a cluster-commands block: the node's command (words, its `--id` value to be
    replaced per node) and rexctl's, each as written (comments dropped)."""
    node, ctl = None, None
    for number, text in block.lines:
        words = shlex.split(text, comments=True)
        if not words:
            continue
        program = os.path.basename(words[0])
        if program == "rexnode" and node is None:
            node = (number, words[1:])
        elif program == "rexctl" and ctl is None:
            ctl = (number, words[1:])
        else:
            fail("%s:%d" % (block.path, number), "a cluster-commands line runs rexnode or rexctl (once each), not `%s`" % text)
    if node is None or ctl is None:
        fail(block.where, "a cluster-commands block has one rexnode line and one rexctl line")
        return None
    if file_name not in node[1] or file_name not in ctl[1]:
        fail(block.where, "the commands do not name the cluster file the check writes (%s)" % file_name)
    if "--id" not in node[1]:
        fail("%s:%d" % (block.path, node[0]), "the rexnode line has no --id")
        return None
    return node, ctl


def run_cluster_file(block, commands):
    where = block.where
    try:
        document = json.loads(block.text)
    except ValueError as error:
        fail(where, "not JSON: %s" % error)
        return
    ids = [node.get("id") for node in document.get("nodes", []) if isinstance(node, dict)]
    if not ids or not all(isinstance(i, str) for i in ids):
        fail(where, "no node ids")
        return
    file_name = "cluster.json"
    if commands:
        parsed = parse_cluster_commands(commands, file_name)
        if parsed is None:
            return
        (node_line, node_args), (ctl_line, ctl_args) = parsed
    else:
        node_args, ctl_args = ["--cluster", file_name, "--id", ids[0]], ["--cluster", file_name, "nodes"]
        node_line = ctl_line = block.line
    root = tempfile.mkdtemp(prefix="rex-docs-check.")
    mapping = {}
    with open(os.path.join(root, file_name), "w") as f:
        json.dump(rewrite_endpoints(document, mapping), f)
    processes = []
    try:
        for node_id in ids:
            args = list(node_args)
            args[args.index("--id") + 1] = node_id
            log = open(os.path.join(root, node_id + ".log"), "w")
            processes.append((node_id, subprocess.Popen([REXNODE, *args], cwd=root, env=command_env(root),
                                                        stdout=log, stderr=subprocess.STDOUT, start_new_session=True)))
        note("%s: %d nodes from the file as written, endpoints moved to loopback: %s"
             % (where, len(ids), ", ".join("%s → %s" % pair for pair in sorted(mapping.items()))))
        deadline = time.monotonic() + 20
        last = ""
        while True:
            for node_id, process in processes:
                if process.poll() is not None:
                    with open(os.path.join(root, node_id + ".log")) as f:
                        log_text = f.read().strip()
                    fail("%s:%d" % (commands.path if commands else block.path, node_line),
                         "`rexnode %s` (node %s) exited %d: %s" % (" ".join(node_args), node_id, process.returncode, log_text[-1000:]))
                    return
            result = run([REXCTL, *ctl_args], root, timeout=30)
            last = result.stdout + result.stderr
            rows = [line.split() for line in result.stdout.split("\n")[1:] if line.strip()]
            if result.returncode == 0 and len(rows) == len(ids) and all("yes" in row and "alive" in row for row in rows):
                note("%s: every node reachable and seen alive by the others (`rexctl %s`)" % (where, " ".join(ctl_args)))
                return
            if time.monotonic() > deadline:
                fail("%s:%d" % (commands.path if commands else block.path, ctl_line),
                     "`rexctl %s` did not show every node reachable and alive within 20 s:\n%s" % (" ".join(ctl_args), last))
                return
            time.sleep(0.2)
    finally:
        for _, process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for _, process in processes:
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)
        shutil.rmtree(root, ignore_errors=True)


# --- Prometheus --------------------------------------------------------------------------------

SELECTOR_KEYWORDS = {"and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring", "group_left", "group_right"}
MATCHER = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"')


def selectors(expression):
    """The vector selectors of a PromQL expression: (metric name, [(label, op, value)])."""
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", expression)
    text = re.sub(r"\[[^\]]*\]", " ", text)
    found = []
    for m in re.finditer(r"(?<![\w.])([A-Za-z_:][A-Za-z0-9_:]*)\s*(\{[^}]*\})?", text):
        name, braces = m.group(1), m.group(2)
        if name in SELECTOR_KEYWORDS or (not braces and text[m.end():].lstrip().startswith("(")):
            continue
        found.append((name, MATCHER.findall(braces or "")))
    return found


def prometheus_get(base, path, params):
    url = base + path + "?" + urllib.parse.urlencode(params, doseq=True)
    with urllib.request.urlopen(url, timeout=10) as reply:
        return json.load(reply)


def check_promql(block, base):
    queries = [(n, t.strip()) for n, t in block.lines if t.strip() and not t.strip().startswith("#")]
    for number, query in queries:
        where = "%s:%d" % (block.path, number)
        try:
            reply = prometheus_get(base, "/api/v1/query", {"query": query})
        except Exception as error:  # an HTTP 400 carries the parse error
            body = getattr(error, "read", lambda: b"")().decode(errors="replace")
            fail(where, "Prometheus refused `%s`: %s %s" % (query, error, body[:500]))
            continue
        if reply.get("status") != "success":
            fail(where, "`%s`: %s" % (query, reply))
            continue
        problems = []
        for name, matchers in selectors(query):
            series = prometheus_get(base, "/api/v1/series", {"match[]": name}).get("data", [])
            if not series:
                problems.append("%s has no series in a scrape of a test cluster" % name)
                continue
            for label, op, value in matchers:
                present = sorted({s.get(label) for s in series if s.get(label) is not None})
                if op in ("=", "!="):
                    wanted = [value]
                elif re.fullmatch(r"[A-Za-z0-9_.\-]+(\|[A-Za-z0-9_.\-]+)*", value):
                    wanted = value.split("|")
                else:
                    if not any(re.fullmatch(value, v) for v in present):
                        problems.append("%s{%s%s\"%s\"} matches none of %s" % (name, label, op, value, present))
                    continue
                for v in wanted:
                    if v not in present:
                        problems.append("%s has no %s=\"%s\" (it has %s): `%s\"%s\"` %s" % (
                            name, label, v, ", ".join(present) or "none", label + op, value,
                            "excludes nothing" if op.startswith("!") else "never matches it"))
        if problems:
            fail(where, "`%s`: %s" % (query, "; ".join(problems)))
        else:
            note("%s: `%s` evaluates; its selectors match series (%d result%s now)"
                 % (where, query, len(reply["data"]["result"]), "" if len(reply["data"]["result"]) == 1 else "s"))


def check_prometheus_config(block, cluster):
    result = run([PROMETHEUS_SH, "config"], cluster.root)
    if result.returncode != 0:
        fail(block.where, "deploy/prometheus.sh config failed: %s" % result.stderr[-500:])
        return

    def lines(text):
        out = []
        for line in text.split("\n"):
            line = re.sub(r"\s+#.*$", "", line) if not line.lstrip().startswith("#") else ""
            if line.strip():
                out.append(masked(line))
        return out

    want, got = lines(block.text), lines(result.stdout)
    if want != got:
        fail(block.where, "`deploy/prometheus.sh config` writes (ports and comments aside)\n%s\nwhere the example shows\n%s"
             % ("\n".join(got), "\n".join(want)))
    else:
        note("%s: the same as `deploy/prometheus.sh config` (%d lines, ports aside)" % (block.where, len(got)))


def run_prometheus_checks(config_blocks, promql_blocks):
    cluster = Cluster(3)
    try:
        for block in config_blocks:
            check_prometheus_config(block, cluster)
        if not promql_blocks:
            return
        # Every channel kind live somewhere: a follow on n2 (the rest every node has).
        for command in (["send", "n1", "set", "eu.prices", "42"], ["send", "n2", "follow", "prices", "eu.prices", "--from", "n1"],
                        ["wait", "n2", "--for", "keep=follow[prices]", "--timeout", "5s"],
                        ["send", "n2", "follow", "prices", "eu.rates", "--from", "n1"],
                        ["send", "n1", "--json", '{"type":"frobnicate"}']):
            run([REXCTL, *command], cluster.root)
        base = cluster.start_prometheus("500ms")
        # Enough scrapes for rate() over any window: three after every target is up.
        deadline = time.monotonic() + 20
        while True:
            up = prometheus_get(base, "/api/v1/query", {"query": "count_over_time(up[1m]) >= 3"})["data"]["result"]
            if len(up) == 3:
                break
            if time.monotonic() > deadline:
                raise RuntimeError("Prometheus did not scrape every node three times within 20 s")
            time.sleep(0.25)
        for block in promql_blocks:
            check_promql(block, base)
    finally:
        cluster.stop()


# --- the control protocol's raw documents ----------------------------------------------------

ANY = "\u0000any"  # what `{…}` stands for in an example


def parse_exchange(block):
    """A protocol example: the request (one JSON object) and the replies shown after it, each
    starting with `→`: (line, reply, is a variant). `→ with …: {…}` is a variant of the reply
    before it (compared with the same reply); a reply of just `…` stands for more of the same and
    is not compared. `{…}` stands for any object."""
    request, replies, current = [], [], None
    for number, text in block.lines:
        stripped = text.strip()
        if stripped.startswith("→"):
            current = [number, stripped[1:].strip()]
            replies.append(current)
        elif current is not None:
            current[1] += "\n" + text
        else:
            request.append(text)

    def load(text, where):
        text = re.sub(r"^with [^:{]*:\s*", "", text.strip())
        text = text.replace("{…}", json.dumps(ANY))
        try:
            return json.loads(text)
        except ValueError as error:
            fail(where, "not JSON (after {…} → any): %s" % error)
            return None

    parsed_request = load("\n".join(request), block.where)
    parsed_replies = [(number, load(text, "%s:%d" % (block.path, number)), text.startswith("with "))
                      for number, text in replies if text.strip() != "…"]
    return parsed_request, parsed_replies


def shape_problems(doc, real, path="reply"):
    """How REAL differs from the example DOC: a member the example shows that the reply lacks,
    or holds a different kind of value; `ok`, `v`, `id`, and error codes and messages exactly."""
    if doc == ANY:
        return [] if isinstance(real, dict) else ["%s: an object, not %s" % (path, json.dumps(real)[:80])]
    if isinstance(doc, dict):
        if not isinstance(real, dict):
            return ["%s: an object in the example, %s in the reply" % (path, json.dumps(real)[:80])]
        problems = []
        for key, value in doc.items():
            if key not in real:
                problems.append("%s.%s: in the example, not in the reply (it has %s)" % (path, key, ", ".join(sorted(real)) or "nothing"))
            else:
                problems += shape_problems(value, real[key], "%s.%s" % (path, key))
        return problems
    if isinstance(doc, list):
        if not isinstance(real, list):
            return ["%s: an array in the example, %s in the reply" % (path, json.dumps(real)[:80])]
        if doc and not real:
            return ["%s: the example shows elements, the reply has none" % path]
        problems = []
        for index, element in enumerate(doc):
            # The element of the same id (channels) or event (history), else the first.
            match = real[0]
            for key in ("id", "event"):
                if isinstance(element, dict) and key in element:
                    match = next((r for r in real if isinstance(r, dict) and r.get(key) == element[key]), None)
                    if match is None:
                        return ["%s: no element with %s %s in the reply" % (path, key, json.dumps(element[key]))]
                    break
            problems += shape_problems(element, match, "%s[%d]" % (path, index))
        return problems
    exact = path.split(".")[-1] in ("v", "ok", "id", "code", "message", "accepted", "renewed", "unwatched")
    if isinstance(doc, bool) or exact:
        return [] if doc == real else ["%s: %s in the example, %s in the reply" % (path, json.dumps(doc), json.dumps(real))]
    kinds = {str: "a string", int: "a number", float: "a number", type(None): "null"}
    if kinds.get(type(doc)) != kinds.get(type(real)):
        return ["%s: %s in the example, %s in the reply" % (path, kinds.get(type(doc)), json.dumps(real)[:80])]
    return []


def run_protocol_checks(blocks):
    """Each example's request, sent as written to n1 of a plain 3-node cluster over one DEALER (so
    a watch started by one example is the one the next renews); n1 first holds what the examples
    show: a feed eu.prices, a follow prices of eu.prices that n2 feeds and that was recreated."""
    try:
        import zmq  # python3-zmq (deploy/lib/common.sh installs it)
    except ImportError:
        fail(blocks[0].where, "python3-zmq is missing: the protocol examples need it")
        return
    cluster = Cluster(3, ["--insecure"])
    context = zmq.Context()
    try:
        for command in (["send", "n2", "set", "eu.prices", "42"], ["send", "n1", "follow", "prices", "eu.old"],
                        ["wait", "n1", "--for", "keep=follow[prices]", "--timeout", "5s"],
                        ["send", "n1", "follow", "prices", "eu.prices"],
                        ["wait", "n1", "--for", "state=follows.prices.lastValue=42", "--timeout", "5s"]):
            result = run([REXCTL, *command], cluster.root)
            if result.returncode != 0:
                raise RuntimeError("setting up the protocol examples: rexctl %s: %s" % (" ".join(command), result.stderr))
        with open(cluster.cluster_file) as f:
            control = next(n["control"] for n in json.load(f)["nodes"] if n["id"] == "n1")
        socket_ = context.socket(zmq.DEALER)
        socket_.setsockopt(zmq.LINGER, 0)
        socket_.connect(control)

        def receive(where):
            if not socket_.poll(5000):
                fail(where, "no reply within 5 s")
                return None
            return json.loads(socket_.recv_multipart()[-1])

        for block in blocks:
            request, replies = parse_exchange(block)
            if request is None or any(reply is None for _, reply, _ in replies):
                continue
            socket_.send(json.dumps(request).encode())
            real = None
            for index, (number, doc, variant) in enumerate(replies or [(block.line, {"v": 1, "ok": True}, False)]):
                where = "%s:%d" % (block.path, number)
                if not variant:
                    if index > 0:
                        # A later reply is a watch's push: a change of the state alone (a feed's
                        # value; its channel stays) makes one.
                        run([REXCTL, "send", "n1", "set", "eu.prices", "v%d" % index], cluster.root)
                    real = receive(where)
                if real is None:
                    break
                problems = shape_problems(doc, real)
                if problems:
                    fail(where, "the reply to %s differs from the example: %s\n    reply: %s"
                         % (json.dumps(request), "; ".join(problems[:6]), json.dumps(real)[:1500]))
                else:
                    note("%s: the reply to %s has every member the example shows" % (where, json.dumps(request)[:80]))
        socket_.close()
    finally:
        context.term()
        cluster.stop()


# --- the module map ------------------------------------------------------------------------


def package_targets():
    """Package.swift's targets under Sources/ (tests and test support aside): name → its
    dependencies."""
    with open(os.path.join(REPO, "Package.swift"), encoding="utf-8") as f:
        manifest = f.read()
    targets = {}
    for m in re.finditer(r'\.(?:target|executableTarget|systemLibrary)\(\s*name:\s*"(\w+)"(?:,\s*dependencies:\s*\[([^\]]*)\])?', manifest):
        name, deps = m.group(1), m.group(2) or ""
        if not os.path.isdir(os.path.join(REPO, "Sources", name)):
            continue
        words = [d.strip() for d in deps.split(",") if d.strip()]
        if not all(re.fullmatch(r'"\w+"', d) for d in words):
            raise RuntimeError("Package.swift: %s's dependencies are not plain target names: %s" % (name, deps))
        targets[name] = {d.strip('"') for d in words}
    if not targets:
        raise RuntimeError("no target found in Package.swift")
    return targets


def check_targets(block):
    """Every target of Package.swift is named in the block, and a line `NAME → A, B  …` gives
    exactly NAME's dependencies; every target with dependencies has such a line."""
    targets = package_targets()
    text = block.text
    for name in sorted(targets):
        if not re.search(r"(?<![\w.])%s(?![\w])" % re.escape(name), text):
            fail(block.where, "target %s (Package.swift) is not in the module map" % name)
    described = set()
    for number, line in block.lines:
        m = re.match(r"^\s*(\w+)\s*→\s*(\w+(?:,\s*\w+)*)", line)
        if not m:
            continue
        name, deps = m.group(1), {d.strip() for d in m.group(2).split(",")}
        described.add(name)
        if name not in targets:
            fail("%s:%d" % (block.path, number), "%s is not a target of Package.swift" % name)
        elif deps != targets[name]:
            fail("%s:%d" % (block.path, number), "%s depends on %s in Package.swift, not %s"
                 % (name, ", ".join(sorted(targets[name])), ", ".join(sorted(deps))))
    for name in sorted(n for n, deps in targets.items() if deps and n not in described):
        fail(block.where, "no line `%s → …` gives %s's dependencies (%s)" % (name, name, ", ".join(sorted(targets[name]))))
    note("%s: the module map names the %d targets of Package.swift and their dependencies" % (block.where, len(targets)))


# --- main --------------------------------------------------------------------------------------


def main():
    # A SIGTERM unwinds like Ctrl-C, so every cluster started so far is stopped (finally blocks).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    show = "--show" in sys.argv[1:]
    only = [a for a in sys.argv[1:] if not a.startswith("-")]
    started = time.monotonic()
    paths = ["README.md"] + sorted(os.path.relpath(p, REPO) for p in glob.glob(os.path.join(REPO, "docs", "*.md")))
    blocks = read_blocks(paths)
    kinds = {"rexctl-session", "cluster-file", "cluster-commands", "promql", "prometheus-config", "targets", "protocol-exchange",
             "skip"}
    used_exceptions = set()
    for block in blocks:
        if block.kind is None:
            looks = looks_checkable(block)
            if looks:
                fail(block.where, "an unmarked %s example: mark it (<!-- check: %s -->) or exempt it (<!-- check: skip NAME -->)"
                     % (looks, looks))
        elif block.kind not in kinds:
            fail(block.where, "unknown check kind '%s' (known: %s)" % (block.kind, ", ".join(sorted(kinds))))
        elif block.kind == "skip":
            name = block.marker[1] if len(block.marker) > 1 else ""
            if name not in EXCEPTIONS:
                fail(block.where, "skip '%s' is not among the exceptions of deploy/lib/docs_check.py" % name)
            used_exceptions.add(name)
    if not only:
        for name in sorted(set(EXCEPTIONS) - used_exceptions):
            fail("deploy/lib/docs_check.py", "exception '%s' exempts no block: remove it" % name)

    def wanted(block):
        return not only or block.kind in only or block.where in only

    counts = {}
    for index, block in enumerate(blocks):
        if block.kind == "cluster-commands":
            previous = blocks[index - 1] if index else None
            if not previous or previous.kind != "cluster-file" or previous.path != block.path:
                fail(block.where, "a cluster-commands block follows the cluster-file block it starts")
    try:
        for index, block in enumerate(blocks):
            if not wanted(block):
                continue
            if block.kind == "targets":
                check_targets(block)
            elif block.kind == "rexctl-session":
                note("%s: rexctl session" % block.where)
                run_session(block, show)
            elif block.kind == "cluster-file":
                following = blocks[index + 1] if index + 1 < len(blocks) else None
                commands = following if following and following.kind == "cluster-commands" and following.path == block.path else None
                run_cluster_file(block, commands)
            else:
                continue
            counts[block.kind] = counts.get(block.kind, 0) + 1
        exchange_blocks = [b for b in blocks if b.kind == "protocol-exchange" and wanted(b)]
        if exchange_blocks:
            run_protocol_checks(exchange_blocks)
            counts["protocol-exchange"] = len(exchange_blocks)
        config_blocks = [b for b in blocks if b.kind == "prometheus-config" and wanted(b)]
        promql_blocks = [b for b in blocks if b.kind == "promql" and wanted(b)]
        if config_blocks or promql_blocks:
            run_prometheus_checks(config_blocks, promql_blocks)
            counts["prometheus-config"] = len(config_blocks)
            counts["promql"] = sum(len([1 for _, t in b.lines if t.strip() and not t.strip().startswith("#")]) for b in promql_blocks)
    except RuntimeError as error:
        fail("docs-check", str(error))
    skipped = [b for b in blocks if b.kind == "skip"]
    summary = ", ".join("%d %s" % (n, k + (" queries" if k == "promql" else " blocks")) for k, n in sorted(counts.items()))
    print("docs-check: %s; %d exempt (%s); %.0fs" % (summary or "nothing run", len(skipped),
          ", ".join(sorted({b.marker[1] for b in skipped if len(b.marker) > 1})) or "none", time.monotonic() - started),
          file=sys.stderr)
    if failures:
        print("docs-check: %d failure%s:" % (len(failures), "" if len(failures) == 1 else "s"), file=sys.stderr)
        for failure in failures:
            print("  " + failure.split("\n")[0], file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
