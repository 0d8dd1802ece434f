/// The calls awaiting replies, the per-member bounds and the members' statuses: a state machine
/// with no I/O and no clock, generic over what waits (a continuation in the system, a value in tests).
///
/// Every decision the failure semantics rest on is made here: a call to a dead or departed member
/// is refused, a member over its in-flight bound is refused, a reply is accepted only from the
/// member the call went to, and a member going down hands back every call still waiting on it.
struct CallLedger<Waiter> {
    struct Pending {
        let member: String
        var waiter: Waiter
    }

    /// What ``start(to:waiter:)`` decided.
    enum Start {
        /// Send the call under this id.
        case send(callID: UInt64)
        /// Fail the call at once.
        case reject(ActorCallError)
    }

    /// What a received reply matched.
    enum Completion {
        /// The waiting call: resume it.
        case resume(Waiter)
        /// No call waits under that id (late after a deadline, or never issued).
        case unknown
        /// A call waits under that id, but on another member: the reply is forged; the call keeps waiting.
        case forged
    }

    private var pending: [UInt64: Pending] = [:]
    private var inFlight: [String: Int] = [:]
    private(set) var statuses: [String: ActorMemberStatus] = [:]
    private var nextCallID: UInt64 = 1
    /// Calls awaiting a reply from one member at most.
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// The number of calls awaiting a reply.
    var count: Int { pending.count }

    /// Calls awaiting a reply from `member`.
    func inFlight(to member: String) -> Int { inFlight[member] ?? 0 }

    /// Registers a call to `member` unless the member is down or at its bound.
    mutating func start(to member: String, waiter: Waiter) -> Start {
        switch statuses[member] {
        case .dead?: return .reject(ActorCallError(.memberDead, "member \(member) was declared dead"))
        case .left?: return .reject(ActorCallError(.memberLeft, "member \(member) left the cluster"))
        case .alive?, nil: break
        }
        let current = inFlight[member] ?? 0
        guard current < limit else {
            return .reject(ActorCallError(.tooManyInFlight, "\(current) calls to \(member) already await replies (limit \(limit))"))
        }
        let callID = nextCallID
        nextCallID = nextCallID == .max ? 1 : nextCallID + 1  // 0 marks one-way calls
        pending[callID] = Pending(member: member, waiter: waiter)
        inFlight[member] = current + 1
        return .send(callID: callID)
    }

    /// Matches a reply from `member` to the call it answers.
    mutating func complete(_ callID: UInt64, from member: String) -> Completion {
        guard let call = pending[callID] else { return .unknown }
        guard call.member == member else { return .forged }
        return .resume(remove(callID)!)
    }

    /// Removes a waiting call (deadline, transport refusal); nil if it already completed.
    mutating func remove(_ callID: UInt64) -> Waiter? {
        guard let call = pending.removeValue(forKey: callID) else { return nil }
        let left = (inFlight[call.member] ?? 1) - 1
        inFlight[call.member] = left > 0 ? left : nil
        return call.waiter
    }

    /// Changes a waiting call's waiter in place; false if it already completed.
    mutating func update(_ callID: UInt64, _ body: (inout Waiter) -> Void) -> Bool {
        guard pending[callID] != nil else { return false }
        body(&pending[callID]!.waiter)
        return true
    }

    /// Records `member`'s status; when it is dead or left, returns the calls waiting on it (removed)
    /// with the error to fail them with.
    mutating func memberChanged(_ member: String, to status: ActorMemberStatus) -> (waiters: [Waiter], error: ActorCallError?) {
        statuses[member] = status
        let error: ActorCallError
        switch status {
        case .alive: return ([], nil)
        case .dead: error = ActorCallError(.memberDead, "member \(member) was declared dead while the call was in flight")
        case .left: error = ActorCallError(.memberLeft, "member \(member) left the cluster while the call was in flight")
        }
        let ids = pending.filter { $0.value.member == member }.map(\.key).sorted()
        return (ids.compactMap { remove($0) }, error)
    }

    /// Removes every waiting call (shutdown).
    mutating func removeAll() -> [Waiter] {
        let waiters = pending.keys.sorted().compactMap { pending[$0]?.waiter }
        pending.removeAll()
        inFlight.removeAll()
        return waiters
    }
}
