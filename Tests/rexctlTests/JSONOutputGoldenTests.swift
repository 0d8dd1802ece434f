import Foundation
import Testing

@testable import rexctl

/// `rexctl -o json` output, byte for byte, for documents in exactly the form a node sends them
/// (keys sorted, `/` written `\/`, DEL, C1 and bidi controls raw): captured before rexctl read
/// replies as typed documents, so scripts that parse rexctl's output keep working. rexctl prints
/// `/` plainly and DEL, C1 and bidi controls as `\u` escapes.
@Suite(.serialized) struct JSONOutputGoldenTests {
    static let state =
        #"{"feeds":{"eu.prices":{"value":"42 \u001b[2J\#u{7f}\#u{9b}\#u{202e}\/é😀"}},"follows":{"news":{"count":3,"duplicates":1,"endpoint":"tcp:\/\/127.0.0.1:7102","evicted":0,"from":"n2","gaps":2,"lastSender":"n2","lastTopic":"news.eu","lastValue":"hello","reordered":0,"restarts":1,"senders":{"n2":{"epoch":18446744073709551615,"heardAt":3,"lastSequence":{"news.eu":5}}},"streams":1,"topic":"news.*"},"prices":{"count":0,"duplicates":0,"evicted":0,"gaps":0,"reordered":0,"restarts":0,"senders":{},"streams":0,"topic":"eu.prices"}},"id":"n1","nowMs":5100,"peers":{"n2":{"endpoint":"tcp:\/\/127.0.0.1:7102","incarnation":1764600000000,"lastSeenMs":5012,"membership":"alive","status":"alive"},"n3":{"endpoint":"tcp:\/\/127.0.0.1:7103","status":"unknown"}},"refused":0,"settings":{"feedIntervalMs":100,"followSettleMs":50,"limits":{"maxFeeds":10000,"maxFollows":200000,"maxNameBytes":256,"maxPeers":1000,"maxReplyBytes":67108864,"maxRequestBytes":1048576,"maxStreamsPerFollow":1024,"maxValueBytes":16384,"queueMessages":10000,"snapshotMessagesPerSecond":20000}}}"#

    static let keep =
        #"{"channels":[{"ageMs":125000,"broadcasting":"nothing","deliveries":1234,"delivery":"immediate","drops":12,"history":[{"atMs":5,"event":"opened"}],"id":"pub","lifetime":"permanent","opens":1,"recreates":0,"resetKey":null,"settleMs":null,"sinceMs":5,"status":"live","supervised":true},{"ageMs":3900,"broadcasting":"nothing","deliveries":0,"delivery":"immediate","drops":0,"history":[{"atMs":100,"event":"settling"},{"atMs":150,"event":"opened"},{"atMs":1150,"event":"cancelled","reason":"reset key changed"},{"atMs":1150,"event":"recreated","from":"eu.old","to":"eu.prices"},{"atMs":1150,"event":"recreated","from":null,"to":null},{"atMs":1160,"event":"dropped","reason":"hwm \u001b\#u{7f}"},{"atMs":1200,"event":"opened"}],"id":"follow[prices]","lifetime":"ephemeral","opens":2,"recreates":1,"resetKey":"eu.prices@tcp:\/\/127.0.0.1:7102","settleMs":50.125,"sinceMs":1200,"status":"live","supervised":true},{"ageMs":100,"broadcasting":"onChange","deliveries":0,"delivery":"throttle(100ms, latest)","drops":0,"history":[],"id":"feed[eu.prices]","lifetime":"permanent","opens":0,"recreates":0,"resetKey":null,"settleMs":null,"sinceMs":5000,"status":"settling","supervised":false}],"counters":{"cancels":2,"changedCycles":7,"cycles":40,"deliveries":12,"drops":0,"lastMs":0.04,"live":7,"maxMs":0.31,"opens":9,"recreates":1}}"#

    static let metrics =
        #"{"channels":{"cancels":2,"live":7,"opens":9,"recreates":1},"limits":{"refusedActions":0,"subscriptionsUntracked":0},"mailbox":{"depth":0,"maxDepth":14},"messages":{"duplicates":0,"evicted":0,"gaps":3,"malformed":1,"oversized":0,"published":120,"received":118,"reordered":0,"restarts":0},"process":{"fds":23,"rssBytes":15728640},"reconcile":{"buildMs":12.345,"changedCycles":7,"cycles":40,"diffMs":0.5,"histogram":[[32768,12],[40960,25],[262144,3]],"lastMs":0.04,"maxMs":0.31,"p50Ms":0.033,"p99Ms":0.262},"snapshots":{"refused":0,"served":2},"sockets":{"created":0,"open":4},"uptimeMs":5100}"#

    static func ping(_ id: String) -> String {
        #"{"control":"tcp:\/\/127.0.0.1:720\#(id.suffix(1))","node":"\#(id)","pid":4242,"pub":"tcp:\/\/127.0.0.1:710\#(id.suffix(1))","uptimeMs":5123}"#
    }

    static let accepted = #"{"accepted":true,"action":{"endpoint":"tcp:\/\/127.0.0.1:7102","id":"n2","type":"addPeer"}}"#

    /// A node that answers every op with the documents above.
    static func cannedNode(_ name: String) throws -> CannedNode {
        try CannedNode { operation, id in
            let result: String
            switch operation {
            case "ping": result = ping(name)
            case "state": result = state
            case "keep": result = keep
            case "metrics": result = metrics
            case "dispatch": result = accepted
            // `wait` watches: one push with both documents, then renewals and the unwatch.
            case "watch": result = #"{"keep":\#(keep),"leaseMs":10000,"sequence":1,"state":\#(state)}"#
            case "renew": result = #"{"renewed":1}"#
            case "unwatch": result = #"{"unwatched":1}"#
            default: return #"{"error":{"code":"unknownOp","message":"no"},"id":"\#(id)","ok":false,"v":1}"#
            }
            return #"{"id":"\#(id)","ok":true,"result":\#(result),"v":1}"#
        }
    }

    @Test func everyDocumentPrintsAsBefore() async throws {
        let n1 = try JSONOutputGoldenTests.cannedNode("n1")
        defer { n1.stop() }
        let n2 = try JSONOutputGoldenTests.cannedNode("n2")
        defer { n2.stop() }
        let nodes = ["--node", "n1=\(n1.endpoint)", "--node", "n2=\(n2.endpoint)"]
        let cases: [(arguments: [String], stdout: String)] = [
            (
                ["state", "n1"],
                #"{"feeds":{"eu.prices":{"value":"42 \u001b[2J\u007f\u009b\u202e/é😀"}},"follows":{"news":{"count":3,"duplicates":1,"endpoint":"tcp://127.0.0.1:7102","evicted":0,"from":"n2","gaps":2,"lastSender":"n2","lastTopic":"news.eu","lastValue":"hello","reordered":0,"restarts":1,"senders":{"n2":{"epoch":18446744073709551615,"heardAt":3,"lastSequence":{"news.eu":5}}},"streams":1,"topic":"news.*"},"prices":{"count":0,"duplicates":0,"evicted":0,"gaps":0,"reordered":0,"restarts":0,"senders":{},"streams":0,"topic":"eu.prices"}},"id":"n1","nowMs":5100,"peers":{"n2":{"endpoint":"tcp://127.0.0.1:7102","incarnation":1764600000000,"lastSeenMs":5012,"membership":"alive","status":"alive"},"n3":{"endpoint":"tcp://127.0.0.1:7103","status":"unknown"}},"refused":0,"settings":{"feedIntervalMs":100,"followSettleMs":50,"limits":{"maxFeeds":10000,"maxFollows":200000,"maxNameBytes":256,"maxPeers":1000,"maxReplyBytes":67108864,"maxRequestBytes":1048576,"maxStreamsPerFollow":1024,"maxValueBytes":16384,"queueMessages":10000,"snapshotMessagesPerSecond":20000}}}\#n"#
            ),
            (
                ["keep", "n1"],
                #"{"channels":[{"ageMs":125000,"broadcasting":"nothing","deliveries":1234,"delivery":"immediate","drops":12,"history":[{"atMs":5,"event":"opened"}],"id":"pub","lifetime":"permanent","opens":1,"recreates":0,"resetKey":null,"settleMs":null,"sinceMs":5,"status":"live","supervised":true},{"ageMs":3900,"broadcasting":"nothing","deliveries":0,"delivery":"immediate","drops":0,"history":[{"atMs":100,"event":"settling"},{"atMs":150,"event":"opened"},{"atMs":1150,"event":"cancelled","reason":"reset key changed"},{"atMs":1150,"event":"recreated","from":"eu.old","to":"eu.prices"},{"atMs":1150,"event":"recreated","from":null,"to":null},{"atMs":1160,"event":"dropped","reason":"hwm \u001b\u007f"},{"atMs":1200,"event":"opened"}],"id":"follow[prices]","lifetime":"ephemeral","opens":2,"recreates":1,"resetKey":"eu.prices@tcp://127.0.0.1:7102","settleMs":50.125,"sinceMs":1200,"status":"live","supervised":true},{"ageMs":100,"broadcasting":"onChange","deliveries":0,"delivery":"throttle(100ms, latest)","drops":0,"history":[],"id":"feed[eu.prices]","lifetime":"permanent","opens":0,"recreates":0,"resetKey":null,"settleMs":null,"sinceMs":5000,"status":"settling","supervised":false}],"counters":{"cancels":2,"changedCycles":7,"cycles":40,"deliveries":12,"drops":0,"lastMs":0.04,"live":7,"maxMs":0.31,"opens":9,"recreates":1}}\#n"#
            ),
            (
                ["keep", "--all"],
                #"{"channels":[{"ageMs":125000,"broadcasting":"nothing","deliveries":1234,"delivery":"immediate","drops":12,"history":[{"atMs":5,"event":"opened"}],"id":"pub","lifetime":"permanent","opens":1,"recreates":0,"resetKey":null,"settleMs":null,"sinceMs":5,"status":"live","supervised":true},{"ageMs":3900,"broadcasting":"nothing","deliveries":0,"delivery":"immediate","drops":0,"history":[{"atMs":100,"event":"settling"},{"atMs":150,"event":"opened"},{"atMs":1150,"event":"cancelled","reason":"reset key changed"},{"atMs":1150,"event":"recreated","from":"eu.old","to":"eu.prices"},{"atMs":1150,"event":"recreated","from":null,"to":null},{"atMs":1160,"event":"dropped","reason":"hwm \u001b\u007f"},{"atMs":1200,"event":"opened"}],"id":"follow[prices]","lifetime":"ephemeral","opens":2,"recreates":1,"resetKey":"eu.prices@tcp://127.0.0.1:7102","settleMs":50.125,"sinceMs":1200,"status":"live","supervised":true},{"ageMs":100,"broadcasting":"onChange","deliveries":0,"delivery":"throttle(100ms, latest)","drops":0,"history":[],"id":"feed[eu.prices]","lifetime":"permanent","opens":0,"recreates":0,"resetKey":null,"settleMs":null,"sinceMs":5000,"status":"settling","supervised":false}],"counters":{"cancels":2,"changedCycles":7,"cycles":40,"deliveries":12,"drops":0,"lastMs":0.04,"live":7,"maxMs":0.31,"opens":9,"recreates":1}}\#n{"channels":[{"ageMs":125000,"broadcasting":"nothing","deliveries":1234,"delivery":"immediate","drops":12,"history":[{"atMs":5,"event":"opened"}],"id":"pub","lifetime":"permanent","opens":1,"recreates":0,"resetKey":null,"settleMs":null,"sinceMs":5,"status":"live","supervised":true},{"ageMs":3900,"broadcasting":"nothing","deliveries":0,"delivery":"immediate","drops":0,"history":[{"atMs":100,"event":"settling"},{"atMs":150,"event":"opened"},{"atMs":1150,"event":"cancelled","reason":"reset key changed"},{"atMs":1150,"event":"recreated","from":"eu.old","to":"eu.prices"},{"atMs":1150,"event":"recreated","from":null,"to":null},{"atMs":1160,"event":"dropped","reason":"hwm \u001b\u007f"},{"atMs":1200,"event":"opened"}],"id":"follow[prices]","lifetime":"ephemeral","opens":2,"recreates":1,"resetKey":"eu.prices@tcp://127.0.0.1:7102","settleMs":50.125,"sinceMs":1200,"status":"live","supervised":true},{"ageMs":100,"broadcasting":"onChange","deliveries":0,"delivery":"throttle(100ms, latest)","drops":0,"history":[],"id":"feed[eu.prices]","lifetime":"permanent","opens":0,"recreates":0,"resetKey":null,"settleMs":null,"sinceMs":5000,"status":"settling","supervised":false}],"counters":{"cancels":2,"changedCycles":7,"cycles":40,"deliveries":12,"drops":0,"lastMs":0.04,"live":7,"maxMs":0.31,"opens":9,"recreates":1}}\#n"#
            ),
            (
                ["metrics", "n1"],
                #"{"channels":{"cancels":2,"live":7,"opens":9,"recreates":1},"limits":{"refusedActions":0,"subscriptionsUntracked":0},"mailbox":{"depth":0,"maxDepth":14},"messages":{"duplicates":0,"evicted":0,"gaps":3,"malformed":1,"oversized":0,"published":120,"received":118,"reordered":0,"restarts":0},"process":{"fds":23,"rssBytes":15728640},"reconcile":{"buildMs":12.345,"changedCycles":7,"cycles":40,"diffMs":0.5,"histogram":[[32768,12],[40960,25],[262144,3]],"lastMs":0.04,"maxMs":0.31,"p50Ms":0.033,"p99Ms":0.262},"snapshots":{"refused":0,"served":2},"sockets":{"created":0,"open":4},"uptimeMs":5100}\#n"#
            ),
            (
                ["describe", "n1", "follow[prices]"],
                #"{"ageMs":3900,"broadcasting":"nothing","deliveries":0,"delivery":"immediate","drops":0,"history":[{"atMs":100,"event":"settling"},{"atMs":150,"event":"opened"},{"atMs":1150,"event":"cancelled","reason":"reset key changed"},{"atMs":1150,"event":"recreated","from":"eu.old","to":"eu.prices"},{"atMs":1150,"event":"recreated","from":null,"to":null},{"atMs":1160,"event":"dropped","reason":"hwm \u001b\u007f"},{"atMs":1200,"event":"opened"}],"id":"follow[prices]","lifetime":"ephemeral","opens":2,"recreates":1,"resetKey":"eu.prices@tcp://127.0.0.1:7102","settleMs":50.125,"sinceMs":1200,"status":"live","supervised":true}\#n"#
            ),
            (
                ["describe", "n1", "feed[eu.prices]"],
                #"{"ageMs":100,"broadcasting":"onChange","deliveries":0,"delivery":"throttle(100ms, latest)","drops":0,"history":[],"id":"feed[eu.prices]","lifetime":"permanent","opens":0,"recreates":0,"resetKey":null,"settleMs":null,"sinceMs":5000,"status":"settling","supervised":false}\#n"#
            ),
            (
                ["nodes"],
                #"{"id":"n1","control":"\#(n1.endpoint)","pub":"tcp://127.0.0.1:7101","reachable":true,"seenBy":{},"liveChannels":7,"ping":{"control":"tcp://127.0.0.1:7201","node":"n1","pid":4242,"pub":"tcp://127.0.0.1:7101","uptimeMs":5123}}\#n{"id":"n2","control":"\#(n2.endpoint)","pub":"tcp://127.0.0.1:7102","reachable":true,"seenBy":{"n1":"alive"},"liveChannels":7,"ping":{"control":"tcp://127.0.0.1:7202","node":"n2","pid":4242,"pub":"tcp://127.0.0.1:7102","uptimeMs":5123},"membership":{"n1":{"status":"alive","incarnation":1764600000000}}}\#n"#
            ),
            (
                ["send", "n1", "add-peer", "n2", "tcp://127.0.0.1:7102"],
                #"{"accepted":true,"action":{"endpoint":"tcp://127.0.0.1:7102","id":"n2","type":"addPeer"}}\#n"#
            ),
            (
                ["wait", "n1", "--for", "keep=pub", "--for", "state=id=n1"],
                #"{"channels":[{"ageMs":125000,"broadcasting":"nothing","deliveries":1234,"delivery":"immediate","drops":12,"history":[{"atMs":5,"event":"opened"}],"id":"pub","lifetime":"permanent","opens":1,"recreates":0,"resetKey":null,"settleMs":null,"sinceMs":5,"status":"live","supervised":true},{"ageMs":3900,"broadcasting":"nothing","deliveries":0,"delivery":"immediate","drops":0,"history":[{"atMs":100,"event":"settling"},{"atMs":150,"event":"opened"},{"atMs":1150,"event":"cancelled","reason":"reset key changed"},{"atMs":1150,"event":"recreated","from":"eu.old","to":"eu.prices"},{"atMs":1150,"event":"recreated","from":null,"to":null},{"atMs":1160,"event":"dropped","reason":"hwm \u001b\u007f"},{"atMs":1200,"event":"opened"}],"id":"follow[prices]","lifetime":"ephemeral","opens":2,"recreates":1,"resetKey":"eu.prices@tcp://127.0.0.1:7102","settleMs":50.125,"sinceMs":1200,"status":"live","supervised":true},{"ageMs":100,"broadcasting":"onChange","deliveries":0,"delivery":"throttle(100ms, latest)","drops":0,"history":[],"id":"feed[eu.prices]","lifetime":"permanent","opens":0,"recreates":0,"resetKey":null,"settleMs":null,"sinceMs":5000,"status":"settling","supervised":false}],"counters":{"cancels":2,"changedCycles":7,"cycles":40,"deliveries":12,"drops":0,"lastMs":0.04,"live":7,"maxMs":0.31,"opens":9,"recreates":1}}\#n{"feeds":{"eu.prices":{"value":"42 \u001b[2J\u007f\u009b\u202e/é😀"}},"follows":{"news":{"count":3,"duplicates":1,"endpoint":"tcp://127.0.0.1:7102","evicted":0,"from":"n2","gaps":2,"lastSender":"n2","lastTopic":"news.eu","lastValue":"hello","reordered":0,"restarts":1,"senders":{"n2":{"epoch":18446744073709551615,"heardAt":3,"lastSequence":{"news.eu":5}}},"streams":1,"topic":"news.*"},"prices":{"count":0,"duplicates":0,"evicted":0,"gaps":0,"reordered":0,"restarts":0,"senders":{},"streams":0,"topic":"eu.prices"}},"id":"n1","nowMs":5100,"peers":{"n2":{"endpoint":"tcp://127.0.0.1:7102","incarnation":1764600000000,"lastSeenMs":5012,"membership":"alive","status":"alive"},"n3":{"endpoint":"tcp://127.0.0.1:7103","status":"unknown"}},"refused":0,"settings":{"feedIntervalMs":100,"followSettleMs":50,"limits":{"maxFeeds":10000,"maxFollows":200000,"maxNameBytes":256,"maxPeers":1000,"maxReplyBytes":67108864,"maxRequestBytes":1048576,"maxStreamsPerFollow":1024,"maxValueBytes":16384,"queueMessages":10000,"snapshotMessagesPerSecond":20000}}}\#n"#
            ),
            (
                ["wait", "n1", "--for", "state=peers.n2.status=alive"],
                #"{"feeds":{"eu.prices":{"value":"42 \u001b[2J\u007f\u009b\u202e/é😀"}},"follows":{"news":{"count":3,"duplicates":1,"endpoint":"tcp://127.0.0.1:7102","evicted":0,"from":"n2","gaps":2,"lastSender":"n2","lastTopic":"news.eu","lastValue":"hello","reordered":0,"restarts":1,"senders":{"n2":{"epoch":18446744073709551615,"heardAt":3,"lastSequence":{"news.eu":5}}},"streams":1,"topic":"news.*"},"prices":{"count":0,"duplicates":0,"evicted":0,"gaps":0,"reordered":0,"restarts":0,"senders":{},"streams":0,"topic":"eu.prices"}},"id":"n1","nowMs":5100,"peers":{"n2":{"endpoint":"tcp://127.0.0.1:7102","incarnation":1764600000000,"lastSeenMs":5012,"membership":"alive","status":"alive"},"n3":{"endpoint":"tcp://127.0.0.1:7103","status":"unknown"}},"refused":0,"settings":{"feedIntervalMs":100,"followSettleMs":50,"limits":{"maxFeeds":10000,"maxFollows":200000,"maxNameBytes":256,"maxPeers":1000,"maxReplyBytes":67108864,"maxRequestBytes":1048576,"maxStreamsPerFollow":1024,"maxValueBytes":16384,"queueMessages":10000,"snapshotMessagesPerSecond":20000}}}\#n"#
            ),
        ]
        for (arguments, expected) in cases {
            let result = await cli(["-o", "json"] + arguments + nodes)
            #expect(result.code == 0, "\(arguments): \(result)")
            #expect(result.stdout == expected, "\(arguments)")
        }
    }

    /// rexctl's own documents keep their member order (not sorted): the load generator's summary.
    @Test func repeatedSendSummaryKeepsItsOrder() async throws {
        let n1 = try JSONOutputGoldenTests.cannedNode("n1")
        defer { n1.stop() }
        let result = await cli(["-o", "json", "send", "n1", "set", "a", "{i}", "--count", "3", "--node", "n1=\(n1.endpoint)"])
        #expect(result.code == 0, "\(result)")
        let masked = result.stdout.replacingOccurrences(of: #"[0-9]+\.[0-9]{3}"#, with: "#", options: .regularExpression)
        #expect(masked == #"{"node":"n1","sent":3,"accepted":3,"seconds":#,"rate":#}"# + "\n")
    }
}
