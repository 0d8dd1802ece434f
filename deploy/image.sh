#!/usr/bin/env bash
# An OCI image of rexnode and rexctl built from Debian packages only (no registry, no base image),
# and a 3-node cluster run from it with podman.
#
#   deploy/image.sh build [--runtime static|shared]   build the binaries, a minimal root, import it; print its size
#   deploy/image.sh ensure [--runtime static|shared]  build it only when missing or made from other binaries; print its tag
#   deploy/image.sh check [--runtime static|shared]   run 3 secured nodes from the image, reach them with rexctl; always removed after
#   deploy/image.sh systemd [--runtime static|shared] run 3 nodes as rexnode@ID units under systemd in a container; removed after
#   deploy/image.sh podman ARGS…                      podman with this project's configuration and storage (e.g. images)
#   deploy/image.sh clean                             remove the images and all of this project's podman storage
#
# build: rexnode and rexctl in release, stripped, with the Swift runtime either linked in
# (--runtime static, the default: `swift build --static-swift-stdlib`, in its own build directory
# .build/static so the ordinary release build is left alone) or beside them (--runtime shared: the
# ordinary release build, with the toolchain's runtime libraries it loads copied to
# /usr/lib/swift/linux, one copy of Foundation's ICU data for both binaries instead of one each).
# The Debian packages are those owning the libraries the binaries need (ldd; libzmq5 and
# libsqlite3-0, which bring libsodium23 and libc6), unpacked by mmdebstrap (variant extract: no
# shell, no dpkg, no apt; docs, man pages, locales and iconv modules left out) from the suite this
# machine runs, with a user rexnode (65532:65532) and /data owned by it. `podman import` makes it
# localhost/rexnode:VERSION and :latest (static) or :VERSION-shared and :latest-shared (VERSION:
# the commit, -dirty when tracked files differ), with USER 65532, ENTRYPOINT rexnode, WORKDIR and
# VOLUME /data; the image's own loader must then find every library of both binaries.
#
# check: keys and a cluster file made on the host (rexctl keygen), 3 containers on the host's
# network bound to loopback ports, each --read-only (no tmpfs either), --cap-drop all,
# no-new-privileges, with a volume of its own as --data-dir and its key, the cluster file and the
# operators file mounted read-only; rexctl on the host waits until all 3 see each other alive,
# then each node's /metrics is read. It checks the node runs as 65532 with a read-only root, that
# its data landed in its volume, and that each stops on SIGTERM with exit 0. Prints the time from
# the first `podman run` to a ready cluster. Containers and volumes are removed at exit, whatever
# happens. Builds the image first when it is missing or was made from other binaries.
#
# systemd: deploy/systemd/rexnode@.service under a real systemd: a Debian machine image (mmdebstrap,
# variant apt, with systemd and the packages the binaries need; made once) booted in a privileged
# container on the host's network, rexnode, the unit and /etc/rexnode (cluster file, operators,
# the keys root's alone, an n2.env) mounted read-only. It starts rexnode@n1…n3 and waits with
# rexctl from the host as check does; it checks each runs as a dynamic user with its key in
# /run/rexnode/ID and its state in /var/lib/private/rexnode/ID, that n2.env was read, and that
# `systemctl stop` ends each with exit 0 and removes its key. Removed at exit, whatever happens.
#
# podman gets deploy/podman/containers.conf (CONTAINERS_CONF: runtime, cgroups, ulimits) and a
# storage.conf written into the state dir (CONTAINERS_STORAGE_CONF), so the system's files in
# /etc/containers are not used for either. State lives in .deploy/image/ (or $REX_IMAGE_DIR):
# storage/ (images, volumes, podman's database), run/ (podman's run state), tmp/ (its events and
# locks), networks/ (none made; host networking), storage.conf. Outside it podman 4.3 itself
# writes /var/lib/containers/cache/blob-info-cache-v1.boltdb (at import), /run/runc (runc's state
# directory) and an empty /run/containers/networks (netavark's, made at every start), and libuuid
# its clock (/var/lib/libuuid/clock.txt, as any program making time-based UUIDs); nothing in /etc
# or in ~. Needs root (mmdebstrap's and podman's root modes).
set -euo pipefail
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$REPO_ROOT"

IMAGE_NAME=localhost/rexnode
IMAGE_DIR="$(realpath -m "${REX_IMAGE_DIR:-$REPO_ROOT/.deploy/image}")"
PODMAN_CONF="$DEPLOY_SCRIPTS_DIR/podman/containers.conf"
# The image's user: 65532, the uid distroless images use for "nonroot" (no user on a host has it).
IMAGE_UID=65532
# The toolchain's runtime libraries (libswiftCore.so, Foundation's, …).
SWIFT_RUNTIME_DIR="$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")/lib/swift/linux"
CHECK_NODES=3

usage() {
    sed -n '2,11s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
    exit "${1:-64}"
}

# --- tools -------------------------------------------------------------------------------------

# podman, runc and mmdebstrap (Debian packages), installed when missing; root only.
ensure_image_tools() {
    [ "$(id -u)" -eq 0 ] || fatal "deploy/image.sh needs root (mmdebstrap and podman run in their root modes)"
    local missing=()
    command -v podman >/dev/null 2>&1 || missing+=(podman)
    command -v runc >/dev/null 2>&1 || missing+=(runc)
    command -v mmdebstrap >/dev/null 2>&1 || missing+=(mmdebstrap)
    [ ${#missing[@]} -eq 0 ] && return 0
    log "installing ${missing[*]} (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${missing[@]}" >/dev/null
}

# podman ARGS…: podman with the project's containers.conf and storage in IMAGE_DIR.
podman() {
    mkdir -p "$IMAGE_DIR/storage" "$IMAGE_DIR/run" "$IMAGE_DIR/tmp" "$IMAGE_DIR/networks"
    if ! [ -f "$IMAGE_DIR/storage.conf" ]; then
        printf '# Written by deploy/image.sh: podman storage for this checkout only.\n[storage]\ndriver = "overlay"\ngraphroot = "%s"\nrunroot = "%s"\n' \
            "$IMAGE_DIR/storage" "$IMAGE_DIR/run" >"$IMAGE_DIR/storage.conf"
    fi
    CONTAINERS_CONF="$PODMAN_CONF" CONTAINERS_STORAGE_CONF="$IMAGE_DIR/storage.conf" TMPDIR="$IMAGE_DIR/tmp" \
        command podman --tmpdir "$IMAGE_DIR/tmp" --network-config-dir "$IMAGE_DIR/networks" "$@"
}

# --- version and runtime -----------------------------------------------------------------------

# The image tag: the commit, with -dirty when tracked files differ from it.
image_version() {
    local version
    version=$(git -C "$REPO_ROOT" rev-parse --short=12 HEAD)
    git -C "$REPO_ROOT" diff --quiet HEAD -- 2>/dev/null || version+=-dirty
    echo "$version"
}

# The image's name and tag for RUNTIME: localhost/rexnode:VERSION (static), :VERSION-shared.
image_tag() { echo "$IMAGE_NAME:$(image_version)$([ "$RUNTIME" = static ] || echo "-$RUNTIME")"; }

# parse_runtime ARGS…: sets RUNTIME (static or shared) from [--runtime static|shared].
parse_runtime() {
    RUNTIME=static
    while [ $# -gt 0 ]; do
        case "$1" in
        --runtime)
            [ $# -ge 2 ] || usage
            RUNTIME=$2
            shift 2
            ;;
        --runtime=*)
            RUNTIME=${1#--runtime=}
            shift
            ;;
        *) usage ;;
        esac
    done
    case "$RUNTIME" in static | shared) ;; *) fatal "--runtime takes static or shared (got '$RUNTIME')" ;; esac
}

# The directory holding rexnode and rexctl for RUNTIME; builds them when stale.
binaries_for_runtime() {
    if [ "$RUNTIME" = shared ]; then
        build_if_stale
        echo "$BIN_DIR"
        return 0
    fi
    local dir="$REPO_ROOT/.build/static/release" product stale=''
    if ! [ -x "$dir/rexnode" ] || ! [ -x "$dir/rexctl" ]; then
        stale='not built yet'
    elif [ -n "$(find "$REPO_ROOT/Sources" "$REPO_ROOT/Package.swift" -newer "$dir/rexnode" -print -quit)" ] \
        || [ -n "$(find "$REPO_ROOT/Sources" "$REPO_ROOT/Package.swift" -newer "$dir/rexctl" -print -quit)" ]; then
        stale='sources changed'
    fi
    if [ -n "$stale" ]; then
        log "building rexnode and rexctl (release, --static-swift-stdlib, in .build/static; $stale)"
        local started=$SECONDS
        for product in rexnode rexctl; do
            swift build -c release --static-swift-stdlib --scratch-path "$REPO_ROOT/.build/static" --product "$product" >&2 \
                || fatal "swift build --static-swift-stdlib --product $product failed (see above)"
        done
        touch "$dir/rexnode" "$dir/rexctl"
        ok "built in $((SECONDS - started))s: $dir/{rexnode,rexctl}"
    fi
    echo "$dir"
}

# binaries_digest DIR: a digest of DIR's rexnode and rexctl, labelled on the image so a check
# can tell an image of other binaries (a rebuilt dirty tree keeps its version).
binaries_digest() { cat "$1/rexnode" "$1/rexctl" | sha256sum | cut -c1-16; }

# --- the root file system ----------------------------------------------------------------------

# owning_package FILE: the Debian package that installed FILE (trying the path ldd printed, its
# real path, and each with /usr added or removed: Debian 12 ships libraries under /lib and /usr/lib
# alike, merged by symlinks).
owning_package() {
    local path candidates real
    real=$(realpath -e "$1")
    candidates=("$1" "$real")
    for path in "$1" "$real"; do
        case "$path" in
        /usr/*) candidates+=("${path#/usr}") ;;
        *) candidates+=("/usr$path") ;;
        esac
    done
    for path in "${candidates[@]}"; do
        dpkg -S "$path" 2>/dev/null | sed -n '1s/:.*//p' | grep . && return 0
    done
    return 1
}

# needed_libraries FILE…: "NAME PATH" for each shared library the files link directly (their
# DT_NEEDED entries, resolved where ldd finds them on this machine).
needed_libraries() {
    local file name path
    for file in "$@"; do
        local -A resolved=()
        while read -r name _ path _; do
            [ -n "$path" ] && [ "$path" != "not" ] && resolved[$name]=$path
        done < <(ldd "$file" | grep '=>')
        while read -r name; do
            case "$name" in
            ld-linux*) continue ;; # the dynamic loader, libc6's
            esac
            [ -n "${resolved[$name]:-}" ] || fatal "$file needs $name, which ldd does not find on this machine"
            echo "$name ${resolved[$name]}"
        done < <(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
        unset resolved
    done | sort -u
}

# The Debian suite this machine runs: the binaries were linked against its libraries.
host_suite() {
    local suite
    suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    [ -n "$suite" ] || fatal "cannot tell this machine's Debian suite (/etc/os-release has no VERSION_CODENAME)"
    echo "$suite"
}

# collect_runtime DIR BIN_DIR: strips rexnode and rexctl into DIR/bin (ELVES) and finds the
# libraries they need: the toolchain's, stripped into DIR/swift (RUNTIME_LIBS) with what they need
# in turn, and the system's, as the Debian packages owning them (PACKAGES).
collect_runtime() {
    local work=$1 bin_dir=$2 name path package
    local -A seen_lib=() seen_package=()
    ELVES=() RUNTIME_LIBS=() PACKAGES=()
    mkdir -p "$work/bin" "$work/swift"
    for name in rexnode rexctl; do
        strip -o "$work/bin/$name" "$bin_dir/$name"
        ELVES+=("$work/bin/$name")
    done
    local queue=("${ELVES[@]}")
    while [ ${#queue[@]} -gt 0 ]; do
        local next=()
        while read -r name path; do
            if [[ "$path" == "$SWIFT_RUNTIME_DIR"/* ]]; then
                [ "$RUNTIME" = shared ] || fatal "the static build still links the Swift runtime's $name ($path)"
                [ -z "${seen_lib[$name]:-}" ] || continue
                seen_lib[$name]=1
                strip --strip-unneeded -o "$work/swift/$name" "$path"
                RUNTIME_LIBS+=("$work/swift/$name")
                # What it needs in turn, resolved from the toolchain's copy (its RUNPATH is $ORIGIN).
                next+=("$path")
            else
                package=$(owning_package "$path") || fatal "no Debian package owns $path (needed as $name)"
                [ -n "${seen_package[$package]:-}" ] || PACKAGES+=("$package")
                seen_package[$package]=1
            fi
        done < <(needed_libraries "${queue[@]}")
        queue=("${next[@]}")
    done
    mapfile -t PACKAGES < <(printf '%s\n' "${PACKAGES[@]}" | sort)
}

# The path-exclude options that keep documentation, manuals, translations and iconv modules out.
DPKG_EXCLUDES=(
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*'
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*'
    --dpkgopt='path-exclude=/usr/share/lintian/*' --dpkgopt='path-exclude=/usr/share/gcc/*'
    --dpkgopt='path-exclude=/usr/share/gdb/*' --dpkgopt='path-exclude=/usr/lib/x86_64-linux-gnu/gconv/*'
)

# build_root DIR BIN_DIR: writes DIR/root.tar, the image's file system, and DIR/contents (what is
# in it, for the report).
build_root() {
    local work=$1 bin_dir=$2 suite lib
    suite=$(host_suite)
    collect_runtime "$work" "$bin_dir"
    local elves=("${ELVES[@]}") runtime_libs=("${RUNTIME_LIBS[@]}") packages=("${PACKAGES[@]}")
    {
        printf 'suite\t%s\n' "$suite"
        printf 'packages (of the libraries linked)\t%s\n' "${packages[*]}"
        for lib in "${elves[@]}"; do printf '%s\t%s\n' "/usr/local/bin/${lib##*/}" "$(du -b "$lib" | cut -f1)"; done
        if [ ${#runtime_libs[@]} -gt 0 ]; then
            printf '/usr/lib/swift/linux (%d libraries)\t%s\n' ${#runtime_libs[@]} "$(du -cb "${runtime_libs[@]}" | tail -n 1 | cut -f1)"
        fi
    } >"$work/contents"
    log "root file system: Debian $suite, ${packages[*]} and their dependencies (mmdebstrap, variant extract)"
    local -a hooks=(
        --extract-hook='mkdir -p "$1/usr/local/bin" "$1/data" "$1/etc/rexnode"'
        --extract-hook="copy-in ${elves[*]} /usr/local/bin"
    )
    if [ ${#runtime_libs[@]} -gt 0 ]; then
        hooks+=(--extract-hook='mkdir -p "$1/usr/lib/swift/linux"')
        hooks+=(--extract-hook="copy-in ${runtime_libs[*]} /usr/lib/swift/linux")
        hooks+=(--extract-hook='echo /usr/lib/swift/linux >"$1/etc/ld.so.conf.d/swift.conf"')
    fi
    hooks+=(
        # No libc-bin here: its ld.so.conf, and the cache ldconfig (this machine's, -r) builds.
        --extract-hook='echo "include /etc/ld.so.conf.d/*.conf" >"$1/etc/ld.so.conf" && ldconfig -r "$1"'
        --extract-hook="printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nrexnode:x:$IMAGE_UID:$IMAGE_UID:rexnode:/data:/usr/sbin/nologin\n' >\"\$1/etc/passwd\""
        --extract-hook="printf 'root:x:0:\nrexnode:x:$IMAGE_UID:\n' >\"\$1/etc/group\""
        --extract-hook="printf 'passwd: files\ngroup: files\nhosts: files dns\n' >\"\$1/etc/nsswitch.conf\""
        --extract-hook="chown $IMAGE_UID:$IMAGE_UID \"\$1/data\" && chmod 0700 \"\$1/data\""
        --extract-hook='chmod 0755 "$1"/usr/local/bin/rexnode "$1"/usr/local/bin/rexctl'
    )
    mmdebstrap --quiet --variant=extract --include="$(printf '%s\n' "${packages[@]}" | paste -sd ,)" \
        "${DPKG_EXCLUDES[@]}" "${hooks[@]}" "$suite" "$work/root.tar" >&2 || fatal "mmdebstrap failed (see above)"
}

# --- build -------------------------------------------------------------------------------------

mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }

cmd_build() {
    parse_runtime "$@"
    ensure_system_packages
    ensure_image_tools
    local started=$SECONDS bin_dir version work tag bytes tar_bytes gz_bytes resolved
    bin_dir=$(binaries_for_runtime)
    local built=$SECONDS
    version=$(image_version)
    tag=$(image_tag)
    work=$(mktemp -d "${TMPDIR:-/tmp}/rex-image.XXXXXX")
    # shellcheck disable=SC2064 # expand now: work is local
    trap "rm -rf '$work'" EXIT
    build_root "$work" "$bin_dir"
    log "podman import → $tag"
    podman import --quiet \
        --change "USER=$IMAGE_UID:$IMAGE_UID" \
        --change 'ENTRYPOINT=["/usr/local/bin/rexnode"]' \
        --change 'CMD=["--help"]' \
        --change 'WORKDIR=/data' \
        --change 'VOLUME=/data' \
        --change "LABEL=org.opencontainers.image.title=rexnode" \
        --change "LABEL=org.opencontainers.image.version=$version" \
        --change "LABEL=org.opencontainers.image.revision=$(git -C "$REPO_ROOT" rev-parse HEAD)" \
        --change "LABEL=io.swiftrex.runtime=$RUNTIME" \
        --change "LABEL=io.swiftrex.binaries=$(binaries_digest "$bin_dir")" \
        --message "deploy/image.sh build --runtime $RUNTIME" \
        "$work/root.tar" "$tag" >/dev/null || fatal "podman import failed"
    local latest="$IMAGE_NAME:latest$([ "$RUNTIME" = static ] || echo "-$RUNTIME")" other
    podman tag "$tag" "$latest"
    # Older versions of this runtime's image, and what these tags named before (now untagged): all
    # in this checkout's own storage.
    while read -r other; do
        [ "$other" = "$tag" ] || [ "$other" = "$latest" ] \
            || [ "$(podman image inspect --format '{{index .Config.Labels "io.swiftrex.runtime"}}' "$other")" != "$RUNTIME" ] \
            || podman untag "$other" "$other"
    done < <(podman images --format '{{.Repository}}:{{.Tag}}' --filter "reference=$IMAGE_NAME")
    podman image prune --force >/dev/null
    # Every library each binary needs resolves inside the image (the image's own loader lists them).
    for name in rexnode rexctl; do
        resolved=$(podman run --rm --network none --read-only --entrypoint /lib64/ld-linux-x86-64.so.2 "$tag" --list "/usr/local/bin/$name") \
            || fatal "the image's loader cannot list $name's libraries"
        ! grep -q 'not found' <<<"$resolved" || fatal "$name in the image misses libraries: $(grep 'not found' <<<"$resolved" | paste -sd ' ')"
    done
    podman run --rm --network none --read-only "$tag" --help >/dev/null || fatal "rexnode --help failed in the image"
    bytes=$(podman image inspect --format '{{.Size}}' "$tag")
    tar_bytes=$(stat -c %s "$work/root.tar")
    gz_bytes=$(gzip -6 -c "$work/root.tar" | wc -c)
    {
        printf 'IMAGE\t%s (runtime %s)\n' "$tag" "$RUNTIME"
        printf 'size (podman image inspect)\t%s MiB\n' "$(mib "$bytes")"
        printf 'compressed (gzip -6 of the layer)\t%s MiB\n' "$(mib "$gz_bytes")"
        while IFS=$'\t' read -r what value; do
            if [[ "$value" =~ ^[0-9]+$ ]]; then value="$(mib "$value") MiB"; fi
            printf '%s\t%s\n' "$what" "$value"
        done <"$work/contents"
        printf 'layer (root.tar)\t%s MiB\n' "$(mib "$tar_bytes")"
        printf 'time\t%ds (binaries %ds, root and import %ds)\n' $((SECONDS - started)) $((built - started)) $((SECONDS - built))
    } | print_table >&2
    ok "$tag: $(mib "$bytes") MiB"
}


# --- check: a cluster from the image -----------------------------------------------------------

# make_check_cluster DIR: keys and a secured cluster file of CHECK_NODES nodes on free loopback
# ports in DIR, made on the host as deploy/cluster.sh makes them (rexctl keygen; KEY_DIR,
# CLUSTER_FILE, OPERATORS_FILE); CHECK_IDS and CHECK_PORTS (pub, control, metrics, then
# membership ports).
make_check_cluster() {
    local i
    set_state_dir "$1"
    CHECK_IDS=()
    for ((i = 1; i <= CHECK_NODES; i++)); do CHECK_IDS+=("n$i"); done
    ensure_keys "${CHECK_IDS[@]}"
    mapfile -t CHECK_PORTS < <(pick_port_block "$CHECK_NODES" 4)
    {
        printf '{"nodes": [\n'
        for ((i = 0; i < CHECK_NODES; i++)); do
            printf '  {"id": "%s", "pub": "tcp://127.0.0.1:%d", "control": "tcp://127.0.0.1:%d", "metrics": "tcp://127.0.0.1:%d", "membership": "tcp://127.0.0.1:%d", "key": "%s"}%s\n' \
                "${CHECK_IDS[i]}" "${CHECK_PORTS[i]}" "${CHECK_PORTS[CHECK_NODES + i]}" "${CHECK_PORTS[2 * CHECK_NODES + i]}" \
                "${CHECK_PORTS[3 * CHECK_NODES + i]}" "$(public_key "$KEY_DIR/${CHECK_IDS[i]}.key")" "$([ $((i + 1)) -lt "$CHECK_NODES" ] && echo ,)"
        done
        printf ']}\n'
    } >"$CLUSTER_FILE"
}

# wait_check_ready STARTED_MS WHAT EXITED_FN LOGS_FN: waits until every node answers rexctl and is
# seen alive by every other (README, "Membership"), for up to 60 s from STARTED_MS; fails at once
# when EXITED_FN prints a node that stopped, with LOGS_FN ID's output for each node. Sets ready_ms.
wait_check_ready() {
    local started=$1 what=$2 exited_fn=$3 logs_fn=$4 deadline states not_ready exited id
    deadline=$((started + 60000))
    while :; do
        states=$(rexctl -o json nodes --timeout 1s 2>/dev/null | readiness || true)
        not_ready=$(awk '$2 != "ready"' <<<"$states")
        [ "$(grep -c ' ready$' <<<"$states")" -eq "$CHECK_NODES" ] && [ -z "$not_ready" ] && break
        exited=$("$exited_fn")
        if [ -n "$exited" ] || [ "$(now_ms)" -ge "$deadline" ]; then
            for id in "${CHECK_IDS[@]}"; do
                printf -- '--- %s (last 20 lines of its log) ---\n' "$id" >&2
                "$logs_fn" "$id" >&2 || true
            done
            [ -z "$exited" ] || fatal "exited while starting: $(paste -sd ' ' <<<"$exited") (logs above)"
            fatal "the cluster was not ready 60 s after the first $what: ${states:-no node answered}"
        fi
        sleep 0.1
    done
    ready_ms=$(($(now_ms) - started))
}

check_exited() { podman ps --all --filter "name=^rexcheck-$CHECK_TOKEN-" --filter status=exited --format '{{.Names}}'; }
check_logs() { podman logs --tail 20 "rexcheck-$CHECK_TOKEN-$1"; }

# The image of this tree's binaries for RUNTIME, built when missing or made from other binaries.
ensure_image() {
    local tag labels bin_dir
    tag=$(image_tag)
    bin_dir=$(binaries_for_runtime)
    labels=$(podman image inspect --format '{{index .Config.Labels "io.swiftrex.runtime"}} {{index .Config.Labels "io.swiftrex.binaries"}}' "$tag" 2>/dev/null || true)
    if [ "$labels" != "$RUNTIME $(binaries_digest "$bin_dir")" ]; then
        cmd_build --runtime "$RUNTIME"
    fi
    echo "$tag"
}

cmd_check() {
    parse_runtime "$@"
    ensure_system_packages
    ensure_image_tools
    local tag bin_dir work id i started ready_ms pid uid
    tag=$(ensure_image)
    bin_dir=$(binaries_for_runtime)
    REXCTL="$bin_dir/rexctl"
    CHECK_TOKEN=$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
    local token=$CHECK_TOKEN
    work=$(mktemp -d "${TMPDIR:-/tmp}/rex-image-check.XXXXXX")
    CHECK_CONTAINERS=() CHECK_VOLUMES=() CHECK_WORK=$work
    trap check_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM

    make_check_cluster "$work"
    local ids=("${CHECK_IDS[@]}") ports=("${CHECK_PORTS[@]}")
    # Each node's /etc/rexnode: the cluster and operators files, and its own key only, owned by the
    # image's user (a node refuses a secret key another user owns or others may read).
    for id in "${ids[@]}"; do
        mkdir -p "$work/etc-$id/keys"
        cp "$CLUSTER_FILE" "$OPERATORS_FILE" "$work/etc-$id/"
        cp "$KEY_DIR/$id.key" "$work/etc-$id/keys/$id.key"
        chown "$IMAGE_UID:$IMAGE_UID" "$work/etc-$id/keys/$id.key"
        chmod 0600 "$work/etc-$id/keys/$id.key"
    done

    log "starting $CHECK_NODES nodes from $tag (host network, read-only root, user $IMAGE_UID, secured)"
    started=$(now_ms)
    for id in "${ids[@]}"; do
        CHECK_VOLUMES+=("rexcheck-$token-$id")
        podman volume create "rexcheck-$token-$id" >/dev/null
        CHECK_CONTAINERS+=("rexcheck-$token-$id")
        podman run --detach --name "rexcheck-$token-$id" --network host \
            --read-only --read-only-tmpfs=false --cap-drop all --security-opt no-new-privileges \
            --volume "rexcheck-$token-$id:/data" --volume "$work/etc-$id:/etc/rexnode:ro" \
            "$tag" --cluster /etc/rexnode/cluster.json --id "$id" --data-dir /data >/dev/null \
            || fatal "podman run $id failed"
    done
    local launched
    launched=$(now_ms)
    wait_check_ready "$started" "podman run" check_exited check_logs
    rexctl nodes >&2

    # What the containers really are: the node's uid on the host, a read-only root, its data in
    # its volume, its /metrics reachable from the host.
    local metrics
    for ((i = 0; i < CHECK_NODES; i++)); do
        id=${ids[i]}
        pid=$(podman inspect --format '{{.State.Pid}}' "rexcheck-$token-$id")
        uid=$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status")
        [ "$uid" = "$IMAGE_UID" ] || fatal "$id runs as uid $uid, not $IMAGE_UID"
        [ "$(podman inspect --format '{{.HostConfig.ReadonlyRootfs}}' "rexcheck-$token-$id")" = true ] || fatal "$id's root is writable"
        [ -n "$(find "$(podman volume inspect --format '{{.Mountpoint}}' "rexcheck-$token-$id")" -type f -print -quit)" ] \
            || fatal "$id wrote nothing into its volume"
        metrics=$(curl -fsS --max-time 2 "http://127.0.0.1:${ports[2 * CHECK_NODES + i]}/metrics") || fatal "$id's /metrics did not answer"
        grep -q '^rexnode_members{status="alive"} '$((CHECK_NODES - 1))'$' <<<"$metrics" \
            || fatal "$id's /metrics does not count $((CHECK_NODES - 1)) members alive"
    done
    ok "each node runs as uid $IMAGE_UID on a read-only root, keeps its data in its volume and serves /metrics"

    # A clean stop: SIGTERM to the node (PID 1 in its container), exit 0.
    local stop_started code
    stop_started=$(now_ms)
    podman stop --time 10 "${CHECK_CONTAINERS[@]}" >/dev/null
    for id in "${ids[@]}"; do
        code=$(podman inspect --format '{{.State.ExitCode}}' "rexcheck-$token-$id")
        if [ "$code" != 0 ]; then
            podman logs --tail 20 "rexcheck-$token-$id" >&2 || true
            fatal "$id exited $code on SIGTERM (its last log lines above)"
        fi
    done
    ok "stopped on SIGTERM, exit 0, in $(($(now_ms) - stop_started)) ms"
    {
        printf 'STEP\tMS\n'
        printf 'podman run ×%d (to the last container started)\t%d\n' "$CHECK_NODES" $((launched - started))
        printf 'first podman run → %d nodes ready (rexctl nodes)\t%d\n' "$CHECK_NODES" "$ready_ms"
    } | print_table >&2
    ok "image check passed: $CHECK_NODES nodes from $tag ready in $ready_ms ms"
}

# --- systemd: the unit under a real systemd --------------------------------------------------------

SYSTEMD_HOST_NAME=localhost/rexnode-systemd-host
SYSTEMD_UNIT="$DEPLOY_SCRIPTS_DIR/systemd/rexnode@.service"

# An image of a Debian machine booting systemd, with the packages the binaries need, for
# cmd_systemd: built when missing or when it has other packages. Prints its name.
ensure_systemd_host() {
    local bin_dir=$1 suite work tag packages
    suite=$(host_suite)
    work=$(mktemp -d "${TMPDIR:-/tmp}/rex-systemd-host.XXXXXX")
    collect_runtime "$work" "$bin_dir"
    rm -rf "$work"
    packages="systemd,systemd-sysv,$(printf '%s\n' "${PACKAGES[@]}" | paste -sd ,)"
    tag="$SYSTEMD_HOST_NAME:$suite"
    if [ "$(podman image inspect --format '{{index .Config.Labels "io.swiftrex.packages"}}' "$tag" 2>/dev/null || true)" != "$packages" ]; then
        log "a Debian $suite machine with systemd for the unit (mmdebstrap, variant apt: $packages)"
        work=$(mktemp -d "${TMPDIR:-/tmp}/rex-systemd-host.XXXXXX")
        mmdebstrap --quiet --variant=apt --include="$packages" "${DPKG_EXCLUDES[@]}" "$suite" "$work/root.tar" >&2 \
            || { rm -rf "$work"; fatal "mmdebstrap failed (see above)"; }
        podman import --quiet --change 'CMD=["/sbin/init"]' --change "LABEL=io.swiftrex.packages=$packages" \
            "$work/root.tar" "$tag" >/dev/null || { rm -rf "$work"; fatal "podman import failed"; }
        rm -rf "$work"
        podman image prune --force >/dev/null
    fi
    echo "$tag"
}

# in_systemd_host COMMAND…: COMMAND in the systemd container of cmd_systemd.
in_systemd_host() { podman exec "rexcheck-$CHECK_TOKEN-systemd" "$@"; }
# The units that failed, or exited and were restarted (Restart=on-failure hides a failure).
systemd_failed() {
    local id
    for id in "${CHECK_IDS[@]}"; do
        if in_systemd_host systemctl is-failed --quiet "rexnode@$id" \
            || [ "$(in_systemd_host systemctl show --property NRestarts --value "rexnode@$id")" != 0 ]; then
            echo "rexnode@$id"
        fi
    done
}
systemd_logs() { in_systemd_host journalctl --no-pager -o cat -n 20 -u "rexnode@$1"; }

cmd_systemd() {
    parse_runtime "$@"
    ensure_system_packages
    ensure_image_tools
    local bin_dir host container work id i state started pid uid value ready_ms
    bin_dir=$(binaries_for_runtime)
    REXCTL="$bin_dir/rexctl"
    host=$(ensure_systemd_host "$bin_dir")
    CHECK_TOKEN=$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
    container="rexcheck-$CHECK_TOKEN-systemd"
    work=$(mktemp -d "${TMPDIR:-/tmp}/rex-image-systemd.XXXXXX")
    CHECK_CONTAINERS=() CHECK_VOLUMES=() CHECK_WORK=$work
    trap check_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM

    # /etc/rexnode as the unit's header says: cluster and operators files, the keys root's alone;
    # n2 gets an environment file (its log in JSON shows it was read).
    make_check_cluster "$work/state"
    mkdir -p "$work/etc/keys"
    cp "$CLUSTER_FILE" "$OPERATORS_FILE" "$work/etc/"
    for id in "${CHECK_IDS[@]}"; do install -m 0600 -o root -g root "$KEY_DIR/$id.key" "$work/etc/keys/$id.key"; done
    echo 'REXNODE_OPTIONS=--log-format json' >"$work/etc/n2.env"
    local mounts=(--volume "$bin_dir/rexnode:/usr/local/bin/rexnode:ro" --volume "$SYSTEMD_UNIT:/etc/systemd/system/rexnode@.service:ro"
        --volume "$work/etc:/etc/rexnode:ro")
    [ "$RUNTIME" = static ] || mounts+=(--volume "$SWIFT_RUNTIME_DIR:$SWIFT_RUNTIME_DIR:ro")

    # systemd as PID 1 in a container of its own; privileged, so that it can build each unit's
    # sandbox (mount namespaces: 226/NAMESPACE otherwise). Host network: rexctl reaches the nodes.
    log "booting systemd in $container ($host), the unit mounted read-only"
    CHECK_CONTAINERS+=("$container")
    podman run --detach --name "$container" --privileged --systemd=always --network host "${mounts[@]}" "$host" >/dev/null \
        || fatal "podman run $host failed"
    local deadline=$(($(now_ms) + 60000))
    until state=$(in_systemd_host systemctl is-system-running 2>/dev/null) || [ "$state" = degraded ]; do
        [ "$(now_ms)" -lt "$deadline" ] || fatal "systemd in $container did not finish booting in 60 s (state: ${state:-none})"
        sleep 0.2
    done
    if [ "$RUNTIME" = shared ]; then
        in_systemd_host sh -c "echo '$SWIFT_RUNTIME_DIR' >/etc/ld.so.conf.d/swift.conf && ldconfig"
    fi
    in_systemd_host systemd-analyze verify rexnode@n1.service >&2 || fatal "systemd-analyze verify failed inside $container"

    log "systemctl start rexnode@{$(printf '%s\n' "${CHECK_IDS[@]}" | paste -sd ,)}"
    started=$(now_ms)
    for id in "${CHECK_IDS[@]}"; do
        in_systemd_host systemctl start "rexnode@$id" || { systemd_logs "$id" >&2 || true; fatal "systemctl start rexnode@$id failed (its log above)"; }
    done
    wait_check_ready "$started" "systemctl start" systemd_failed systemd_logs
    rexctl nodes >&2

    # What the units really are: a dynamic user (not root), the key in the runtime directory
    # only while the node runs, the state in /var/lib/private, the environment file read.
    for id in "${CHECK_IDS[@]}"; do
        pid=$(in_systemd_host systemctl show --property MainPID --value "rexnode@$id")
        uid=$(in_systemd_host stat -c %u "/proc/$pid")
        [ "$uid" -ge 61184 ] && [ "$uid" -le 65519 ] || fatal "rexnode@$id runs as uid $uid, not a dynamic user (61184-65519)"
        value=$(in_systemd_host stat -c '%u %a' "/run/rexnode/$id/node.key") || fatal "rexnode@$id has no key in /run/rexnode/$id"
        [ "$value" = "$uid 600" ] || fatal "rexnode@$id's key is '$value' (owner, mode), not '$uid 600'"
        in_systemd_host test -s "/var/lib/private/rexnode/$id/node.db" || fatal "rexnode@$id keeps no state in /var/lib/private/rexnode/$id"
    done
    in_systemd_host journalctl --no-pager -o cat -u rexnode@n2 | grep -q '^{"time":' || fatal "rexnode@n2 did not log JSON: /etc/rexnode/n2.env was not read"
    ok "each node runs as a dynamic user with its key in /run/rexnode/ID and its state in /var/lib/private/rexnode/ID"

    for id in "${CHECK_IDS[@]}"; do in_systemd_host systemctl stop "rexnode@$id"; done
    for id in "${CHECK_IDS[@]}"; do
        value=$(in_systemd_host systemctl show --property Result --property ExecMainStatus "rexnode@$id" | sort | paste -sd ' ')
        [ "$value" = "ExecMainStatus=0 Result=success" ] || fatal "rexnode@$id stopped with $value"
        ! in_systemd_host test -e "/run/rexnode/$id" || fatal "/run/rexnode/$id (its key) outlived rexnode@$id"
    done
    ok "systemctl stop: exit 0, Result=success, each key gone with its runtime directory"
    ok "systemd check passed: $CHECK_NODES units from deploy/systemd/rexnode@.service ready in $ready_ms ms"
}

# Removes what cmd_check made: containers (SIGTERM, SIGKILL after 5 s), volumes, the work dir.
check_cleanup() {
    local status=$?
    if [ ${#CHECK_CONTAINERS[@]} -gt 0 ]; then
        podman rm --force --time 5 "${CHECK_CONTAINERS[@]}" >/dev/null 2>&1 || true
    fi
    if [ ${#CHECK_VOLUMES[@]} -gt 0 ]; then
        podman volume rm --force "${CHECK_VOLUMES[@]}" >/dev/null 2>&1 || true
    fi
    [ -z "${CHECK_WORK:-}" ] || rm -rf "$CHECK_WORK"
    local left
    left=$(podman ps --all --quiet --filter "name=^rexcheck-${CHECK_TOKEN:-}-" 2>/dev/null; podman volume ls --quiet --filter "name=^rexcheck-${CHECK_TOKEN:-}-" 2>/dev/null)
    if [ -n "$left" ]; then
        error "left behind after the check: $(paste -sd ' ' <<<"$left")"
        status=1
    fi
    exit "$status"
}

cmd_clean() {
    [ "$(id -u)" -eq 0 ] || fatal "deploy/image.sh needs root"
    if [ -d "$IMAGE_DIR/storage" ]; then
        # podman's overlay mounts live under storage/: unmounted by podman, not by rm.
        podman rm --all --force --time 5 >/dev/null 2>&1 || true
        podman system reset --force >/dev/null 2>&1 || warn "podman system reset failed; removing $IMAGE_DIR anyway"
    fi
    rm -rf "$IMAGE_DIR"
    ok "removed $IMAGE_DIR"
}

main() {
    [ $# -ge 1 ] || usage
    local command=$1
    shift
    case $command in
    build) cmd_build "$@" ;;
    ensure)
        parse_runtime "$@"
        ensure_system_packages
        ensure_image_tools
        ensure_image
        ;;
    check) cmd_check "$@" ;;
    systemd) cmd_systemd "$@" ;;
    podman)
        ensure_image_tools
        podman "$@"
        ;;
    clean) [ $# -eq 0 ] || usage; cmd_clean ;;
    -h | --help | help) usage 0 ;;
    *)
        error "unknown command '$command'"
        usage
        ;;
    esac
}

main "$@"
