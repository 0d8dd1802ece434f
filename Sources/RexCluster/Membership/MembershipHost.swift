import RexControl
package import RexMembership
import Synchronization

/// What reaches the membership channel: its timer fired, or a message arrived.
@usableFromInline
package enum MembershipEvent: Sendable {
    case timer
    case message([UInt8], from: String?)
}

/// Runs one `Membership` machine for the node's membership channel: feeds it the channel's
/// events with the time on the store's clock, carries out its directives (sends through
/// `NodeTransport`, status changes as ``MemberReport``s) and keeps one timer armed at
/// its `nextDeadline` — on the transport's own thread when it offers a timer
/// (`NodeTransport.membershipArm`: the reactor in a running node, so a tick costs no thread hop
/// and no store cycle), else as a task sleeping on the store's clock that dispatches
/// the feature's timer action (tests on a `TestClock`).
///
/// Events arrive on the store's executor (start, leave, and the task timer through the channel's
/// handler) and from the transport (messages and its timer: the reactor thread in a running
/// node, which is the store's executor too); the machine sits behind
/// a mutex so the type is plainly `Sendable`, uncontended and held only while the machine runs
/// and its sends are encoded — the transport and `report` are called after it is released.
package final class MembershipHost: Sendable {
    private struct Core: Sendable {
        var machine: Membership
        var directives: [MembershipDirective] = []
        /// The deadline the timer is armed for, and the task sleeping until it.
        var armed: Duration?
        var timer: Task<Void, Never>?
        var stopped = false
    }

    /// A send encoded, or a status to report, in the order the machine asked.
    private enum Step {
        case send(id: String?, endpoint: String, bytes: [UInt8])
        case changed(Member)
    }

    private let core: Mutex<Core>
    private let env: ClusterEnvironment
    /// Hands a member's new status to the feature (an action dispatched into its store).
    private let report: @Sendable (MemberReport) -> Void
    /// Asks the store for a tick, when the transport has no timer (see `arm(at:)`).
    private let requestTick: @Sendable () -> Void
    private let myID: String
    private let stats: MembershipStats

    package init?(
        _ plan: MembershipPlan, id: String, env: ClusterEnvironment, report: @escaping @Sendable (MemberReport) -> Void,
        requestTick: @escaping @Sendable () -> Void
    ) {
        guard
            let machine = Membership(
                id: id, address: plan.address.text, incarnation: plan.incarnation, settings: plan.settings, seed: plan.seed
            )
        else { return nil }
        var admitting = machine
        admitting.admittedIDs = plan.admittedIDs
        core = Mutex(Core(machine: admitting))
        self.env = env
        self.report = report
        self.requestTick = requestTick
        myID = id
        stats = plan.stats
    }

    /// Adds the configured members (each reported alive at once, then probed), joins through
    /// the seeds if any, and starts the timer.
    package func start(members: [String: MemberAddress], seeds: [String]) {
        run { machine, now, directives in
            for id in members.keys.sorted() where id != myID {
                machine.add(id, address: members[id]!.text, now: now, into: &directives)
            }
            if !seeds.isEmpty { machine.join(seeds: seeds, now: now, into: &directives) }
            machine.tick(now: now, into: &directives)
        }
    }

    package func handle(_ event: MembershipEvent) {
        switch event {
        case .timer:
            run(timerFired: true) { machine, now, directives in machine.tick(now: now, into: &directives) }
        case .message(let bytes, let from):
            run { machine, now, directives in machine.receive(bytes, from: from, now: now, into: &directives) }
        }
    }

    /// Announces that this node leaves (its status `left` at a higher incarnation, sent to a few
    /// members at once; gossip does the rest), so peers drop it at once instead of suspecting it.
    package func leave() {
        run { machine, now, directives in machine.leave(now: now, into: &directives) }
    }

    /// Takes only `ids` from now on: a member no longer among them is declared left (see
    /// `Membership.admit(_:now:into:)`).
    package func admit(_ ids: Set<String>) {
        run { machine, now, directives in machine.admit(ids, now: now, into: &directives) }
    }

    /// Cancels the timer; later events change nothing.
    package func stop() {
        let timer = core.withLock { core -> Task<Void, Never>? in
            core.stopped = true
            defer { core.timer = nil }
            return core.timer
        }
        timer?.cancel()
    }

    /// The machine's view of every other member.
    package var members: [Member] { core.withLock { $0.machine.members } }

    private func run(timerFired: Bool = false, _ event: (inout Membership, Duration, inout [MembershipDirective]) -> Void) {
        let now = env.elapsed()
        var replaced: Task<Void, Never>?
        var rearm: Duration?
        let transportArm = env.transport.membershipArm
        let steps = core.withLock { core -> [Step] in
            guard !core.stopped else { return [] }
            if timerFired {
                core.armed = nil
                core.timer = nil
            }
            event(&core.machine, now, &core.directives)
            var steps: [Step] = []
            steps.reserveCapacity(core.directives.count)
            for directive in core.directives {
                switch directive {
                case .send(let message, let destination):
                    var bytes: [UInt8] = []
                    // The machine keeps every field within the wire's bounds; a failure is its bug, dropped.
                    guard (try? message.encode(into: &bytes)) != nil,
                        let endpoint = MemberAddress(destination.address)?.membership ?? seedEndpoint(destination)
                    else { continue }
                    steps.append(.send(id: destination.id, endpoint: endpoint, bytes: bytes))
                case .statusChanged(let member, _):
                    if member.id != myID { steps.append(.changed(member)) }
                }
            }
            core.directives.removeAll(keepingCapacity: true)
            stats.record(core.machine.counters, aliveMembers: core.machine.count(.alive))
            // A task timer is re-armed only for an earlier deadline (a later one just ticks early,
            // cheaply); the transport's timer is re-armed on any change, since re-arming it costs
            // nothing and a probe whose ack came back moves the deadline later (from the ping
            // timeout to the next period): otherwise one needless wake per period.
            if let deadline = core.machine.nextDeadline, core.armed.map({ transportArm != nil ? deadline != $0 : deadline < $0 }) ?? true {
                core.armed = deadline
                if transportArm != nil {
                    rearm = deadline
                } else {
                    replaced = core.timer
                    core.timer = arm(at: deadline)
                }
            }
            return steps
        }
        replaced?.cancel()
        if let rearm, let transportArm {
            // Outside the lock, like the sends: the transport's timer fires on its own thread.
            transportArm(rearm > now ? rearm - now : .zero) { [weak self] in self?.handle(.timer) }
        }
        for step in steps {
            switch step {
            case .send(let id, let endpoint, let bytes):
                env.transport.membershipSend(id, endpoint, bytes)
            case .changed(let member):
                let pub = MemberAddress(member.address)?.pub ?? ""
                if !member.status.isActive {
                    env.transport.membershipForget(member.id)
                } else if !pub.isEmpty {
                    env.transport.membershipLearned(member.id, pub)
                }
                report(
                    MemberReport(
                        id: member.id, endpoint: pub, status: Peer.MembershipStatus(member.status), incarnation: member.incarnation,
                        atMs: ClusterEnvironment.wholeMilliseconds(now)))
            }
        }
    }

    /// A seed is known by its membership endpoint alone (no publisher yet).
    private func seedEndpoint(_ destination: MembershipDestination) -> String? {
        destination.id == nil && !destination.address.contains(" ") ? destination.address : nil
    }

    /// A task that sleeps on the store's clock until `deadline` (time since the node started),
    /// then asks for a tick through the store, so the machine runs on the store's executor.
    private func arm(at deadline: Duration) -> Task<Void, Never> {
        let clock = env.clock
        let elapsed = env.elapsed
        let requestTick = self.requestTick
        return Task {
            // Measured when the task runs: the deadline is absolute, whenever the task starts.
            let now = elapsed()
            do { try await clock.sleep(for: deadline > now ? deadline - now : .zero) } catch { return }
            guard !Task.isCancelled else { return }
            requestTick()
        }
    }
}
