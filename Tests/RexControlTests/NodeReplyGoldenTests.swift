import Foundation
import NodeTestSupport
import RexCluster
import RexControl
import RexFeeds
import RexNode
import Testing

/// The node's replies, byte for byte, as scripts see them on the wire: captured from the node
/// before the control protocol became typed, so the typed documents must encode exactly the same
/// JSON (key order, field names, nulls, escaping). Values that move with time are masked.
@Suite(.serialized) struct NodeReplyGoldenTests {
    /// Every op, the id echo, and one reply per error code.
    @Test func repliesToEveryOpAndErrorAreUnchanged() async throws {
        let node = try startQuietNode("g1", limits: NodeLimits(maxNameBytes: 16, maxValueBytes: 32, maxRequestBytes: 512, maxFeeds: 2))
        let client = try RawControlClient(node.controlEndpoint)
        defer { client.close() }
        let control = escapedSlashes(node.controlEndpoint)
        let pub = escapedSlashes(node.pubEndpoint)
        let pid = ProcessInfo.processInfo.processIdentifier

        let ping = try #require(try await client.request(#"{"v": 1, "id": "p1", "op": "ping"}"#))
        #expect(
            masking(["uptimeMs"], in: ping)
                == #"{"id":"p1","ok":true,"result":{"control":"\#(control)","feature":{"name":"feeds","version":"1"},"node":"g1","pid":\#(pid),"pub":"\#(pub)","uptimeMs":#},"v":1}"#
        )

        let cases: [(request: String, reply: String)] = [
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "set", "topic": "eu.prices", "value": "42"}}"#,
                #"{"id":null,"ok":true,"result":{"accepted":true,"action":{"topic":"eu.prices","type":"set","value":"42"}},"v":1}"#
            ),
            (
                #"{"v": 1, "id": "d2", "op": "dispatch", "action": {"value": "é \u001b/\"", "type": "set", "topic": "eu.rates"}}"#,
                #"{"id":"d2","ok":true,"result":{"accepted":true,"action":{"topic":"eu.rates","type":"set","value":"é \u001b\/\""}},"v":1}"#
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "unset", "topic": "eu.none"}}"#,
                #"{"id":null,"ok":true,"result":{"accepted":true,"action":{"topic":"eu.none","type":"unset"}},"v":1}"#
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "follow", "name": "prices", "topic": "eu.prices"}}"#,
                #"{"id":null,"ok":true,"result":{"accepted":true,"action":{"name":"prices","topic":"eu.prices","type":"follow"}},"v":1}"#
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "follow", "name": "news", "topic": "news.*", "from": "n2"}}"#,
                #"{"id":null,"ok":true,"result":{"accepted":true,"action":{"from":"n2","name":"news","topic":"news.*","type":"follow"}},"v":1}"#
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "follow", "name": "quiet", "topic": "q", "from": ""}}"#,
                #"{"id":null,"ok":true,"result":{"accepted":true,"action":{"name":"quiet","topic":"q","type":"follow"}},"v":1}"#
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "follow", "name": "other", "topic": "o", "from": null}}"#,
                #"{"id":null,"ok":true,"result":{"accepted":true,"action":{"name":"other","topic":"o","type":"follow"}},"v":1}"#
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "unfollow", "name": "quiet"}}"#,
                #"{"id":null,"ok":true,"result":{"accepted":true,"action":{"name":"quiet","type":"unfollow"}},"v":1}"#
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "publish", "topic": "news.eu", "payload": "hello"}}"#,
                #"{"id":null,"ok":true,"result":{"accepted":true,"action":{"payload":"hello","topic":"news.eu","type":"publish"}},"v":1}"#
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "addPeer", "id": "n2", "endpoint": "tcp://1.2.3.4:9"}}"#,
                #"{"id":null,"ok":true,"result":{"accepted":true,"action":{"endpoint":"tcp:\/\/1.2.3.4:9","id":"n2","type":"addPeer"}},"v":1}"#
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "removePeer", "id": "n3"}}"#,
                #"{"id":null,"ok":true,"result":{"accepted":true,"action":{"id":"n3","type":"removePeer"}},"v":1}"#
            ),
            (
                #"{"v": 1, "id": 7, "op": "dispatch", "action": {"type": "unfollow", "name": "nothing"}, "x": 1}"#,
                #"{"id":7,"ok":true,"result":{"accepted":true,"action":{"name":"nothing","type":"unfollow"}},"v":1}"#
            ),
            (
                #"{"v": 1, "id": 7.0, "op": "explode"}"#,
                #"{"error":{"code":"unknownOp","message":"unknown op 'explode' (expected ping, dispatch, state, keep, metrics, watch, renew, unwatch, statement)"},"id":7,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "id": 1.5, "op": "explode"}"#,
                #"{"error":{"code":"unknownOp","message":"unknown op 'explode' (expected ping, dispatch, state, keep, metrics, watch, renew, unwatch, statement)"},"id":1.5,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "id": -0, "op": "explode"}"#,
                #"{"error":{"code":"unknownOp","message":"unknown op 'explode' (expected ping, dispatch, state, keep, metrics, watch, renew, unwatch, statement)"},"id":0,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "id": 1e300, "op": "explode"}"#,
                #"{"error":{"code":"unknownOp","message":"unknown op 'explode' (expected ping, dispatch, state, keep, metrics, watch, renew, unwatch, statement)"},"id":1e+300,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "id": null, "op": "explode"}"#,
                #"{"error":{"code":"unknownOp","message":"unknown op 'explode' (expected ping, dispatch, state, keep, metrics, watch, renew, unwatch, statement)"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "id": true, "op": "explode"}"#,
                #"{"error":{"code":"unknownOp","message":"unknown op 'explode' (expected ping, dispatch, state, keep, metrics, watch, renew, unwatch, statement)"},"id":true,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "id": {"b": [1, "x/y", null], "a": {}}, "op": "explode"}"#,
                #"{"error":{"code":"unknownOp","message":"unknown op 'explode' (expected ping, dispatch, state, keep, metrics, watch, renew, unwatch, statement)"},"id":{"a":{},"b":[1,"x\/y",null]},"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "id": [], "op": "explode"}"#,
                #"{"error":{"code":"unknownOp","message":"unknown op 'explode' (expected ping, dispatch, state, keep, metrics, watch, renew, unwatch, statement)"},"id":[],"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "id": "\u00e9\u001b\u007f\u2028", "op": "explode"}"#,
                #"{"error":{"code":"unknownOp","message":"unknown op 'explode' (expected ping, dispatch, state, keep, metrics, watch, renew, unwatch, statement)"},"id":"é\u001b\#u{7f}\#u{2028}","ok":false,"v":1}"#
            ),
            (
                #"not json"#,
                #"{"error":{"code":"badRequest","message":"the request is not a JSON object"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"[1, 2]"#,
                #"{"error":{"code":"badRequest","message":"the request is not a JSON object"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #""just a string""#,
                #"{"error":{"code":"badRequest","message":"the request is not a JSON object"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"op": "ping"}"#,
                #"{"error":{"code":"badRequest","message":"missing field 'v' (protocol version: the integer 1)"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": true, "op": "ping"}"#,
                #"{"error":{"code":"badRequest","message":"missing field 'v' (protocol version: the integer 1)"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1.0, "op": "ping"}"#,
                #"{"error":{"code":"badRequest","message":"missing field 'v' (protocol version: the integer 1)"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1e0, "op": "ping"}"#,
                #"{"error":{"code":"badRequest","message":"missing field 'v' (protocol version: the integer 1)"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": "1", "op": "ping"}"#,
                #"{"error":{"code":"badRequest","message":"missing field 'v' (protocol version: the integer 1)"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": null, "op": "ping"}"#,
                #"{"error":{"code":"badRequest","message":"missing field 'v' (protocol version: the integer 1)"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 18446744073709551616, "op": "ping"}"#,
                #"{"error":{"code":"badRequest","message":"missing field 'v' (protocol version: the integer 1)"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 2, "id": "x", "op": "ping"}"#,
                #"{"error":{"code":"badVersion","message":"protocol version 2 is not supported (this node speaks 1)"},"id":"x","ok":false,"v":1}"#
            ),
            (
                #"{"v": -1, "op": "ping"}"#,
                #"{"error":{"code":"badVersion","message":"protocol version -1 is not supported (this node speaks 1)"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1}"#,
                #"{"error":{"code":"badRequest","message":"missing field 'op' (string)"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "op": 5}"#,
                #"{"error":{"code":"badRequest","message":"missing field 'op' (string)"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "op": "explode"}"#,
                #"{"error":{"code":"unknownOp","message":"unknown op 'explode' (expected ping, dispatch, state, keep, metrics, watch, renew, unwatch, statement)"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "id": "st", "op": "statement", "statement": "AQE="}"#,
                #"{"error":{"code":"statementRefused","message":"node g1 has no cluster authority: start it secured with the authority's public key (rexnode --authority FILE, or authority.pub beside the cluster file)"},"id":"st","ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "op": "statement", "statement": 5}"#,
                #"{"error":{"code":"badRequest","message":"'statement' must be the statement in base64, 1 to 1024 characters (a statement file's line)"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "op": "dispatch"}"#,
                #"{"error":{"code":"badRequest","message":"'action' must be a JSON object with a 'type'"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": 5}"#,
                #"{"error":{"code":"badRequest","message":"'action' must be a JSON object with a 'type'"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {}}"#,
                #"{"error":{"code":"badAction","message":"action: field 'type' must be a string (one of set, unset, follow, unfollow, publish, addPeer, removePeer)"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": 5}}"#,
                #"{"error":{"code":"badAction","message":"action: field 'type' must be a string (one of set, unset, follow, unfollow, publish, addPeer, removePeer)"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "teleport"}}"#,
                #"{"error":{"code":"unknownAction","message":"unknown action type 'teleport' (expected one of set, unset, follow, unfollow, publish, addPeer, removePeer)"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "set", "topic": 5, "value": "x"}}"#,
                #"{"error":{"code":"badAction","message":"action 'set': field 'topic' must be a string"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "set", "topic": "t"}}"#,
                #"{"error":{"code":"badAction","message":"action 'set': missing field 'value'"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "set", "topic": "", "value": "x"}}"#,
                #"{"error":{"code":"badAction","message":"action 'set': field 'topic' must not be empty"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "set", "topic": "a\u0000b", "value": "x"}}"#,
                #"{"error":{"code":"badAction","message":"action 'set': a topic cannot contain NUL"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "set", "topic": "t", "value": 5}}"#,
                #"{"error":{"code":"badAction","message":"action 'set': field 'value' must be a string"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "set", "topic": "t", "value": null}}"#,
                #"{"error":{"code":"badAction","message":"action 'set': field 'value' must be a string"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "follow", "name": "f", "topic": "t", "from": 5}}"#,
                #"{"error":{"code":"badAction","message":"action 'follow': field 'from' must be a string"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "addPeer", "id": "x", "endpoint": "nowhere"}}"#,
                #"{"error":{"code":"badAction","message":"action 'addPeer': field 'endpoint' must be a ZeroMQ endpoint such as tcp:\/\/127.0.0.1:7102"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "publish", "topic": "$hb.x", "payload": ""}}"#,
                #"{"error":{"code":"badAction","message":"action 'publish': topics starting with '$' are reserved for the nodes (snapshots)"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "set", "topic": "$snap.1.1", "value": "x"}}"#,
                #"{"error":{"code":"badAction","message":"action 'set': topics starting with '$' are reserved for the nodes (snapshots)"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "set", "topic": "tttttttttttttttttt", "value": "x"}}"#,
                #"{"error":{"code":"tooLarge","message":"action 'set': field 'topic' has 18 bytes; at most 16 are accepted (--max-name-bytes)"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "follow", "name": "nnnnnnnnnnnnnnnnnnn", "topic": "t"}}"#,
                #"{"error":{"code":"tooLarge","message":"action 'follow': field 'name' has 19 bytes; at most 16 are accepted (--max-name-bytes)"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "follow", "name": "f", "topic": "t", "from": "ppppppppppppppppp"}}"#,
                #"{"error":{"code":"tooLarge","message":"action 'follow': field 'from' has 17 bytes; at most 16 are accepted (--max-name-bytes)"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "publish", "topic": "t", "payload": "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"}}"#,
                #"{"error":{"code":"tooLarge","message":"action 'publish': field 'payload' has 33 bytes; at most 32 are accepted (--max-value-bytes)"},"id":null,"ok":false,"v":1}"#
            ),
            (
                #"{"v": 1, "op": "ping", "padding": "\#(String(repeating: " ", count: 600))"}"#,
                #"{"error":{"code":"tooLarge","message":"the request has 637 bytes; this node accepts at most 512 (--max-request-bytes)"},"id":null,"ok":false,"v":1}"#
            ),
        ]
        for (request, expected) in cases {
            let reply = try await client.request(request)
            #expect(reply == expected, "request: \(request)")
        }
        #expect(await waitFor(node) { $0.feeds.count == 2 })
        let refused = try await client.request(#"{"v": 1, "op": "dispatch", "action": {"type": "set", "topic": "c", "value": "1"}}"#)
        #expect(
            refused
                == #"{"error":{"code":"limitReached","message":"node g1 holds 2 feeds, its limit (--max-feeds)"},"id":null,"ok":false,"v":1}"#
        )
        await node.stop()
    }

    /// The three documents: state exactly (its clock masked), keep and metrics with the values
    /// that move with time masked.
    @Test func stateKeepAndMetricsDocumentsAreUnchanged() async throws {
        let node = try startQuietNode("g2")
        let client = try RawControlClient(node.controlEndpoint)
        defer { client.close() }
        for action in [
            #"{"type": "set", "topic": "eu.prices", "value": "42 \u001b/é"}"#,
            #"{"type": "follow", "name": "prices", "topic": "eu.prices"}"#,
            #"{"type": "follow", "name": "news", "topic": "news.*", "from": "n2"}"#,
            #"{"type": "addPeer", "id": "n2", "endpoint": "tcp://127.0.0.1:9"}"#,
        ] {
            _ = try await client.request(#"{"v": 1, "op": "dispatch", "action": \#(action)}"#)
        }
        #expect(await waitFor(node) { $0.follows["news"]?.endpoint != nil })
        #expect(
            await eventually {
                let keep = await node.store.keep()
                return keep.channels.count == 6 && keep.channels.allSatisfy { $0.status == .live }
            })
        // A new topic recreates the follow's channel: its history gains cancelled and recreated.
        _ = try await client.request(#"{"v": 1, "op": "dispatch", "action": {"type": "follow", "name": "prices", "topic": "eu.other"}}"#)
        #expect(
            await eventually {
                let keep = await node.store.keep()
                return keep.counters.recreates == 1 && keep.channels.allSatisfy { $0.status == .live }
            })

        let state = try #require(try await client.request(#"{"v": 1, "id": "s", "op": "state"}"#))
        #expect(
            masking(["nowMs", "lastSeenMs"], in: state)
                == #"{"id":"s","ok":true,"result":{"feeds":{"eu.prices":{"value":"42 \u001b\/é"}},"follows":{"news":{"count":0,"duplicates":0,"endpoint":"tcp:\/\/127.0.0.1:9","evicted":0,"from":"n2","gaps":0,"reordered":0,"restarts":0,"senders":{},"streams":0,"topic":"news.*"},"prices":{"count":0,"duplicates":0,"evicted":0,"gaps":0,"reordered":0,"restarts":0,"senders":{},"streams":0,"topic":"eu.other"}},"id":"g2","nowMs":#,"peers":{"n2":{"endpoint":"tcp:\/\/127.0.0.1:9","status":"unknown"}},"refused":0,"settings":{"feedIntervalMs":100,"followSettleMs":10,"limits":{"maxFeeds":10000,"maxFollows":200000,"maxNameBytes":256,"maxPeers":1000,"maxReplyBytes":67108864,"maxRequestBytes":1048576,"maxStreamsPerFollow":1024,"maxValueBytes":16384,"queueMessages":10000,"snapshotMessagesPerSecond":20000}}},"v":1}"#
        )

        let keep = try #require(try await client.request(#"{"v": 1, "id": "k", "op": "keep"}"#))
        let timing = ["sinceMs", "ageMs", "atMs", "lastMs", "maxMs", "cycles", "changedCycles", "deliveries", "drops"]
        #expect(
            masking(timing, in: keep)
                == #"{"id":"k","ok":true,"result":{"channels":[{"ageMs":#,"broadcasting":"nothing","deliveries":#,"delivery":"immediate","drops":#,"history":[{"atMs":#,"event":"opened"}],"id":"pub","lifetime":"permanent","opens":1,"recreates":0,"resetKey":null,"settleMs":null,"sinceMs":#,"status":"live","supervised":true},{"ageMs":#,"broadcasting":"nothing","deliveries":#,"delivery":"immediate","drops":#,"history":[{"atMs":#,"event":"opened"}],"id":"membership","lifetime":"permanent","opens":1,"recreates":0,"resetKey":null,"settleMs":null,"sinceMs":#,"status":"live","supervised":true},{"ageMs":#,"broadcasting":"onChange","deliveries":#,"delivery":"throttle(100ms, latest)","drops":#,"history":[{"atMs":#,"event":"opened"}],"id":"feed[eu.prices]","lifetime":"permanent","opens":1,"recreates":0,"resetKey":null,"settleMs":null,"sinceMs":#,"status":"live","supervised":true},{"ageMs":#,"broadcasting":"nothing","deliveries":#,"delivery":"immediate","drops":#,"history":[{"atMs":#,"event":"opened"}],"id":"peer[n2]","lifetime":"ephemeral","opens":1,"recreates":0,"resetKey":"tcp:\/\/127.0.0.1:9","settleMs":null,"sinceMs":#,"status":"live","supervised":true},{"ageMs":#,"broadcasting":"nothing","deliveries":#,"delivery":"immediate","drops":#,"history":[{"atMs":#,"event":"settling"},{"atMs":#,"event":"opened"}],"id":"follow[news]","lifetime":"ephemeral","opens":1,"recreates":0,"resetKey":"news.*@tcp:\/\/127.0.0.1:9","settleMs":10,"sinceMs":#,"status":"live","supervised":true},{"ageMs":#,"broadcasting":"nothing","deliveries":#,"delivery":"immediate","drops":#,"history":[{"atMs":#,"event":"settling"},{"atMs":#,"event":"opened"},{"atMs":#,"event":"cancelled","reason":"reset key changed"},{"atMs":#,"event":"recreated","from":"eu.prices","to":"eu.other"},{"atMs":#,"event":"settling"},{"atMs":#,"event":"opened"}],"id":"follow[prices]","lifetime":"ephemeral","opens":2,"recreates":1,"resetKey":"eu.other","settleMs":10,"sinceMs":#,"status":"live","supervised":true}],"counters":{"cancels":1,"changedCycles":#,"cycles":#,"deliveries":#,"drops":#,"lastMs":#,"live":6,"maxMs":#,"opens":7,"recreates":1}},"v":1}"#
        )

        let metrics = try #require(try await client.request(#"{"v": 1, "id": "m", "op": "metrics"}"#))
        let histogram = metrics.replacingOccurrences(
            of: #""histogram":\[[\[\],0-9]*\]"#, with: #""histogram":[…]"#,
            options: .regularExpression)
        #expect(
            maskingNumbers(in: histogram)
                == #"{"id":"m","ok":true,"result":{"channels":{"cancels":#,"cancelsByKind":{"feed":#,"follow":#,"membership":#,"peer":#,"publisher":#},"live":#,"liveByKind":{"feed":#,"follow":#,"membership":#,"peer":#,"publisher":#},"opens":#,"opensByKind":{"feed":#,"follow":#,"membership":#,"peer":#,"publisher":#},"recreates":#,"recreatesByKind":{"feed":#,"follow":#,"membership":#,"peer":#,"publisher":#}},"controlRequests":{"dispatch":{"ok":#},"keep":{"ok":#},"state":{"ok":#}},"feature":{"name":"feeds","version":"1"},"limits":{"refusedActions":#,"subscriptionsUntracked":#},"mailbox":{"depth":#,"maxDepth":#},"members":{"alive":#,"gone":#,"suspect":#,"unknown":#},"membership":{"dropped":{"bad_frames":#,"bad_magic":#,"bad_string":#,"bad_varint":#,"future_incarnation":#,"ignored":#,"join_reply_limit":#,"members_dropped":#,"oversized":#,"relay_limit":#,"send_failed":#,"sender_mismatch":#,"stranger":#,"too_many_entries":#,"trailing_bytes":#,"truncated":#,"unkeyed":#,"unknown_kind":#,"unknown_status":#,"unsupported_version":#},"members":{"alive":#,"dead":#,"left":#,"suspect":#,"unknown":#},"probesFailed":#,"probesSent":#,"received":#,"sent":#,"suspicionsRefuted":#},"messages":{"duplicates":#,"evicted":#,"gaps":#,"malformed":#,"oversized":#,"published":#,"received":#,"reordered":#,"restarts":#},"process":{"cpuSeconds":#,"fds":#,"rssBytes":#},"reconcile":{"buildMs":#,"changedCycles":#,"cycles":#,"diffMs":#,"histogram":[…],"lastMs":#,"maxMs":#,"p50Ms":#,"p99Ms":#},"snapshots":{"refused":#,"served":#},"sockets":{"created":#,"open":#},"uptimeMs":#},"v":#}"#
        )
        // The numbers masked above that this test knows: the live channels by kind (summing to
        // live), and the requests answered so far (this metrics request is not among them yet).
        let result = try #require(
            (try JSONSerialization.jsonObject(with: Data(metrics.utf8)) as? [String: Any])?["result"] as? [String: Any])
        let channels = try #require(result["channels"] as? [String: Any])
        #expect(
            channels["liveByKind"] as? [String: Int]
                == ["feed": 1, "follow": 2, "membership": 1, "peer": 1, "publisher": 1])
        #expect(channels["live"] as? Int == 6)
        // Lifecycles by kind: three follow opens (news, prices, prices again), one recreate and
        // its cancel; every other kind opened once.
        #expect(
            channels["opensByKind"] as? [String: Int]
                == ["feed": 1, "follow": 3, "membership": 1, "peer": 1, "publisher": 1])
        #expect(
            channels["cancelsByKind"] as? [String: Int]
                == ["feed": 0, "follow": 1, "membership": 0, "peer": 0, "publisher": 0])
        #expect(
            channels["recreatesByKind"] as? [String: Int]
                == ["feed": 0, "follow": 1, "membership": 0, "peer": 0, "publisher": 0])
        let requests = try #require(result["controlRequests"] as? [String: [String: Int]])
        #expect(requests["keep"] == ["ok": 1] && requests["state"] == ["ok": 1] && requests["metrics"] == nil)
        #expect((requests["dispatch"]?["ok"] ?? 0) > 0)
        await node.stop()
    }

    /// The one deliberate change: keys are sorted by code point, as the codec sorts them. Before,
    /// the state went through a second JSON stack whose sorting was numeric and case-blind
    /// (`a9` before `a10`, `b` before `B`); that order depended on which stack wrote the reply.
    @Test func keysAreSortedByCodePoint() async throws {
        let node = try startQuietNode("g3")
        let client = try RawControlClient(node.controlEndpoint)
        defer { client.close() }
        for topic in ["a9", "a10", "b", "B"] {
            _ = try await client.request(#"{"v": 1, "op": "dispatch", "action": {"type": "set", "topic": "\#(topic)", "value": "1"}}"#)
        }
        #expect(await waitFor(node) { $0.feeds.count == 4 })
        let state = try #require(try await client.request(#"{"v": 1, "op": "state"}"#))
        #expect(state.contains(#""feeds":{"B":{"value":"1"},"a10":{"value":"1"},"a9":{"value":"1"},"b":{"value":"1"}}"#), "\(state)")
        await node.stop()
    }
}
