public import Distributed
import Synchronization

/// Sends an executed call's outcome back to its caller: the value, `Void`, or the thrown error as
/// an ``ActorCallError`` (``ActorCallError/Code-swift.struct/remoteError`` with the error's type and
/// description). For a one-way call nothing travels back; a thrown error is counted.
public final class ClusterResultHandler: DistributedTargetInvocationResultHandler, Sendable {
    public typealias SerializationRequirement = Codable

    let system: ClusterActorSystem
    let caller: String
    let callID: UInt64
    let oneWay: Bool
    /// Whether an outcome was sent: exactly one per call, whichever path ends it.
    private let answered = Atomic<Bool>(false)

    init(system: ClusterActorSystem, caller: String, callID: UInt64, oneWay: Bool) {
        self.system = system
        self.caller = caller
        self.callID = callID
        self.oneWay = oneWay
    }

    public func onReturn<Success: SerializationRequirement>(value: Success) async throws {
        guard claim(), !oneWay else { return }
        let frame: [UInt8]
        do {
            let encoded = try ArgumentCodec.encode(value, limit: system.settings.maxArgumentBytes)
            frame = ActorFrame.encodeReplyValue(callID: callID, value: encoded)
        } catch {
            frame = ActorFrame.encodeReplyError(callID: callID, error)
        }
        system.sendReply(frame, to: caller, callID: callID)
    }

    public func onReturnVoid() async throws {
        guard claim(), !oneWay else { return }
        system.sendReply(ActorFrame.encodeReplyVoid(callID: callID), to: caller, callID: callID)
    }

    public func onThrow<Err: Error>(error: Err) async throws {
        fail(error)
    }

    /// Answers with `error` unless an outcome was already sent.
    func fail(_ error: any Error) {
        guard claim() else { return }
        if oneWay {
            system.count(\.oneWayFailures)
            return
        }
        let described: ActorCallError
        if let own = error as? ActorCallError {
            described = own
        } else {
            described = ActorCallError(.remoteError, "\(error)", errorType: String(reflecting: type(of: error)))
        }
        system.sendReply(ActorFrame.encodeReplyError(callID: callID, described), to: caller, callID: callID)
    }

    private func claim() -> Bool {
        !answered.exchange(true, ordering: .acquiringAndReleasing)
    }
}
