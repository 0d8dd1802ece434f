/// A deterministic network of ``Membership`` machines on a virtual clock, for tests and
/// `membench`: messages go through the real wire encoding, with seeded loss, uniform random
/// delay, partitions, crashed and paused members. Nothing sleeps; `run(until:)` jumps from event
/// to event, each member ticking exactly at its ``Membership/nextDeadline``.
///
/// Member `i` has id `m<i>` and address `sim://m<i>`.
public struct MembershipSimulation {
    /// The simulated links: the same loss and delay range for every pair.
    public struct Network: Sendable {
        /// Probability that a message is lost.
        public var loss: Double
        /// One-way delay, uniform in this range.
        public var minimumDelay: Duration
        public var maximumDelay: Duration
        /// Messages from one member to another kept while a partition cuts them, then delivered
        /// in order at the heal, as a stalled TCP connection's queue resumes (ZeroMQ keeps up to
        /// its high-water mark per peer); past it they are lost. 0: a cut loses everything.
        public var heldAcrossPartition: Int

        /// A network; the default is lossless with 1–5 ms of delay, and a cut loses what crosses it.
        public init(
            loss: Double = 0, minimumDelay: Duration = .milliseconds(1), maximumDelay: Duration = .milliseconds(5),
            heldAcrossPartition: Int = 0
        ) {
            self.loss = loss
            self.minimumDelay = minimumDelay
            self.maximumDelay = maximumDelay
            self.heldAcrossPartition = max(0, heldAcrossPartition)
        }
    }

    /// Totals over the run, for cost figures.
    public struct Traffic: Sendable {
        /// Messages sent, and their encoded bytes.
        public var messages = 0
        public var bytes = 0
        /// Messages dropped: by loss, by a partition, or sent to a crashed member.
        public var lost = 0
        public var cutByPartition = 0
        public var toCrashed = 0
        /// Messages sent per kind (`ping`, `ack`, …).
        public var byKind: [String: Int] = [:]
    }

    enum Event {
        case wake(Int)
        case deliver(to: Int, bytes: [UInt8])
    }

    /// The virtual clock.
    public private(set) var now: Duration = .zero
    /// The machines; member `i` is `members[i]`.
    public private(set) var members: [Membership] = []
    public var network: Network
    public private(set) var traffic = Traffic()
    /// Time spent inside the machines' own calls (ticks and receives, decoding and encoding included), when
    /// `measuresMachineTime` is on: the CPU cost a runtime would pay, without the simulator's.
    public var measuresMachineTime = false
    public private(set) var machineTime: Duration = .zero
    /// Ticks and receives handed to the machines.
    public private(set) var machineCalls = 0
    /// Ticks after which a deadline was still due (a machine bug; tests expect 0).
    public private(set) var stalls = 0
    /// Called for every status change a member announces: (observer, member, previous, time).
    public var onStatusChange: ((Int, Member, MemberStatus?, Duration) -> Void)?

    /// Whether member `i` has crashed.
    public private(set) var crashed: [Bool] = []
    private var pausedUntil: [Duration] = []
    private var group: [Int] = []
    /// Messages held across the cut (see `Network.heldAcrossPartition`), oldest first, and their count per (from, to).
    private var held: [(to: Int, bytes: [UInt8])] = []
    private var heldPerPair: [Int: Int] = [:]
    private var scheduledWake: [Duration?] = []
    private var ticked: [Bool] = []
    private var queue = EventHeap<Event>()
    private var random: MembershipRandom
    private var addressToMember: [String: Int] = [:]
    private var directives: [MembershipDirective] = []
    private let settings: MembershipSettings
    private let seed: UInt64

    /// `count` members that all know each other from the start (as from a shared cluster file).
    public init(count: Int, settings: MembershipSettings = MembershipSettings(), network: Network = Network(), seed: UInt64) {
        self.settings = settings
        self.network = network
        self.seed = seed
        self.random = MembershipRandom(seed: seed ^ 0x5157_494D)
        for _ in 0..<count { _ = addMember() }
        for i in 0..<count {
            for j in 0..<count where j != i {
                members[i].add(Self.id(j), address: Self.address(j), now: now, into: &directives)
            }
            directives.removeAll(keepingCapacity: true)
            schedule(i)
        }
    }

    /// Member `i`'s id and address.
    public static func id(_ member: Int) -> String { "m\(member)" }
    public static func address(_ member: Int) -> String { "sim://m\(member)" }

    /// A new member that knows nobody; returns its number. Use ``join(_:seeds:)`` to connect it.
    public mutating func addMember() -> Int {
        let number = members.count
        guard
            let member = Membership(
                id: Self.id(number), address: Self.address(number), settings: settings, seed: seed &+ UInt64(number) &* 0x9E37_79B9)
        else {
            preconditionFailure("Internal inconsistency: simulated ids are within the wire bounds")
        }
        members.append(member)
        crashed.append(false)
        pausedUntil.append(.zero)
        group.append(0)
        scheduledWake.append(nil)
        ticked.append(false)
        addressToMember[Self.address(number)] = number
        schedule(number)
        return number
    }

    // MARK: - Faults and operations

    /// The member stops at once (kill -9): it sends nothing and everything sent to it is lost.
    public mutating func crash(_ member: Int) { crashed[member] = true }

    /// The member does nothing until `now + duration` (SIGSTOP): messages wait for it and are
    /// handled when it resumes, as a socket's queue would hold them.
    public mutating func pause(_ member: Int, for duration: Duration) { pausedUntil[member] = now + duration }

    /// Messages between members of different groups are lost (`groups[i]` is member i's group).
    public mutating func partition(_ groups: [Int]) {
        for i in group.indices { group[i] = i < groups.count ? groups[i] : 0 }
    }

    /// Every member in one group again.
    public mutating func heal() {
        for i in group.indices { group[i] = 0 }
        // The stalled queues resume: everything held arrives in a burst, in order.
        for (offset, message) in held.enumerated() {
            queue.push(.deliver(to: message.to, bytes: message.bytes), at: now + network.minimumDelay + .microseconds(offset))
        }
        held.removeAll()
        heldPerPair.removeAll()
    }

    /// `member` joins through the members `seeds`.
    public mutating func join(_ member: Int, seeds: [Int]) {
        members[member].join(seeds: seeds.map(Self.address), now: now, into: &directives)
        carryOut(from: member)
        schedule(member)
    }

    /// `member` leaves gracefully (and keeps answering until it is crashed).
    public mutating func leave(_ member: Int) {
        members[member].leave(now: now, into: &directives)
        carryOut(from: member)
        schedule(member)
    }

    // MARK: - Reading

    /// What `observer` believes about `member` (nil: unknown to it).
    public func status(of member: Int, seenBy observer: Int) -> MemberStatus? {
        members[observer].member(Self.id(member))?.status
    }

    /// Members not crashed.
    public var running: [Int] { members.indices.filter { !crashed[$0] } }

    /// Whether every running member other than `member` believes `member` has one of `statuses`.
    public func everyone(sees member: Int, as statuses: Set<MemberStatus>) -> Bool {
        for observer in members.indices where observer != member && !crashed[observer] {
            guard let status = status(of: member, seenBy: observer), statuses.contains(status) else { return false }
        }
        return true
    }

    // MARK: - Running

    /// Runs every event up to `time`, then sets the clock to it.
    public mutating func run(until time: Duration) {
        while let first = queue.firstTime, first <= time {
            guard let entry = queue.pop() else { break }
            now = entry.time
            handle(entry.payload)
        }
        now = max(now, time)
    }

    /// Runs in steps of `step` until `condition` holds (checked after each step) or `limit`
    /// passes; returns the time it first held, or nil.
    public mutating func run(for limit: Duration, step: Duration = .milliseconds(10), until condition: (MembershipSimulation) -> Bool)
        -> Duration?
    {
        let end = now + limit
        while now < end {
            run(until: min(end, now + step))
            if condition(self) { return now }
        }
        return nil
    }

    private mutating func handle(_ event: Event) {
        switch event {
        case .wake(let member):
            guard scheduledWake[member] == now else { return }
            scheduledWake[member] = nil
            guard !crashed[member] else { return }
            ticked[member] = true
            if pausedUntil[member] > now {
                schedule(member, at: pausedUntil[member])
                return
            }
            timed { $0.members[member].tick(now: $0.now, into: &$0.directives) }
            carryOut(from: member)
            if let deadline = members[member].nextDeadline, deadline <= now {
                // A tick leaves no deadline due; if one is, it is a bug the tests must see, not a hang.
                stalls += 1
                schedule(member, at: now + .microseconds(1))
            } else {
                schedule(member)
            }
        case .deliver(let to, let bytes):
            guard !crashed[to] else {
                traffic.toCrashed += 1
                return
            }
            if pausedUntil[to] > now {
                queue.push(event, at: pausedUntil[to])
                return
            }
            timed { $0.members[to].receive(bytes, now: $0.now, into: &$0.directives) }
            carryOut(from: to)
            schedule(to)
        }
    }

    private mutating func timed(_ body: (inout MembershipSimulation) -> Void) {
        machineCalls += 1
        guard measuresMachineTime else {
            body(&self)
            return
        }
        let clock = ContinuousClock()
        let start = clock.now
        body(&self)
        machineTime += clock.now - start
    }

    /// Delivers what `member` asked for: sends into the network, status changes to the observer.
    private mutating func carryOut(from member: Int) {
        guard !directives.isEmpty else { return }
        for directive in directives {
            switch directive {
            case .send(let message, let destination):
                send(message, from: member, to: destination)
            case .statusChanged(let changed, let previous):
                onStatusChange?(member, changed, previous, now)
            }
        }
        directives.removeAll(keepingCapacity: true)
    }

    private mutating func send(_ message: MembershipMessage, from member: Int, to destination: MembershipDestination) {
        let clock = ContinuousClock()
        let start = measuresMachineTime ? clock.now : nil
        guard let bytes = try? message.encoded() else {
            preconditionFailure("Internal inconsistency: the machine built an unencodable message \(message)")
        }
        // Encoding is the runtime's cost too.
        if let start { machineTime += clock.now - start }
        traffic.messages += 1
        traffic.bytes += bytes.count
        traffic.byKind[Self.kind(of: message.body), default: 0] += 1
        guard let target = addressToMember[destination.address] else { return }
        if group[member] != group[target] {
            traffic.cutByPartition += 1
            let pair = member &* 65_536 &+ target
            if heldPerPair[pair, default: 0] < network.heldAcrossPartition {
                heldPerPair[pair, default: 0] += 1
                held.append((target, bytes))
            }
            return
        }
        if network.loss > 0, random.chance(network.loss) {
            traffic.lost += 1
            return
        }
        let spread = network.maximumDelay - network.minimumDelay
        let delay = network.minimumDelay + spread * (Double(random.next() >> 11) * 0x1.0p-53)
        queue.push(.deliver(to: target, bytes: bytes), at: now + delay)
    }

    /// Wakes `member` at its next deadline (or `time`), unless an earlier wake is already set.
    private mutating func schedule(_ member: Int, at time: Duration? = nil) {
        guard !crashed[member] else { return }
        // A member that never ticked starts now; one with nothing pending (left) sleeps until a message comes.
        guard var wake = time ?? members[member].nextDeadline ?? (ticked[member] ? nil : now) else { return }
        // Never in the past: a deadline at `now` runs as the next event.
        if wake < now { wake = now }
        if let scheduled = scheduledWake[member], scheduled <= wake, scheduled >= now { return }
        scheduledWake[member] = wake
        queue.push(.wake(member), at: wake)
    }

    static func kind(of body: MembershipMessage.Body) -> String {
        switch body {
        case .ping: "ping"
        case .pingRequest: "pingRequest"
        case .ack: "ack"
        case .nack: "nack"
        case .join: "join"
        case .joinReply: "joinReply"
        case .gossip: "gossip"
        }
    }
}
