# shellcheck shell=bash
# A second application across hosts: Examples/Chat's chat-node (built by deploy/example.sh, or
# CHAT_NODE_BIN) on 3 hosts (deploy/hosts.sh up --node-bin), a member of lobby on each. h1 is cut
# off from h2 and h3: once the membership declares the other side dead, h2 and h3 drop ann@h1
# from lobby's roster and h1 drops bob@h2 and cat@h3, within DETECT_BOUND_MS of the cut; after
# the heal every node shows the whole roster again within HEAL_BOUND_MS (members alive again, the
# data connections made again, and the retained rosters answered to the returning followers).
# It leaves 3 chat hosts up: a scenario after it starts a fresh cluster (scenario_begin).
#
# Bounds, from the SWIM settings (100 ms period, suspicion floor 400 ms) with N = 3: a member
# probes the other side within 2(N − 1) − 1 = 3 periods of the cut; on h1's side no one confirms
# its suspicion (6 × the floor: 2.4 s), on the other the second suspicion brings it down; so
# dead ≤ 0.3 + 2.4 s (measured 2.9–3.3 s with the reads), and 5 s leaves room for a loaded machine. Heal: as 02_partition's (the cut's
# length, about DETECT, plus 2 s), plus 2 s for the connections and the rosters: 8 s.

DETECT_BOUND_MS=${DETECT_BOUND_MS:-5000}
HEAL_BOUND_MS=${HEAL_BOUND_MS:-8000}
chat_node=${CHAT_NODE_BIN:-$REPO_ROOT/.deploy/examples/chat-node}
if ! [ -x "$chat_node" ]; then
    warn "no chat-node at ${chat_node#"$REPO_ROOT"/}: deploy/example.sh builds it (or set CHAT_NODE_BIN)"
    exit 77
fi
scenario_begin 07_chat_partition
# shellcheck disable=SC2086
hosts up 3 --node-bin "$chat_node" -- $HOSTS_NODE_ARGS >&2 || fail "3 chat-node hosts did not come up"
set_state_dir "$STATE_DIR" # reads the node binary up recorded
HOSTS_COUNT=3
# up waits for every node to answer: the chat state says when each sees the others alive.
for a in h1 h2 h3; do for b in h1 h2 h3; do [ "$a" = "$b" ] || wait_for "$a" "state=members.$b.membership=alive" 10s; done; done

# rosters_are BOUND_MS EXPECTED NODE…: every NODE's lobby roster is EXPECTED within BOUND_MS.
rosters_are() {
    local bound=$1 expected=$2 node
    shift 2
    for node in "$@"; do
        rexctl wait "$node" --for "state=rooms.lobby=$expected" --timeout "${bound}ms" >/dev/null \
            || check_fail "$node's lobby is not $expected within $bound ms (it is $(state_get "$node" rooms.lobby))"
    done
}

for member in h1:ann h2:bob h3:cat; do
    rexctl send "${member%:*}" --json "{\"type\": \"join\", \"room\": \"lobby\", \"member\": \"${member#*:}\"}" >/dev/null
done
rosters_are 10000 '["ann@h1","bob@h2","cat@h3"]' h1 h2 h3
step "every host shows lobby whole: ann@h1, bob@h2, cat@h3"

cut_at=$(now_ms)
hosts partition h1 / h2,h3 >&2
rosters_are "$DETECT_BOUND_MS" '["bob@h2","cat@h3"]' h2 h3
rosters_are "$DETECT_BOUND_MS" '["ann@h1"]' h1
detect_ms=$(($(now_ms) - cut_at))
check_le "ms from the cut until each side dropped the other's members" "$detect_ms" "$DETECT_BOUND_MS"
assert_eq dead "$(state_get h2 members.h1.membership)" "h1 as h2's membership holds it"

heal_at=$(now_ms)
hosts heal >&2
rosters_are "$HEAL_BOUND_MS" '["ann@h1","bob@h2","cat@h3"]' h1 h2 h3
heal_ms=$(($(now_ms) - heal_at))
check_le "ms from the heal until every host showed lobby whole again" "$heal_ms" "$HEAL_BOUND_MS"

field detect_ms "$detect_ms"
field heal_ms "$heal_ms"
field bounds "detect ≤ ${DETECT_BOUND_MS} ms, heal ≤ ${HEAL_BOUND_MS} ms"
field summary "chat-node on 3 hosts, h1 cut off: rosters split ${detect_ms} ms after the cut, whole ${heal_ms} ms after the heal"
