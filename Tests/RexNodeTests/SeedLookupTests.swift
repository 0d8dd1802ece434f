import Foundation
import NodeTestSupport
import SharedTestSupport
import Synchronization
import Testing
import ZMQ

@testable import RexCluster
@testable import RexNode

/// Retry-join: a `--join` seed given by a DNS name that does not resolve yet (a StatefulSet's
/// next replica) is looked up again with capped exponential backoff, off the reactor, until it
/// resolves; joins to it are held back meanwhile.
@Suite struct SeedLookupTests {
    @Test func onlyNamedTCPHostsAreLookedUp() {
        #expect(SeedLookups.hostToResolve(in: "tcp://rexnode-1.rexnode:7301") == "rexnode-1.rexnode")
        #expect(SeedLookups.hostToResolve(in: "tcp://localhost:7301") == "localhost")
        #expect(SeedLookups.hostToResolve(in: "tcp://10.0.0.12:7301") == nil, "a numeric address is dialled as it is")
        #expect(SeedLookups.hostToResolve(in: "tcp://[::1]:7301") == nil)
        #expect(SeedLookups.hostToResolve(in: "ipc:///tmp/seed") == nil)
        #expect(SeedLookups.hostToResolve(in: "tcp://nohost") == nil)
    }

    @Test func failedLookupsBackOffExponentiallyUpToTheCap() {
        var lookups = SeedLookups()
        let host = "rexnode-2.rexnode"
        var now = Duration.zero
        #expect(lookups.join(to: host, now: now) == .holdAndLookUp(host: host), "the first join starts a lookup")
        #expect(lookups.join(to: host, now: now) == .hold, "one lookup at a time")
        var waits: [Duration] = []
        for _ in 0..<9 {
            guard case .failed(_, let wait) = lookups.finished(host, resolved: false, now: now) else {
                Issue.record("a failed lookup is a failure")
                return
            }
            waits.append(wait)
            #expect(lookups.join(to: host, now: now + wait - .milliseconds(1)) == .hold, "not before the wait is over")
            now += wait
            #expect(lookups.join(to: host, now: now) == .holdAndLookUp(host: host))
        }
        #expect(waits == [0.25, 0.5, 1, 2, 4, 8, 10, 10, 10].map { Duration.milliseconds(Int($0 * 1000)) })
        #expect(lookups.finished(host, resolved: true, now: now) == .resolved(afterFailures: 9))
        #expect(lookups.join(to: host, now: now) == .send, "once resolved, joins go out")
        #expect(lookups.finished(host, resolved: false, now: now) == .unexpected, "a stray answer changes nothing")
        #expect(lookups.join(to: host, now: now) == .send)
    }

    @Test func jitterScalesTheWaitWithinBoundsAndFailuresSaturate() {
        var lookups = SeedLookups()
        _ = lookups.join(to: "a", now: .zero)
        #expect(lookups.finished("a", resolved: false, now: .zero, jitter: 1.5) == .failed(failures: 1, retryIn: .milliseconds(375)))
        _ = lookups.join(to: "a", now: .seconds(1))
        #expect(lookups.finished("a", resolved: false, now: .seconds(1), jitter: 1e9) == .failed(failures: 2, retryIn: .seconds(1)))
        #expect(lookups.delay(afterFailures: Int.max) == .seconds(10))
        #expect(lookups.delay(afterFailures: 0) == .milliseconds(250))
    }

    @Test func atMostMaxHostsAreTracked() {
        var lookups = SeedLookups()
        for index in 0..<SeedLookups.maxHosts { #expect(lookups.join(to: "h\(index)", now: .zero) == .holdAndLookUp(host: "h\(index)")) }
        #expect(lookups.join(to: "one-too-many", now: .zero) == .hold)
        #expect(lookups.states.count == SeedLookups.maxHosts)
    }

    @Test func theSystemResolverAnswersForLocalhost() async {
        let answered = Arrivals()
        let failure = Mutex<String??>(nil)
        HostResolver.system.resolve("localhost") { result in
            failure.withLock { $0 = .some(result) }
            answered.signal()
        }
        #expect(await answered.wait())
        #expect(failure.withLock { $0 } == .some(nil), "localhost resolves (/etc/hosts)")
    }

    /// The membership socket holds joins to a seed whose name does not resolve (nothing is
    /// connected or sent), looks it up off the reactor, waits out the backoff before the next
    /// lookup, and sends once the name resolves: the join reaches the seed's ROUTER.
    @Test func theMembershipSocketJoinsASeedOnceItsNameResolves() async throws {
        let context = try ZMQContext()
        let reactor = Reactor(name: "seed-lookup-test")
        let lines = Mutex<[String]>([])
        let logged = Arrivals()
        let log = NodeLogger(nodeID: "j", level: .info) { line in
            lines.withLock { $0.append(line) }
            logged.signal()
        }
        // The seed: another membership socket on loopback, reached by the name localhost once
        // the fake DNS has it.
        let delivered = Arrivals()
        let payloads = Mutex<[[UInt8]]>([])
        let seed = try reactor.sync {
            let seed = try MembershipSocket(context: context, reactor: reactor, endpoint: "tcp://127.0.0.1:*", log: log, security: nil)
            seed.open { bytes, _ in
                payloads.withLock { $0.append(bytes) }
                delivered.signal()
            }
            return ReactorBound(seed, on: reactor)
        }
        let port = try #require(try reactor.sync { seed.value.endpoint }.split(separator: ":").last)
        let endpoint = "tcp://localhost:\(port)"
        let resolves = Mutex(false)
        let lookups = Mutex<[Bool]>([])  // each lookup: whether it ran on the reactor thread
        let resolver = HostResolver { host in
            lookups.withLock { $0.append(reactor.isCurrent) }
            return resolves.withLock { $0 } && host == "localhost" ? nil : "Name or service not known"
        }
        let clock = Mutex(Duration.zero)
        let socket = try reactor.sync {
            ReactorBound(
                try MembershipSocket(
                    context: context, reactor: reactor, endpoint: "tcp://127.0.0.1:*", log: log, security: nil, resolver: resolver,
                    elapsed: { clock.withLock { $0 } }),
                on: reactor)
        }
        let join: @Sendable () throws -> MembershipSocket.Counters = {
            try reactor.sync {
                socket.value.send(to: nil, endpoint: endpoint, [7])
                return socket.value.counters
            }
        }

        var counters = try join()
        #expect(await logged.wait(), "the failed lookup is logged")
        #expect(lines.withLock { $0.last?.contains("event=seed_lookup_failed") == true && $0.last?.contains("failures=1") == true })
        counters = try join()
        #expect(counters.unresolved == 2 && counters.sent == 0 && counters.connections == 0, "held, not connected: \(counters)")
        #expect(lookups.withLock { $0 } == [false], "one lookup, off the reactor; the second join waits for the backoff")

        resolves.withLock { $0 = true }
        clock.withLock { $0 = .seconds(1) }  // past the first wait (250 ms, jittered to 375 at most)
        _ = try join()
        #expect(await logged.wait(), "the resolved seed is logged")
        #expect(lines.withLock { $0.last?.contains("event=seed_resolved") == true && $0.last?.contains("failed_lookups=1") == true })
        counters = try join()
        #expect(counters.sent == 1 && counters.unresolved == 3 && counters.connections == 1, "\(counters)")
        #expect(await delivered.wait(), "the join reached the seed")
        #expect(payloads.withLock { $0 } == [[7]])
        #expect(lookups.withLock { $0 } == [false, false])

        try reactor.sync {
            socket.value.close()
            seed.value.close()
        }
        reactor.stop()
        try? context.terminate(timeout: .seconds(1))
    }
}
