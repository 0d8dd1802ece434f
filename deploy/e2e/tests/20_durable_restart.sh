# shellcheck shell=bash
# Durable node state (every cluster.sh node runs with --data-dir): a restarted publisher finds its
# feeds again and its follower hears the new epoch (restarts counted, no bogus gaps); a restarted
# follower finds its follows again and they come back live.

"$CLUSTER_SH" up 3 -- $E2E_NODE_ARGS >/dev/null 2>&1 || fail "the cluster is not up"

reply=$(rexctl -o json send n1 set durfeed 42)
assert_eq batch "$(json_get durability <<<"$reply")" "n1 set reply durability"
ctl send n2 follow durf durfeed --from n1 >&2
ctl send n2 follow durall 'dur*' >&2
wait_for n2 state=follows.durf.lastValue=42 5s
wait_for n2 state=follows.durall.lastValue=42 5s

step "restart n1 (the publisher)"
"$CLUSTER_SH" restart n1 >&2
assert_eq 42 "$(state_get n1 feeds.durfeed.value)" "n1 feeds.durfeed after its restart"
# Its retained value comes again under the new epoch (a snapshot to the late joiner or the feed's
# first message): n2 counts the restart and no gap — the sequences start over with the epoch.
rexctl send n1 set durfeed 43 >/dev/null
wait_for n2 state=follows.durf.lastValue=43 5s
wait_for n2 state=follows.durf.restarts=1 5s
assert_eq 0 "$(state_get n2 follows.durf.gaps)" "n2 follows.durf.gaps after n1's restart"
assert_eq 0 "$(state_get n2 follows.durall.gaps)" "n2 follows.durall.gaps after n1's restart"

step "restart n2 (the follower)"
"$CLUSTER_SH" restart n2 >&2
assert_eq durfeed "$(state_get n2 follows.durf.topic)" "n2 follows.durf.topic after its restart"
assert_eq n1 "$(state_get n2 follows.durf.from)" "n2 follows.durf.from after its restart"
assert_eq 'dur*' "$(state_get n2 follows.durall.topic)" "n2 follows.durall.topic after its restart"
# Live again: the retained value first (late joiner), then a new one.
wait_for n2 state=follows.durf.lastValue=43 5s
rexctl send n1 set durfeed 44 >/dev/null
wait_for n2 state=follows.durf.lastValue=44 5s
wait_for n2 state=follows.durall.lastValue=44 5s
assert_eq 0 "$(state_get n2 follows.durf.gaps)" "n2 follows.durf.gaps after its own restart"

step "kill -9 n1, restart it: what was acknowledged is there"
rexctl send n1 set durkilled yes >/dev/null
"$CLUSTER_SH" kill n1 >&2
"$CLUSTER_SH" restart n1 >&2
assert_eq yes "$(state_get n1 feeds.durkilled.value)" "n1 feeds.durkilled after kill -9"
grep -q 'event=recovered' "$LOG_DIR/n1.log" || fail "n1 logged no recovery"
step "$(grep 'event=recovered' "$LOG_DIR/n1.log" | tail -1 | cut -c1-200)"

# Leave the cluster as the scenarios after this one expect it: no durable leftovers.
for node_action in "n1 unset durfeed" "n1 unset durkilled" "n2 unfollow durf" "n2 unfollow durall"; do
    # shellcheck disable=SC2086
    rexctl send $node_action >/dev/null
done
