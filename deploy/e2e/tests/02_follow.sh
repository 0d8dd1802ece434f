# shellcheck shell=bash
# Follows across nodes deliver feed values: n2 follows n1's eu.prices, n3 follows the prefix eu.*
# from any peer, n1 follows n3's topic.

ctl send n2 follow prices eu.prices --from n1 >&2
ctl send n3 follow europe 'eu.*' >&2
ctl send n1 follow back n3.back --from n3 >&2
wait_for n2 'keep=follow[prices]' 3s
wait_for n3 'keep=follow[europe]' 3s
wait_for n1 'keep=follow[back]' 3s

v=$(set_until_seen n1 eu.prices 42 n2 prices)
step "n1 set eu.prices=$v → n2 follows.prices.lastValue=$v"
wait_for n3 "state=follows.europe.lastValue=$v" 2s
assert_eq n1 "$(state_get n2 follows.prices.lastSender)" "n2 follows.prices.lastSender"

# Now that the subscriptions are known to work, every further value arrives on the first try.
rexctl send n1 set eu.prices 43 >/dev/null
wait_for n2 state=follows.prices.lastValue=43 2s
wait_for n3 state=follows.europe.lastValue=43 2s
rexctl send n1 set eu.volumes 7 >/dev/null
wait_for n3 state=follows.europe.lastValue=7 2s
assert_eq eu.volumes "$(state_get n3 follows.europe.lastTopic)" "n3 follows.europe.lastTopic"

v=$(set_until_seen n3 n3.back hello n1 back)
step "n3 set n3.back=$v → n1 follows.back.lastValue=$v"
