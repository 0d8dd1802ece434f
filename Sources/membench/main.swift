import RexMembership

#if canImport(Glibc)
import Glibc
#endif

// membench: the SWIM membership state machine on a simulated network (virtual clock, real wire
// encoding), next to the all-to-all heartbeat scheme it replaces.
//
//   swift run -c release membench           N = 10, 100, 200, 500; 5 seeds each
//   swift run -c release membench --quick   1 seed each
//   options: --seeds K, --sizes 10,100,…, --loss 0.05 (message loss for every scenario),
//            --period MS (the protocol period, default 100; the ping timeout stays 40 % of it):
//            a member's messages, and so its idle cost, go as 1 / period, detection as the period

var seeds = 5
var sizes = [10, 100, 200, 500]
var loss = 0.0
var periodMilliseconds = 100
var arguments = Array(CommandLine.arguments.dropFirst())
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    switch argument {
    case "--quick": seeds = 1
    case "--seeds":
        guard let value = arguments.first.flatMap({ Int($0) }), value > 0, value <= 100 else { usage() }
        seeds = value
        arguments.removeFirst()
    case "--sizes":
        guard let list = arguments.first?.split(separator: ",").compactMap({ Int($0) }), !list.isEmpty,
            list.allSatisfy({ $0 >= 3 && $0 <= 2000 })
        else { usage() }
        sizes = list
        arguments.removeFirst()
    case "--period":
        guard let value = arguments.first.flatMap({ Int($0) }), value >= 10, value <= 10_000 else { usage() }
        periodMilliseconds = value
        arguments.removeFirst()
    case "--loss":
        guard let value = arguments.first.flatMap({ Double($0) }), value >= 0, value < 0.5 else { usage() }
        loss = value
        arguments.removeFirst()
    default: usage()
    }
}

func usage() -> Never {
    print("usage: membench [--quick] [--seeds K (1…100)] [--sizes 10,100,… (3…2000)] [--loss 0…0.5] [--period MS (10…10000)]")
    exit(64)
}

/// The settings every scenario runs with: the defaults, at the period asked for.
let benchSettings: MembershipSettings = {
    var settings = MembershipSettings()
    let defaults = MembershipSettings()
    settings.protocolPeriod = .milliseconds(periodMilliseconds)
    settings.pingTimeout = defaults.pingTimeout * (Double(periodMilliseconds) / Double(defaults.protocolPeriod.milliseconds))
    return settings
}()
let period = benchSettings.protocolPeriod
print(
    "membench: SWIM membership, simulated network (1–5 ms one-way delay, \(percent(loss)) loss), protocol period \(period.milliseconds) ms, \(seeds) seed(s) per size"
)
print("")
print(
    "N     detect kill→all dead (median / max)   leave seen by all   gossip one change   msgs/member/period   bytes/member/period   CPU/member/period (sim / alone)   heartbeats received/member/interval (old)"
)
for size in sizes {
    var detections: [Double] = []
    var leaves: [Double] = []
    var spreads: [Double] = []
    var idle = IdleCost()
    var cpu: [Double] = []
    for seed in 0..<seeds {
        let seed = UInt64(seed) &* 7919 &+ UInt64(size)
        detections.append(Scenario.detection(size: size, loss: loss, seed: seed))
        leaves.append(Scenario.leave(size: size, loss: loss, seed: seed))
        spreads.append(Scenario.spread(size: size, loss: loss, seed: seed))
        let cost = Scenario.idleCost(size: size, loss: loss, seed: seed)
        idle.add(cost)
        cpu.append(cost.nanosecondsPerMemberPerPeriod)
    }
    let row = [
        pad("\(size)", 6),
        pad("\(seconds(median(detections))) / \(seconds(detections.max() ?? .nan))", 38),
        pad(periods(median(leaves)), 20),
        pad(periods(median(spreads)), 20),
        pad(fixed(idle.messagesPerMemberPerPeriod, 2), 21),
        pad(fixed(idle.bytesPerMemberPerPeriod, 0), 22),
        pad("\(fixed(median(cpu) / 1000, 2)) / \(fixed(Scenario.alone(size: size, periods: 200_000) / 1000, 2)) µs", 32),
        "\(size - 1) (×\(fixed(Double(size - 1) / max(idle.messagesPerMemberPerPeriod, 0.001), 1)) SWIM's)",
    ]
    print(row.joined())
}
print("")
print("detect: a member is killed after 3 s of steady state; time until every other member has it dead.")
print("leave: a member leaves telling one member (fanout 1), the rest by gossip; gossip one change: a join announced by one seed.")
print(
    "msgs, bytes, CPU: 20 s of steady state (no failure; with --loss, lost probes and their refutations included); msgs and bytes sent per member"
)
print("  per period (each is received once, so received ≈ sent); CPU is the machines' own time per member per period (tick, receive,")
print("  decode, encode), real time measured in this release build: sim = all N machines in one process (median over the seeds; their")
print("  tables compete for the cache), alone = one machine with N − 1 peers running a probe, its ack, a peer's ping and the answer per")
print("  period (200 000 periods, building the two incoming messages included), as one node process would.")
print("heartbeats (old scheme): every node receives every other node's heartbeat each interval, N − 1, and reduces each one.")

print("")
print("Faults at N = 100 (\(seeds) seed(s)): false deaths are members declared dead while running")
for rate in [0.05, 0.10] {
    var suspicions = 0, refutations = 0, falseDeaths = 0
    for seed in 0..<seeds {
        let result = Scenario.lossy(size: 100, loss: rate, seed: UInt64(seed) &+ 31)
        suspicions += result.suspicions
        refutations += result.refutations
        falseDeaths += result.falseDeaths
    }
    print(
        "  \(percent(rate)) loss for 30 s: \(refutations) suspicions refuted (\(suspicions) views turned suspect on the way), \(falseDeaths) false deaths"
    )
}
var pauseDeaths = 0
for seed in 0..<seeds { pauseDeaths += Scenario.pause(size: 100, loss: loss, seed: UInt64(seed) &+ 41) }
// The floor at N = 100: suspicionMultiplier × log10(100) periods.
let floorAtHundred = benchSettings.protocolPeriod * (benchSettings.suspicionMultiplier * 2)
print("  a member paused 400 ms (suspicion floor \(seconds(floorAtHundred.seconds))): \(pauseDeaths) false deaths")
var merges: [Double] = []
for seed in 0..<seeds { merges.append(Scenario.partition(size: 100, loss: loss, seed: UInt64(seed) &+ 51)) }
print(
    "  a 50/50 partition of 8 s (each side declares the other dead): all alive again \(seconds(median(merges))) after healing (median; max \(seconds(merges.max() ?? .nan)))"
)

var joins: [(sees: Double, seen: Double)] = []
var storms: [Double] = []
for seed in 0..<seeds {
    joins.append(Scenario.join(size: 100, loss: loss, seed: UInt64(seed) &+ 61))
    storms.append(Scenario.joinStorm(size: 100, loss: loss, seed: UInt64(seed) &+ 71))
}
print(
    "  a node joining through one seed: sees all 100 alive after \(seconds(median(joins.map(\.sees)))), seen alive by all after \(seconds(median(joins.map(\.seen)))) (medians)"
)
print(
    "  no cluster file, 99 nodes joining one seed at once: all see all alive after \(seconds(median(storms))) (median; max \(seconds(storms.max() ?? .nan)))"
)

// MARK: - Scenarios

struct IdleCost {
    var messages = 0.0, bytes = 0.0, nanoseconds = 0.0, memberPeriods = 0.0
    mutating func add(_ other: IdleCost) {
        messages += other.messages
        bytes += other.bytes
        nanoseconds += other.nanoseconds
        memberPeriods += other.memberPeriods
    }
    var messagesPerMemberPerPeriod: Double { messages / memberPeriods }
    var bytesPerMemberPerPeriod: Double { bytes / memberPeriods }
    var nanosecondsPerMemberPerPeriod: Double { nanoseconds / memberPeriods }
}

enum Scenario {
    static func network(_ loss: Double) -> MembershipSimulation.Network { .init(loss: loss) }

    /// Seconds from a kill to every member seeing the member dead.
    static func detection(size: Int, loss: Double, seed: UInt64) -> Double {
        var simulation = MembershipSimulation(count: size, settings: benchSettings, network: network(loss), seed: seed)
        simulation.run(until: .seconds(3))
        let victim = size / 2
        simulation.crash(victim)
        let start = simulation.now
        guard let seen = simulation.run(for: .seconds(20), until: { $0.everyone(sees: victim, as: [.dead]) }) else { return .infinity }
        return (seen - start).seconds
    }

    /// Periods from a leave (told to one member) to every member seeing it.
    static func leave(size: Int, loss: Double, seed: UInt64) -> Double {
        var settings = benchSettings
        settings.leaveFanout = 1
        var simulation = MembershipSimulation(count: size, settings: settings, network: network(loss), seed: seed)
        simulation.run(until: .seconds(1))
        let leaver = size / 3
        simulation.leave(leaver)
        let start = simulation.now
        guard let seen = simulation.run(for: .seconds(20), step: .milliseconds(5), until: { $0.everyone(sees: leaver, as: [.left]) }) else {
            return .infinity
        }
        return (seen - start) / settings.protocolPeriod
    }

    /// Periods from a seed learning of a new member to every member knowing it.
    static func spread(size: Int, loss: Double, seed: UInt64) -> Double {
        var simulation = MembershipSimulation(count: size - 1, settings: benchSettings, network: network(loss), seed: seed)
        simulation.run(until: .seconds(1))
        let newcomer = simulation.addMember()
        simulation.join(newcomer, seeds: [0])
        guard simulation.run(for: .seconds(5), step: .milliseconds(1), until: { $0.status(of: newcomer, seenBy: 0) != nil }) != nil else {
            return .infinity
        }
        let start = simulation.now
        guard let seen = simulation.run(for: .seconds(20), step: .milliseconds(5), until: { $0.everyone(sees: newcomer, as: [.alive]) })
        else { return .infinity }
        return (seen - start) / benchSettings.protocolPeriod
    }

    /// Suspicions, refutations and deaths of running members under message loss.
    static func lossy(size: Int, loss: Double, seed: UInt64) -> (suspicions: Int, refutations: Int, falseDeaths: Int) {
        var simulation = MembershipSimulation(count: size, settings: benchSettings, network: network(loss), seed: seed)
        let log = StatusLog(&simulation)
        simulation.run(until: .seconds(30))
        let refutations = simulation.members.reduce(0) { $0 + $1.counters.suspicionsRefuted }
        return (log.suspicions, refutations, log.deaths)
    }

    /// Deaths declared while one member is paused for 400 ms and after.
    static func pause(size: Int, loss: Double, seed: UInt64) -> Int {
        var simulation = MembershipSimulation(count: size, settings: benchSettings, network: network(loss), seed: seed)
        let log = StatusLog(&simulation)
        simulation.run(until: .seconds(2))
        simulation.pause(size / 4, for: .milliseconds(400))
        simulation.run(until: .seconds(8))
        return log.deaths
    }

    /// Seconds from healing a long half/half partition to everyone alive in every view.
    static func partition(size: Int, loss: Double, seed: UInt64) -> Double {
        var simulation = MembershipSimulation(count: size, settings: benchSettings, network: network(loss), seed: seed)
        simulation.run(until: .seconds(1))
        simulation.partition((0..<size).map { $0 % 2 })
        simulation.run(until: .seconds(9))
        simulation.heal()
        let start = simulation.now
        guard
            let merged = simulation.run(
                for: .seconds(60), step: .milliseconds(100),
                until: { sim in
                    sim.running.allSatisfy { sim.everyone(sees: $0, as: [.alive]) }
                })
        else { return .infinity }
        return (merged - start).seconds
    }

    /// Seconds from `join` to the newcomer seeing every member alive, and to every member seeing it.
    static func join(size: Int, loss: Double, seed: UInt64) -> (sees: Double, seen: Double) {
        var simulation = MembershipSimulation(count: size, settings: benchSettings, network: network(loss), seed: seed)
        simulation.run(until: .seconds(1))
        let newcomer = simulation.addMember()
        let start = simulation.now
        simulation.join(newcomer, seeds: [0])
        let sees = simulation.run(for: .seconds(10), step: .milliseconds(1)) { sim in
            (0..<size).allSatisfy { sim.status(of: $0, seenBy: newcomer) == .alive }
        }
        let seen = simulation.run(for: .seconds(10), step: .milliseconds(5)) { $0.everyone(sees: newcomer, as: [.alive]) }
        return ((sees.map { $0 - start } ?? .seconds(1_000_000)).seconds, (seen.map { $0 - start } ?? .seconds(1_000_000)).seconds)
    }

    /// Seconds until a cluster made of one seed and `size - 1` simultaneous joiners converges.
    static func joinStorm(size: Int, loss: Double, seed: UInt64) -> Double {
        var simulation = MembershipSimulation(count: 1, settings: benchSettings, network: network(loss), seed: seed)
        simulation.run(until: .milliseconds(100))
        for _ in 1..<size { simulation.join(simulation.addMember(), seeds: [0]) }
        let start = simulation.now
        guard
            let converged = simulation.run(
                for: .seconds(30), step: .milliseconds(50),
                until: { sim in
                    sim.running.allSatisfy { sim.everyone(sees: $0, as: [.alive]) }
                })
        else { return .infinity }
        return (converged - start).seconds
    }

    /// One machine alone with N − 1 peers (its table cache-warm, as in a node process): per
    /// period a tick that sends a probe, the target's ack, a peer's ping and its answer, all
    /// through the wire encoding. Returns real nanoseconds per period.
    static func alone(size: Int, periods: Int) -> Double {
        guard var machine = Membership(id: "m0", address: "sim://m0", settings: benchSettings, seed: 1) else { return .nan }
        var out: [MembershipDirective] = []
        for peer in 1..<size { machine.add("m\(peer)", address: "sim://m\(peer)", now: .zero, into: &out) }
        let period = benchSettings.protocolPeriod
        var random = MembershipRandom(seed: 2)
        var bytes: [UInt8] = []
        var encoded = 0
        let clock = ContinuousClock()
        let start = clock.now
        for round in 0..<periods {
            let now = period * round
            out.removeAll(keepingCapacity: true)
            machine.tick(now: now, into: &out)
            machine.tick(now: now + .milliseconds(1), into: &out)
            for case .send(let message, let destination) in out {
                bytes.removeAll(keepingCapacity: true)
                try? message.encode(into: &bytes)
                encoded += bytes.count
                guard case .ping(let sequence) = message.body, let target = destination.id else { continue }
                let ack = MembershipMessage(sender: target, senderAddress: destination.address, body: .ack(sequence: sequence))
                if let ackBytes = try? ack.encoded() { machine.receive(ackBytes, now: now + .milliseconds(2), into: &out) }
            }
            let peer = 1 + random.index(below: size - 1)
            let ping = MembershipMessage(sender: "m\(peer)", senderAddress: "sim://m\(peer)", body: .ping(sequence: UInt32(round)))
            out.removeAll(keepingCapacity: true)
            if let pingBytes = try? ping.encoded() { machine.receive(pingBytes, now: now + .milliseconds(3), into: &out) }
            for case .send(let message, _) in out {
                bytes.removeAll(keepingCapacity: true)
                try? message.encode(into: &bytes)
                encoded += bytes.count
            }
        }
        let elapsed = clock.now - start
        precondition(encoded > 0 && machine.counters.probesFailed == 0, "the workload ran: every probe acked")
        return elapsed.seconds * 1e9 / Double(periods)
    }

    /// Messages, bytes and machine time in steady state with nobody failing.
    static func idleCost(size: Int, loss: Double, seed: UInt64) -> IdleCost {
        var simulation = MembershipSimulation(count: size, settings: benchSettings, network: network(loss), seed: seed)
        simulation.run(until: .seconds(2))
        let before = simulation.traffic
        simulation.measuresMachineTime = true
        let span = Duration.seconds(20)
        simulation.run(until: simulation.now + span)
        let periods = span / benchSettings.protocolPeriod
        return IdleCost(
            messages: Double(simulation.traffic.messages - before.messages),
            bytes: Double(simulation.traffic.bytes - before.bytes),
            nanoseconds: simulation.machineTime.seconds * 1e9,
            memberPeriods: Double(size) * periods
        )
    }
}

/// Counts the suspicions and deaths members announce.
final class StatusLog {
    var suspicions = 0
    var deaths = 0

    init(_ simulation: inout MembershipSimulation) {
        simulation.onStatusChange = { _, member, _, _ in
            if member.status == .suspect { self.suspicions += 1 }
            if member.status == .dead { self.deaths += 1 }
        }
    }
}

// MARK: - Formatting

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func fixed(_ value: Double, _ decimals: Int) -> String {
    guard value.isFinite else { return value.isNaN ? "n/a" : "never" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    var text = "\(rounded)"
    if decimals == 0, text.hasSuffix(".0") { text.removeLast(2) }
    if let dot = text.firstIndex(of: "."), decimals > 0 {
        let have = text.distance(from: dot, to: text.endIndex) - 1
        if have < decimals { text += String(repeating: "0", count: decimals - have) }
    }
    return text
}

func seconds(_ value: Double) -> String { value.isFinite ? "\(fixed(value, 2)) s" : "never" }
func periods(_ value: Double) -> String { value.isFinite ? "\(fixed(value, 1)) periods" : "never" }
func percent(_ value: Double) -> String { "\(fixed(value * 100, 1)) %" }
func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
}

extension Duration {
    var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) * 1e-18
    }
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
