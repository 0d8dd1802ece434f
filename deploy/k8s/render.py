#!/usr/bin/env python3
"""The cluster's Kubernetes manifests, from one template rendered two ways.

  render.py kubernetes [--replicas N] [--image IMAGE]
      The set shipped for Kubernetes (deploy/k8s/rexnode.yaml is its output with the defaults):
      ConfigMap rexnode-settings, headless Service rexnode (publishNotReadyAddresses), StatefulSet
      rexnode (a volume claim per member for --data-dir), PodDisruptionBudget rexnode.
  render.py cluster --keys DIR [--replicas N]
      What the set needs from the keys in DIR (rexctl keygen DIR/rexnode-0.key …, DIR/operator.key,
      and DIR/viewer.key if there): ConfigMap rexnode-cluster (cluster.json with every member's
      DNS name and public key, operators.json) and Secret rexnode-keys (the members' key files).
  render.py podman --keys DIR --secret-dir DIR3 --out DIR2 --image IMAGE --host-ports P,P,… [--replicas N]
      The same members as one `kind: Pod` each, for podman 4.3's `kube play` (no StatefulSet or
      Service there, and a Secret volume crashes it): DIR2/configmap-settings.yaml and
      configmap-cluster.yaml (kube play --configmap reads one document a file), DIR2/rexnode-I.yaml; the keys are a hostPath (DIR3: the members' key files, which the caller
      makes root:65532, mode 0440 — what a non-root pod sees of the Secret), the claim
      data-rexnode-I a podman named volume, and the ports published on 127.0.0.1 (4 per member,
      pub, control, membership, metrics of rexnode-0, then of rexnode-1, …).
  render.py check [--file deploy/k8s/rexnode.yaml]
      That the file is what `kubernetes` renders, and that both renderings carry the same
      container (its spec identical but for the host ports of the local one), the same pod
      labels, annotations and security context, and the same volume names.

Both renderings take the container from container_spec() and the pod's common fields from
pod_common(): the one CI plays cannot drift from the one shipped. Standard library only; YAML is
written by emit() (strings quoted where YAML could misread them).
"""

import argparse
import base64
import copy
import json
import os
import re
import sys

NAME = "rexnode"
LABELS = {"app.kubernetes.io/name": NAME}
PORTS = [("pub", 7101), ("control", 7201), ("membership", 7301), ("metrics", 9101)]
UID = 65532
DEFAULT_IMAGE = "localhost/rexnode:latest-shared"
DEFAULT_REPLICAS = 3
MAX_REPLICAS = 64
CLUSTER_DIR = "/etc/rexnode/cluster"
KEYS_DIR = "/etc/rexnode/keys"
SETTINGS = {
    # Every member runs the same protocol period (README, "Membership").
    "REX_PROTOCOL_PERIOD": "100",
    "REX_DURABILITY": "batch",
    "REX_LOG_LEVEL": "info",
    "REX_LOG_FORMAT": "json",
}


def member(index):
    return "%s-%d" % (NAME, index)


def dns_name(member_name):
    """A member's name as its peers dial it: POD.SERVICE, which resolves within the namespace
    (the pod's resolv.conf searches NAMESPACE.svc.cluster.local) and, locally, is the pod's
    network alias."""
    return "%s.%s" % (member_name, NAME)


# --- the template ------------------------------------------------------------------------------


def container_spec(image):
    """The one container of every member, in both renderings."""
    args = [
        "--cluster", CLUSTER_DIR + "/cluster.json", "--operators", CLUSTER_DIR + "/operators.json",
        "--id", "$(POD_NAME)", "--key", KEYS_DIR + "/$(POD_NAME).key",
        "--pub", "tcp://0.0.0.0:7101", "--control", "tcp://0.0.0.0:7201",
        "--membership", "tcp://0.0.0.0:7301", "--metrics", "tcp://0.0.0.0:9101",
        "--advertise", "$(POD_NAME)." + NAME,
        "--data-dir", "/data", "--durability", "$(REX_DURABILITY)",
        "--protocol-period", "$(REX_PROTOCOL_PERIOD)",
        "--log-level", "$(REX_LOG_LEVEL)", "--log-format", "$(REX_LOG_FORMAT)",
    ]
    return {
        "name": NAME,
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "args": args,
        "env": [{"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
        "envFrom": [{"configMapRef": {"name": NAME + "-settings"}}],
        "ports": [{"name": name, "containerPort": port, "protocol": "TCP"} for name, port in PORTS],
        # Ready once joined and the journal is sound (what the rolling update waits for); live
        # while the reactor turns.
        "readinessProbe": {
            "httpGet": {"path": "/readyz", "port": "metrics"},
            "periodSeconds": 2, "failureThreshold": 2, "timeoutSeconds": 1,
        },
        "livenessProbe": {
            "httpGet": {"path": "/healthz", "port": "metrics"},
            "initialDelaySeconds": 10, "periodSeconds": 10, "failureThreshold": 3, "timeoutSeconds": 2,
        },
        # An idle member holds about 28 MiB (README, "Metrics"); the limit leaves room for queues.
        "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}, "limits": {"memory": "512Mi"}},
        "securityContext": {
            "runAsNonRoot": True, "runAsUser": UID, "runAsGroup": UID,
            "readOnlyRootFilesystem": True, "allowPrivilegeEscalation": False,
            "capabilities": {"drop": ["ALL"]},
        },
        "volumeMounts": [
            {"name": "data", "mountPath": "/data"},
            {"name": "cluster", "mountPath": CLUSTER_DIR, "readOnly": True},
            {"name": "keys", "mountPath": KEYS_DIR, "readOnly": True},
        ],
    }


def pod_common():
    """The pod fields both renderings share."""
    return {
        "labels": dict(LABELS),
        "annotations": {"prometheus.io/scrape": "true", "prometheus.io/port": "9101", "prometheus.io/path": "/metrics"},
        "securityContext": {
            "runAsNonRoot": True, "runAsUser": UID, "runAsGroup": UID,
            # The Secret's files: root's, group UID, mode 0440 (defaultMode below).
            "fsGroup": UID, "seccompProfile": {"type": "RuntimeDefault"},
        },
        # SIGTERM: the node tells its members it left and exits (tens of ms); SIGKILL after this.
        "terminationGracePeriodSeconds": 30,
        # libzmq resolves a peer's name on its I/O thread, which every socket of the node shares:
        # a DNS query left unanswered (a DNS server reloading as pods come and go; the lost UDP
        # replies of conntrack races) would hold it for glibc's 5 s default, long enough for the
        # membership to declare live members dead. One second and one try per server (libzmq
        # retries the connect itself).
        "dnsConfig": {"options": [{"name": "timeout", "value": "1"}, {"name": "attempts", "value": "1"}]},
    }


def settings_config_map():
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": NAME + "-settings", "labels": dict(LABELS)},
            "data": dict(SETTINGS)}


# --- Kubernetes --------------------------------------------------------------------------------


def kubernetes(replicas, image):
    common = pod_common()
    service = {
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": NAME, "labels": dict(LABELS)},
        "spec": {
            # Headless: a DNS record per member (POD.rexnode), published before the member is
            # ready, so members find each other while they join.
            "clusterIP": "None", "publishNotReadyAddresses": True, "selector": dict(LABELS),
            "ports": [{"name": name, "port": port, "targetPort": name} for name, port in PORTS],
        },
    }
    statefulset = {
        "apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": NAME, "labels": dict(LABELS)},
        "spec": {
            "serviceName": NAME, "replicas": replicas,
            # All at once: a member is ready only once another answered it, so one at a time
            # (OrderedReady) would wait for ever on the first.
            "podManagementPolicy": "Parallel",
            "updateStrategy": {"type": "RollingUpdate"},
            "selector": {"matchLabels": dict(LABELS)},
            "template": {
                "metadata": {"labels": common["labels"], "annotations": common["annotations"]},
                "spec": {
                    "terminationGracePeriodSeconds": common["terminationGracePeriodSeconds"],
                    "securityContext": common["securityContext"],
                    "dnsConfig": common["dnsConfig"],
                    "affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{
                        "weight": 100,
                        "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname",
                                            "labelSelector": {"matchLabels": dict(LABELS)}},
                    }]}},
                    "containers": [container_spec(image)],
                    "volumes": [
                        {"name": "cluster", "configMap": {"name": NAME + "-cluster"}},
                        {"name": "keys", "secret": {"secretName": NAME + "-keys", "defaultMode": 0o440}},
                    ],
                },
            },
            "volumeClaimTemplates": [{
                "metadata": {"name": "data", "labels": dict(LABELS)},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
            }],
        },
    }
    budget = {
        "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
        "metadata": {"name": NAME, "labels": dict(LABELS)},
        "spec": {"maxUnavailable": 1, "selector": {"matchLabels": dict(LABELS)}},
    }
    return [settings_config_map(), service, statefulset, budget]


def read_public_key(path):
    with open(path) as handle:
        for line in handle:
            name, _, value = line.partition("=")
            if name.strip() == "public-key":
                key = value.strip()
                if len(key) != 40:
                    sys.exit("render.py: %s: the public key is not 40 Z85 characters" % path)
                return key
    sys.exit("render.py: %s has no public-key line (make it with: rexctl keygen %s)" % (path, path[:-4] + ".key"))


def cluster_documents(keys_dir, replicas):
    """cluster.json, operators.json, and each member's secret key file (bytes)."""
    nodes = []
    secrets = {}
    for index in range(replicas):
        name = member(index)
        host = dns_name(name)
        nodes.append({"id": name, "pub": "tcp://%s:7101" % host, "control": "tcp://%s:7201" % host,
                      "membership": "tcp://%s:7301" % host, "key": read_public_key(os.path.join(keys_dir, name + ".pub"))})
        with open(os.path.join(keys_dir, name + ".key"), "rb") as handle:
            secrets[name + ".key"] = handle.read(4097)
        if len(secrets[name + ".key"]) > 4096:
            sys.exit("render.py: %s is over 4096 bytes: not a key file" % os.path.join(keys_dir, name + ".key"))
    operators = [{"name": "operator", "key": read_public_key(os.path.join(keys_dir, "operator.pub")), "role": "admin"}]
    if os.path.exists(os.path.join(keys_dir, "viewer.pub")):
        operators.append({"name": "viewer", "key": read_public_key(os.path.join(keys_dir, "viewer.pub")), "role": "viewer"})
    cluster = json.dumps({"nodes": nodes}, indent=1) + "\n"
    return cluster, json.dumps({"operators": operators}, indent=1) + "\n", secrets


def cluster_config_map(cluster, operators):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": NAME + "-cluster", "labels": dict(LABELS)},
            "data": {"cluster.json": cluster, "operators.json": operators}}


def cluster(keys_dir, replicas):
    cluster_json, operators_json, secrets = cluster_documents(keys_dir, replicas)
    secret = {
        "apiVersion": "v1", "kind": "Secret", "type": "Opaque",
        "metadata": {"name": NAME + "-keys", "labels": dict(LABELS)},
        "data": {name: base64.b64encode(data).decode() for name, data in sorted(secrets.items())},
    }
    return [cluster_config_map(cluster_json, operators_json), secret]


# --- podman kube play --------------------------------------------------------------------------


def local_pod(index, image, secret_dir, host_ports):
    """Member INDEX as a `kind: Pod`: the template's container, its ports published on
    127.0.0.1 (host_ports: one per port of PORTS), the keys from a hostPath."""
    common = pod_common()
    container = container_spec(image)
    for port, host_port in zip(container["ports"], host_ports):
        port["hostIP"] = "127.0.0.1"
        port["hostPort"] = host_port
    name = member(index)
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "labels": common["labels"], "annotations": common["annotations"]},
        "spec": {
            "hostname": name,
            # The test replaces a killed member itself, as the StatefulSet's controller would.
            "restartPolicy": "Never",
            "terminationGracePeriodSeconds": common["terminationGracePeriodSeconds"],
            "securityContext": common["securityContext"],
            "dnsConfig": common["dnsConfig"],
            "containers": [container],
            "volumes": [
                {"name": "data", "persistentVolumeClaim": {"claimName": "data-" + name}},
                {"name": "cluster", "configMap": {"name": NAME + "-cluster"}},
                {"name": "keys", "hostPath": {"path": os.path.abspath(secret_dir), "type": "Directory"}},
            ],
        },
    }


def podman(keys_dir, secret_dir, out_dir, image, host_ports, replicas):
    if len(host_ports) != len(PORTS) * replicas or len(set(host_ports)) != len(host_ports):
        sys.exit("render.py: --host-ports takes %d distinct ports for %d members" % (len(PORTS) * replicas, replicas))
    os.makedirs(out_dir, exist_ok=True)
    cluster_json, operators_json, _ = cluster_documents(keys_dir, replicas)
    # One per file: `kube play --configmap` reads the first document of a file only.
    write(os.path.join(out_dir, "configmap-settings.yaml"), [settings_config_map()])
    write(os.path.join(out_dir, "configmap-cluster.yaml"), [cluster_config_map(cluster_json, operators_json)])
    for index in range(replicas):
        ports = host_ports[len(PORTS) * index:len(PORTS) * (index + 1)]
        write(os.path.join(out_dir, member(index) + ".yaml"), [local_pod(index, image, secret_dir, ports)])


# --- check ---------------------------------------------------------------------------------------


def without_host_ports(container):
    stripped = copy.deepcopy(container)
    for port in stripped["ports"]:
        port.pop("hostPort", None)
        port.pop("hostIP", None)
    return stripped


def check(path):
    problems = []
    with open(path) as handle:
        shipped = handle.read()
    if shipped != header_for_kubernetes() + emit_all(kubernetes(DEFAULT_REPLICAS, DEFAULT_IMAGE)):
        problems.append("%s is not what `render.py kubernetes` renders now: run deploy/k8s/render.py kubernetes > %s" % (path, path))
    statefulset = next(d for d in kubernetes(DEFAULT_REPLICAS, "IMAGE") if d["kind"] == "StatefulSet")
    template = statefulset["spec"]["template"]
    for index in range(DEFAULT_REPLICAS):
        pod = local_pod(index, "IMAGE", "/keys", [20000 + i for i in range(len(PORTS))])
        if without_host_ports(pod["spec"]["containers"][0]) != template["spec"]["containers"][0]:
            problems.append("member %d: the local container differs from the StatefulSet's" % index)
        if any(p.get("hostIP") != "127.0.0.1" for p in pod["spec"]["containers"][0]["ports"]):
            problems.append("member %d: a port published off loopback" % index)
        for field in ("labels", "annotations"):
            if pod["metadata"][field] != template["metadata"][field]:
                problems.append("member %d: pod %s differ" % (index, field))
        for field in ("securityContext", "terminationGracePeriodSeconds", "dnsConfig"):
            if pod["spec"][field] != template["spec"][field]:
                problems.append("member %d: pod %s differs" % (index, field))
        local_volumes = sorted(v["name"] for v in pod["spec"]["volumes"])
        shipped_volumes = sorted([v["name"] for v in template["spec"]["volumes"]]
                                 + [c["metadata"]["name"] for c in statefulset["spec"]["volumeClaimTemplates"]])
        if local_volumes != shipped_volumes:
            problems.append("member %d: volumes %s, the StatefulSet's %s" % (index, local_volumes, shipped_volumes))
        if pod["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"] != "data-" + member(index):
            problems.append("member %d: its claim is not the StatefulSet's (data-%s)" % (index, member(index)))
    mounts = {m["name"] for m in template["spec"]["containers"][0]["volumeMounts"]}
    if mounts != {"data", "cluster", "keys"}:
        problems.append("the container mounts %s" % sorted(mounts))
    for problem in problems:
        print("render.py check: " + problem, file=sys.stderr)
    if problems:
        sys.exit(1)
    print("render.py check: %s is current; the local pods carry the StatefulSet's container (host ports aside),"
          " labels, annotations, security context and volumes" % path, file=sys.stderr)


# --- YAML ----------------------------------------------------------------------------------------

PLAIN = re.compile(r"[A-Za-z_/][A-Za-z0-9_./-]*\Z")
RESERVED = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"}


def scalar(value):
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        if PLAIN.match(value) and value.lower() not in RESERVED:
            return value
        return json.dumps(value)
    raise TypeError("cannot write %r" % (value,))


def emit(value, indent=0):
    pad = " " * indent
    lines = []
    if isinstance(value, dict):
        if not value:
            return [pad + "{}"]
        for key, item in value.items():
            if isinstance(item, (dict, list)) and item:
                lines.append("%s%s:" % (pad, scalar(key)))
                lines += emit(item, indent + (2 if isinstance(item, dict) else 0))
            else:
                lines.append("%s%s: %s" % (pad, scalar(key), emit(item)[0].strip() if isinstance(item, (dict, list)) else scalar(item)))
        return lines
    if isinstance(value, list):
        if not value:
            return [pad + "[]"]
        for item in value:
            if isinstance(item, (dict, list)) and item:
                inner = emit(item, indent + 2)
                lines.append(pad + "- " + inner[0][indent + 2:])
                lines += inner[1:]
            else:
                lines.append(pad + "- " + (emit(item)[0].strip() if isinstance(item, (dict, list)) else scalar(item)))
        return lines
    return [pad + scalar(value)]


def emit_all(documents):
    return "".join("---\n" + "\n".join(emit(document)) + "\n" for document in documents)


def header_for_kubernetes():
    return (
        "# The SwiftRex cluster on Kubernetes: written by deploy/k8s/render.py kubernetes (edit the template\n"
        "# there, then render again; deploy/k8s/render.py check fails when this file is not its output).\n"
        "# Needs ConfigMap rexnode-cluster and Secret rexnode-keys first: deploy/k8s/render.py cluster --keys DIR\n"
        "# (README, \"Running on Kubernetes\"). keys' defaultMode 288 is 0440.\n")


def write(path, documents):
    with open(path, "w") as handle:
        handle.write(emit_all(documents))


def main():
    parser = argparse.ArgumentParser(description="Render the cluster's manifests (one template, two renderings).")
    commands = parser.add_subparsers(dest="command", required=True)
    k8s = commands.add_parser("kubernetes")
    k8s.add_argument("--replicas", type=int, default=DEFAULT_REPLICAS)
    k8s.add_argument("--image", default=DEFAULT_IMAGE)
    secrets = commands.add_parser("cluster")
    secrets.add_argument("--keys", required=True)
    secrets.add_argument("--replicas", type=int, default=DEFAULT_REPLICAS)
    local = commands.add_parser("podman")
    local.add_argument("--keys", required=True)
    local.add_argument("--secret-dir", required=True)
    local.add_argument("--out", required=True)
    local.add_argument("--image", required=True)
    local.add_argument("--host-ports", required=True)
    local.add_argument("--replicas", type=int, default=DEFAULT_REPLICAS)
    checker = commands.add_parser("check")
    checker.add_argument("--file", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "rexnode.yaml"))
    args = parser.parse_args()
    replicas = getattr(args, "replicas", DEFAULT_REPLICAS)
    if not 1 <= replicas <= MAX_REPLICAS:
        parser.error("--replicas takes 1 to %d" % MAX_REPLICAS)
    if args.command == "kubernetes":
        if not re.match(r"[A-Za-z0-9][A-Za-z0-9._/:@-]{0,254}\Z", args.image):
            parser.error("--image: not an image reference: %r" % args.image)
        sys.stdout.write(header_for_kubernetes() + emit_all(kubernetes(replicas, args.image)))
    elif args.command == "cluster":
        sys.stdout.write(emit_all(cluster(args.keys, replicas)))
    elif args.command == "podman":
        try:
            ports = [int(port) for port in args.host_ports.split(",")]
        except ValueError:
            parser.error("--host-ports takes comma-separated port numbers")
        if not all(1024 <= port <= 65535 for port in ports):
            parser.error("--host-ports takes ports from 1024 to 65535")
        podman(args.keys, args.secret_dir, args.out, args.image, ports, replicas)
    else:
        check(args.file)


if __name__ == "__main__":
    main()
