# shellcheck shell=bash
# Changing a follow's topic recreates its channel once, and the old topic stops arriving.

assert_eq 0 "$(channel_get n2 'follow[prices]' recreates)" "follow[prices] recreates before"
old_key=$(channel_get n2 'follow[prices]' resetKey)

ctl send n2 follow prices eu.rates --from n1 >&2
recreated_and_live() {
    local doc
    doc=$(rexctl -o json describe n2 'follow[prices]') || return 1
    [ "$(json_get recreates <<<"$doc")" = 1 ] && [ "$(json_get status <<<"$doc")" = live ]
}
until_true 3 recreated_and_live || fail "follow[prices] on n2 was not recreated and live within 3 s"
doc=$(rexctl -o json describe n2 'follow[prices]')
assert_eq 1 "$(json_get recreates <<<"$doc")" "follow[prices] recreates after"
new_key=$(json_get resetKey <<<"$doc")
[[ "$new_key" == eu.rates@* ]] || fail "follow[prices] reset key is '$new_key', expected eu.rates@…"
recreate=$(py -c '
import json, sys
events = [e for e in json.load(sys.stdin)["history"] if e["event"] == "recreated"]
print(len(events), events[-1]["from"], events[-1]["to"])' <<<"$doc")
assert_eq "1 $old_key $new_key" "$recreate" "recreated events (count from to)"
assert_eq 1 "$(rexctl -o json keep n2 | json_get counters.recreates)" "n2 keep counters.recreates"

# The new topic arrives (retried once or twice while the new subscription reaches n1).
v=$(publish_until_seen n1 eu.rates r n2 prices)
step "n1 publish eu.rates=$v → n2 follows.prices.lastValue=$v"

# The old topic does not: n1 publishes the old topic, then the new one, on the same socket, so a
# message on the old topic would arrive first and count; the follow counts exactly one more.
count=$(state_get n2 follows.prices.count)
rexctl send n1 publish eu.prices stale >/dev/null
rexctl send n1 publish eu.rates fresh >/dev/null
wait_for n2 state=follows.prices.lastValue=fresh 2s
assert_eq "$((count + 1))" "$(state_get n2 follows.prices.count)" "n2 follows.prices.count after old+new"
assert_eq eu.rates "$(state_get n2 follows.prices.lastTopic)" "n2 follows.prices.lastTopic"
# The prefix follower on n3 still gets both, so the old topic was really sent.
wait_for n3 state=follows.europe.lastValue=fresh 2s
