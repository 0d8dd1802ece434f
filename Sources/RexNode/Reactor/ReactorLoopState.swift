import Dispatch
import Foundation
import RexCluster
import SwiftRex
import Synchronization
import ZMQ

/// The reactor loop's thread-only state: readers, the poller built from them, and turn-end hooks.
final class LoopState {
    struct Reader {
        let socket: ZMQSocket
        let handler: () -> Void
    }

    /// The longest a poll waits with nothing to do by default: work arrives through the eventfd,
    /// so this is a safety net, not a timer.
    static let defaultIdleWake = Duration.seconds(1)

    /// The longest a poll waits with nothing to do.
    let idleWake: Duration
    /// What the timers' deadlines are on.
    let clock: ReactorClock

    init(idleWake: Duration, clock: ReactorClock) {
        self.idleWake = idleWake
        self.clock = clock
    }

    var readers: [UInt64: Reader] = [:]
    var order: [UInt64] = []
    var nextID: UInt64 = 0
    var poller = ZMQPoller(capacity: 8)
    var pollerDirty = true
    var wakeToken: ZMQPoller.Token?
    var readerTokens: [(UInt64, ZMQPoller.Token)] = []
    var turnEndHooks: [(id: UInt64, body: () -> Void)] = []
    /// Pending timers, unordered: a node arms one or two, so a scan beats a heap.
    var timers: [(id: UInt64, deadline: Duration, body: () -> Void)] = []
    private var due: [() -> Void] = []

    func addTimer(at deadline: Duration, _ body: @escaping () -> Void) -> TimerToken {
        nextID += 1
        timers.append((nextID, deadline, body))
        return TimerToken(id: nextID)
    }

    /// Runs (and removes) every timer whose deadline has passed; a body may add or cancel timers.
    func fireDueTimers() {
        guard !timers.isEmpty else { return }
        let now = clock.elapsed()
        guard timers.contains(where: { $0.deadline <= now }) else { return }
        due.removeAll(keepingCapacity: true)
        timers.removeAll { timer in
            guard timer.deadline <= now else { return false }
            due.append(timer.body)
            return true
        }
        for body in due { body() }
        due.removeAll(keepingCapacity: true)
    }

    /// Until the earliest timer (zero if one is due), at most `idleWake`.
    func pollTimeout() -> Duration {
        guard let earliest = timers.lazy.map(\.deadline).min() else { return idleWake }
        let now = clock.elapsed()
        return earliest <= now ? .zero : min(idleWake, earliest - now)
    }

    func addTurnEndHook(_ body: @escaping () -> Void) -> TurnEndToken {
        nextID += 1
        turnEndHooks.append((nextID, body))
        return TurnEndToken(id: nextID)
    }

    func addReader(_ socket: ZMQSocket, _ handler: @escaping () -> Void) -> ReaderToken {
        nextID += 1
        readers[nextID] = Reader(socket: socket, handler: handler)
        order.append(nextID)
        pollerDirty = true
        return ReaderToken(id: nextID)
    }

    func removeReader(_ token: ReaderToken) {
        guard readers.removeValue(forKey: token.id) != nil else { return }
        order.removeAll { $0 == token.id }
        pollerDirty = true
    }

    func poll(wake: WakeSignal, timeout: Duration) {
        if pollerDirty { rebuildPoller(wake: wake) }
        let ready: Int
        do {
            ready = try poller.poll(timeout: timeout)
        } catch {
            // A socket closed between rebuilds, or the context is terminating: rebuild next turn.
            pollerDirty = true
            return
        }
        guard ready > 0 else { return }
        if let wakeToken, poller.isReadable(wakeToken) { wake.drain() }
        for (id, token) in readerTokens where poller.isReadable(token) {
            // A handler may remove readers (its own or others'): check each is still registered.
            readers[id]?.handler()
        }
    }

    private func rebuildPoller(wake: WakeSignal) {
        poller.removeAll()
        wakeToken = poller.register(fileDescriptor: wake.fileDescriptor, for: .readable)
        readerTokens.removeAll(keepingCapacity: true)
        for id in order {
            guard let reader = readers[id], !reader.socket.isClosed,
                let token = try? poller.register(reader.socket, for: .readable)
            else { continue }
            readerTokens.append((id, token))
        }
        pollerDirty = false
    }
}
