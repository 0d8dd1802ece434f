import SwiftRex

/// One node process's serial executor in a simulation: its store runs here, so reduce,
/// supervise, channel bodies and what the transport delivers run in the loop's turns for this
/// executor — none while its node is paused.
final class SimExecutor: ClosureRunningExecutor, @unchecked Sendable {
    // @unchecked Sendable: its only mutable member, `isZombie`, and the loop it calls are used
    // on the loop's thread alone (`SimLoop.enqueue` checks it).
    unowned let loop: SimLoop
    /// Its place among the loop's executors.
    let index: Int
    /// The clock domain (node) it belongs to.
    let domain: Int
    /// A killed process winding down (its store releasing): run, never paused, never observed.
    var isZombie = false

    init(loop: SimLoop, index: Int, domain: Int) {
        self.loop = loop
        self.index = index
        self.domain = domain
    }

    func execute(_ work: @escaping @Sendable () -> Void) {
        loop.enqueue(.closure(work), on: index)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        loop.enqueue(.job(UnownedJob(job)), on: index)
    }

    func checkIsolated() {
        precondition(loop.running == index, "not on simulated executor \(index)")
    }
}
