import Foundation
import NodeTestSupport
import RexControl
import Testing

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// `--metrics`: HTTP over a plain TCP socket, as a Prometheus server scrapes it.
@Suite(.serialized) struct MetricsEndpointTests {
    /// A node with one peer that never answers: an operator's link to a publisher that is not a
    /// member (`unknown` for good, its connection kept), so the counts hold still.
    func startMetricsNode(_ id: String) throws -> (Node, UInt16) {
        let node = try Node.start(
            NodeConfiguration(
                id: id, pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*", membershipEndpoint: "tcp://127.0.0.1:*",
                settings: NodeSettings(), logLevel: .warning, metricsEndpoint: "tcp://127.0.0.1:*"))
        node.dispatch(.addPeer(id: "ghost", endpoint: "tcp://127.0.0.1:1"))
        let port = try #require(node.metricsEndpoint.flatMap { UInt16($0.split(separator: ":").last ?? "") })
        return (node, port)
    }

    @Test func metricsAreInTheExpositionFormat() async throws {
        let (node, port) = try startMetricsNode("m1")
        node.dispatch(.set(topic: "eu.prices", value: "42"))
        #expect(await waitFor(node) { $0.feeds["eu.prices"] != nil })
        let response = try await HTTPExchange.get(port: port, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        #expect(response.headers["content-length"] == "\(response.body.utf8.count)")
        let text = response.body
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "", "the text ends with a newline")

        // Every sample belongs to a family announced by HELP and TYPE before it.
        var types: [String: String] = [:]
        var helped: Set<String> = []
        for line in lines where !line.isEmpty {
            let words = line.split(separator: " ", maxSplits: 3)
            if line.hasPrefix("# HELP ") { helped.insert(String(words[2])); continue }
            if line.hasPrefix("# TYPE ") { types[String(words[2])] = String(words[3]); continue }
            let name = String(line.prefix { $0 != "{" && $0 != " " })
            #expect(name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }, "\(line)")
            let family =
                types[name] != nil
                ? name
                : ["_bucket", "_sum", "_count"].compactMap { suffix in
                    name.hasSuffix(suffix) ? String(name.dropLast(suffix.count)) : nil
                }.first { types[$0] == "histogram" } ?? name
            #expect(types[family] != nil && helped.contains(family), "no HELP/TYPE before \(line)")
            #expect(Double(line.split(separator: " ").last ?? "") != nil, "value of \(line)")
            if types[family] == "counter" { #expect(family.hasSuffix("_total"), "\(family)") }
        }
        for name in [
            "rexnode_reconcile_cycles_total", "rexnode_channel_opens_total", "rexnode_channel_cancels_total",
            "rexnode_channel_recreates_total", "rexnode_messages_published_total", "rexnode_messages_received_total",
            "rexnode_messages_malformed_total", "rexnode_messages_oversized_total", "process_cpu_seconds_total",
        ] { #expect(types[name] == "counter", "\(name)") }
        for name in [
            "rexnode_channels_live", "rexnode_follow_gaps", "rexnode_follow_duplicates", "rexnode_mailbox_depth",
            "rexnode_members", "process_resident_memory_bytes", "process_open_fds",
        ] { #expect(types[name] == "gauge", "\(name)") }
        #expect(types["rexnode_reconcile_cycle_duration_seconds"] == "histogram")
        #expect(text.contains("rexnode_info{node=\"m1\",feature=\"feeds\",feature_version=\"1\"} 1\n"))
        #expect(text.contains("rexnode_members{status=\"unknown\"} 1\n"), "the ghost peer, not a member, is counted once")
        #expect(text.contains("rexnode_members{status=\"alive\"} 0\n"))

        // The histogram: cumulative buckets ending with +Inf, which equals _count.
        let histogram = "rexnode_reconcile_cycle_duration_seconds"
        var buckets: [(le: String, count: Double)] = []
        var count: Double?
        for line in lines {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let value = Double(parts[1]) else { continue }
            if parts[0].hasPrefix(histogram + "_bucket{le=\"") {
                buckets.append((String(parts[0].dropFirst(histogram.count + 12).dropLast(2)), value))
            } else if parts[0] == histogram + "_count" {
                count = value
            }
        }
        #expect(buckets.count > 2)
        #expect(buckets.last?.le == "+Inf")
        #expect(buckets.last?.count == count)
        #expect(zip(buckets, buckets.dropFirst()).allSatisfy { $0.count <= $1.count }, "cumulative")
        #expect(zip(buckets.dropLast(), buckets.dropLast().dropFirst()).allSatisfy { Double($0.le)! < Double($1.le)! })
        #expect((count ?? 0) >= 1, "the set ran at least one reconcile cycle")
        await node.stop()
    }

    @Test func healthzNotFoundWrongMethodAndOversizedRequests() async throws {
        let (node, port) = try startMetricsNode("m2")
        let health = try await HTTPExchange.get(port: port, "GET /healthz HTTP/1.1\r\n\r\n")
        #expect(health.status == 200)
        #expect(health.body == "ok\n")
        #expect(try await HTTPExchange.get(port: port, "GET /nope HTTP/1.1\r\n\r\n").status == 404)
        let post = try await HTTPExchange.get(port: port, "POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
        #expect(post.status == 405)
        #expect(post.headers["allow"] == "GET, HEAD")
        #expect(try await HTTPExchange.get(port: port, "hello\r\n\r\n").status == 400)
        let head = try await HTTPExchange.get(port: port, "HEAD /metrics HTTP/1.1\r\n\r\n")
        #expect(head.status == 200 && head.body.isEmpty && Int(head.headers["content-length"] ?? "") ?? 0 > 0)
        // A head that never ends: 400 once it passes 8 KiB, then the connection closes.
        let big = "GET /metrics HTTP/1.1\r\nX-Padding: " + String(repeating: "a", count: 20_000)
        let oversized = try await HTTPExchange.get(port: port, big)
        #expect(oversized.status == 400)
        // Many idle connections do not lock the endpoint out: the oldest lose their slots.
        let idle = try (0..<(MetricsEndpoint.maxConnections + 8)).map { _ in try HTTPExchange.connect(port: port) }
        defer { idle.forEach { close($0) } }
        #expect(try await HTTPExchange.get(port: port, "GET /healthz HTTP/1.1\r\n\r\n").status == 200)
        // The node's own work went on meanwhile: the control endpoint still answers.
        let ping = try await controlRequest(node.controlEndpoint, #"{"v": 1, "op": "ping"}"#)
        #expect(ping?["ok"] as? Bool == true)
        await node.stop()
    }

    @Test func theControlMetricsOperationCarriesTheSameModel() async throws {
        let (node, _) = try startMetricsNode("m3")
        let reply = try await controlRequest(node.controlEndpoint, #"{"v": 1, "op": "metrics"}"#)
        let result = try #require(reply?["result"] as? [String: Any])
        #expect((result["members"] as? [String: Any])?.keys.sorted() == ["alive", "gone", "suspect", "unknown"])
        #expect((result["process"] as? [String: Any])?["cpuSeconds"] is Double)
        await node.stop()
    }

    /// Control requests are counted by operation and result, and live channels by kind, in the
    /// model both the control op and /metrics render.
    @Test func controlRequestsByOpAndResultAndChannelsByKind() async throws {
        let (node, port) = try startMetricsNode("m4")
        let control = node.controlEndpoint
        for _ in 0..<2 { _ = try await controlRequest(control, #"{"v": 1, "op": "ping"}"#) }
        _ = try await controlRequest(control, "not json")
        _ = try await controlRequest(control, #"{"v": 1, "op": "frobnicate"}"#)
        // Unreadable (a field missing): counted as invalid; read but refused by the node: dispatch.
        _ = try await controlRequest(control, #"{"v": 1, "op": "dispatch", "action": {"type": "set"}}"#)
        let longTopic = String(repeating: "t", count: 300)
        _ = try await controlRequest(
            control, #"{"v": 1, "op": "dispatch", "action": {"type": "set", "topic": "\#(longTopic)", "value": "1"}}"#)
        _ = try await controlRequest(control, #"{"v": 1, "op": "dispatch", "action": {"type": "set", "topic": "a", "value": "1"}}"#)
        _ = try await controlRequest(control, #"{"v": 1, "op": "state"}"#)
        #expect(await waitFor(node) { $0.feeds["a"] != nil })

        let reply = try await controlRequest(control, #"{"v": 1, "op": "metrics"}"#)
        let result = try #require(reply?["result"] as? [String: Any])
        let requests = try #require(result["controlRequests"] as? [String: [String: Int]])
        #expect(requests["ping"] == ["ok": 2])
        #expect(requests["state"] == ["ok": 1])
        #expect(requests["dispatch"] == ["ok": 1, "tooLarge": 1])
        #expect(requests["invalid"] == ["badRequest": 1, "unknownOp": 1, "badAction": 1])

        // The second metrics request counts the first. The feed's channel opened in the batch
        // that set it, whose state the wait above saw (the observer runs after the reconcile).
        let text = try await HTTPExchange.get(port: port, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").body
        #expect(text.contains("# TYPE rexnode_control_requests_total counter\n"))
        for sample in [
            #"rexnode_control_requests_total{op="dispatch",result="ok"} 1"#,
            #"rexnode_control_requests_total{op="dispatch",result="tooLarge"} 1"#,
            #"rexnode_control_requests_total{op="invalid",result="badAction"} 1"#,
            #"rexnode_control_requests_total{op="invalid",result="badRequest"} 1"#,
            #"rexnode_control_requests_total{op="invalid",result="unknownOp"} 1"#,
            #"rexnode_control_requests_total{op="metrics",result="ok"} 1"#,
            #"rexnode_control_requests_total{op="ping",result="ok"} 2"#,
            #"rexnode_channels_live{kind="feed"} 1"#, #"rexnode_channels_live{kind="follow"} 0"#,
            #"rexnode_channels_live{kind="peer"} 1"#, #"rexnode_channels_live{kind="membership"} 1"#,
            #"rexnode_channels_live{kind="publisher"} 1"#,
            #"rexnode_channel_opens_total{kind="feed"} 1"#, #"rexnode_channel_opens_total{kind="publisher"} 1"#,
            #"rexnode_channel_cancels_total{kind="feed"} 0"#, #"rexnode_channel_recreates_total{kind="feed"} 0"#,
        ] { #expect(text.contains(sample + "\n"), "\(sample)") }
        await node.stop()
    }

    @Test func requestHeadsAreParsedFromBytesAlone() {
        #expect(HTTPRequestHead.parse(Array("GET /metrics HTTP/1.1\r\nHost: a".utf8)) == .incomplete)
        #expect(
            HTTPRequestHead.parse(Array("GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
                == .request(HTTPRequestHead(method: "GET", path: "/metrics")))
        #expect(
            HTTPRequestHead.parse(Array("GET /healthz HTTP/1.0\n\n".utf8))
                == .request(HTTPRequestHead(method: "GET", path: "/healthz")))
        #expect(HTTPRequestHead.parse(Array("GET /metrics\r\n\r\n".utf8)) == .malformed)
        #expect(HTTPRequestHead.parse(Array("GET metrics HTTP/1.1\r\n\r\n".utf8)) == .malformed)
        #expect(HTTPRequestHead.parse(Array("GET /metrics SPDY/3\r\n\r\n".utf8)) == .malformed)
    }

    @Test func metricsFlagParsesAndIsValidated() throws {
        let configuration = try #require(try NodeCommand.parse(["--id", "a", "--metrics", "tcp://127.0.0.1:9101"]).runConfiguration)
        #expect(configuration.metricsEndpoint == "tcp://127.0.0.1:9101")
        let off = try #require(try NodeCommand.parse(["--id", "a"]).runConfiguration)
        #expect(off.metricsEndpoint == nil, "off by default")
        #expect(throws: NodeCommand.UsageError.self) { try NodeCommand.parse(["--id", "a", "--metrics", "ipc:///tmp/x"]) }
        #expect(throws: NodeCommand.UsageError.self) {
            try NodeCommand.parse(["--id", "a", "--control", "tcp://127.0.0.1:9", "--metrics", "tcp://127.0.0.1:9"])
        }
    }
}

/// One HTTP exchange over a blocking POSIX socket (off the cooperative pool).
enum HTTPExchange {
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    static func connect(port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        return fd
    }

    /// Sends `request` and reads until the server closes (every response here closes).
    static func get(port: UInt16, _ request: String) async throws -> Response {
        try await offPool {
            let fd = try connect(port: port)
            defer { close(fd) }
            let bytes = Array(request.utf8)
            var sent = 0
            while sent < bytes.count {
                let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                // The server may answer and close before it read everything (an oversized head).
                guard n > 0 else { break }
                sent += n
            }
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let n = recv(fd, &buffer, buffer.count, 0)
                guard n > 0 else { break }
                received += buffer[..<n]
            }
            return try parse(received)
        }
    }

    static func parse(_ bytes: [UInt8]) throws -> Response {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw POSIXError(.EBADMSG) }
        let head = text[..<split.lowerBound].components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, statusParts[0] == "HTTP/1.1", let status = Int(statusParts[1]) else {
            throw POSIXError(.EBADMSG)
        }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Response(status: status, headers: headers, body: String(text[split.upperBound...]))
    }
}
