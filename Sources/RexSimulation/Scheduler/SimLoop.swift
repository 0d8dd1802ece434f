/// The one scheduler of a simulation: simulated time, the events due at future instants, and
/// the work every executor (one per node process) and the global executor have queued now.
///
/// Everything runs on the thread that called ``run(until:)``: events in (time, insertion) order,
/// and between two events every queued job until none is left — the global executor's first,
/// then each runnable executor for one turn (the jobs it had when the turn began), in the order
/// they became runnable. Nothing depends on wall time or on another thread, so one seed gives
/// one history.
///
/// Time has one global axis; each node sees it through its own clock domain, which a clock jump
/// moves ahead of the others (see ``jump(domain:by:)``). Timers are kept in the time of the
/// domain they belong to, so a jump makes that node's timers due at once.
final class SimLoop: @unchecked Sendable {
    // @unchecked Sendable: every member is touched only on the thread running the loop (the
    // entry points other code reaches — `enqueue`, `execute`, the hook — check it with
    // `checkOnLoop()`); the type is Sendable only so executors and clocks, which must be, can
    // hold it.

    /// What one executor queued.
    enum Work {
        case closure(@Sendable () -> Void)
        /// Work the simulation itself queues for a node (a delivery, a timer's fire).
        case local(() -> Void)
        case job(UnownedJob)
    }

    private struct Queue {
        let executor: SimExecutor
        var items: [Work] = []
        var head = 0
        /// In `ready`, or running its turn now.
        var scheduled = false

        var isEmpty: Bool { head == items.count }

        mutating func pop() -> Work {
            let item = items[head]
            head += 1
            if head == items.count {
                items.removeAll(keepingCapacity: true)
                head = 0
            }
            return item
        }
    }

    private struct Timer {
        let domain: Int
        let deadline: Duration
        let fire: () -> Void
    }

    /// The global simulated time.
    private(set) var now: Duration = .zero
    private var events = EventQueue<() -> Void>()
    private var globalJobs: [UnownedJob] = []
    private var globalHead = 0
    private var queues: [Queue] = []
    private var ready: [Int] = []
    private var readyHead = 0
    /// The executor running a turn now (nil: the global executor or the loop itself).
    private(set) var running: Int?
    /// Each clock domain's lead over global time, and whether it is paused (its executors not
    /// scheduled).
    private var offsets: [Duration] = []
    private var paused: [Bool] = []
    private var timers: [UInt64: Timer] = [:]
    private var nextTimer: UInt64 = 0
    private let globalExecutor = SimGlobalExecutor()
    /// Jobs and closures run so far (the cost measure of a run).
    private(set) var steps = 0
    /// Set when one instant took more than `maxStepsPerInstant` steps: the run is stopped.
    private(set) var livelock: String?
    var maxStepsPerInstant = 5_000_000

    init(domains: Int) {
        offsets = Array(repeating: .zero, count: domains)
        paused = Array(repeating: false, count: domains)
        globalExecutor.loop = self
    }

    // MARK: - Executors

    /// A new executor in `domain` (a node's process); `zombie`: a killed process winding down,
    /// never paused and never observed.
    func makeExecutor(domain: Int) -> SimExecutor {
        let executor = SimExecutor(loop: self, index: queues.count, domain: domain)
        queues.append(Queue(executor: executor))
        return executor
    }

    func enqueue(_ work: Work, on index: Int) {
        checkOnLoop()
        queues[index].items.append(work)
        if !queues[index].scheduled {
            queues[index].scheduled = true
            ready.append(index)
        }
    }

    /// Called by the runtime hook for a job handed to the global executor on this thread.
    func enqueueGlobal(_ job: UnownedJob) {
        globalJobs.append(job)
    }

    /// Whether `index` may run now: its domain not paused, or it is a zombie.
    private func isRunnable(_ index: Int) -> Bool {
        let executor = queues[index].executor
        return executor.isZombie || !paused[executor.domain]
    }

    // MARK: - Domains

    /// Time as `domain`'s clock reads it.
    func localNow(_ domain: Int) -> Duration { now + offsets[domain] }

    /// Moves `domain`'s clock ahead by `amount`: its timers now due fire at once.
    func jump(domain: Int, by amount: Duration) {
        offsets[domain] += amount
        for id in timers.keys.sorted() where timers[id]!.domain == domain { pushTimer(id) }
    }

    /// Stops or resumes scheduling `domain`'s executors (a paused process: its timers still come
    /// due, and what they queue waits for the resume).
    func setPaused(_ domain: Int, _ value: Bool) {
        paused[domain] = value
        guard !value else { return }
        for index in queues.indices where queues[index].executor.domain == domain && !queues[index].scheduled && !queues[index].isEmpty {
            queues[index].scheduled = true
            ready.append(index)
        }
    }

    func isPaused(_ domain: Int) -> Bool { paused[domain] }

    // MARK: - Timers and events

    /// Calls `body` at global time `time` (now, if it has passed).
    func at(_ time: Duration, _ body: @escaping () -> Void) {
        events.push(body, at: max(time, now))
    }

    /// Calls `fire` when `domain`'s clock reaches `deadline`; returns the timer's id.
    @discardableResult
    func schedule(domain: Int, at deadline: Duration, _ fire: @escaping () -> Void) -> UInt64 {
        nextTimer += 1
        timers[nextTimer] = Timer(domain: domain, deadline: deadline, fire: fire)
        pushTimer(nextTimer)
        return nextTimer
    }

    /// Forgets a timer; returns whether it was still pending.
    @discardableResult
    func cancelTimer(_ id: UInt64) -> Bool {
        timers.removeValue(forKey: id) != nil
    }

    private func pushTimer(_ id: UInt64) {
        guard let timer = timers[id] else { return }
        let global = timer.deadline - offsets[timer.domain]
        events.push({ [unowned self] in fireTimer(id) }, at: max(global, now))
    }

    private func fireTimer(_ id: UInt64) {
        guard let timer = timers[id], localNow(timer.domain) >= timer.deadline else { return }
        timers[id] = nil
        timer.fire()
    }

    // MARK: - Running

    /// Runs every event due up to `end`, then sets the time to `end`. Returns false when a
    /// livelock stopped it.
    @discardableResult
    func run(until end: Duration) -> Bool {
        checkOnLoop()
        guard drain() else { return false }
        while let time = events.firstTime, time <= end {
            let (_, body) = events.pop()!
            if time > now { now = time }
            body()
            guard drain() else { return false }
        }
        if end > now { now = end }
        return true
    }

    /// Runs queued work until none is left (the thread must be bound to this loop).
    @discardableResult
    func drain() -> Bool {
        let start = steps
        while true {
            if steps - start > maxStepsPerInstant {
                livelock = "more than \(maxStepsPerInstant) steps at \(now) without time moving"
                return false
            }
            if globalHead < globalJobs.count {
                let job = globalJobs[globalHead]
                globalHead += 1
                if globalHead == globalJobs.count {
                    globalJobs.removeAll(keepingCapacity: true)
                    globalHead = 0
                }
                steps += 1
                running = nil
                job.runSynchronously(on: globalExecutor.asUnownedTaskExecutor())
                continue
            }
            guard readyHead < ready.count else {
                ready.removeAll(keepingCapacity: true)
                readyHead = 0
                return true
            }
            let index = ready[readyHead]
            readyHead += 1
            guard isRunnable(index) else {
                queues[index].scheduled = false
                continue
            }
            runTurn(index)
        }
    }

    private func runTurn(_ index: Int) {
        let executor = queues[index].executor
        var count = queues[index].items.count - queues[index].head
        running = index
        while count > 0, !queues[index].isEmpty {
            count -= 1
            steps += 1
            switch queues[index].pop() {
            case .closure(let body): body()
            case .local(let body): body()
            case .job(let job): job.runSynchronously(on: executor.asUnownedSerialExecutor())
            }
        }
        running = nil
        if queues[index].isEmpty {
            queues[index].scheduled = false
        } else {
            ready.append(index)
        }
    }

    /// Runs `body` with the calling thread bound to this loop: what it builds and queues (stores,
    /// tasks) belongs to the simulation. Everything touching the loop happens inside.
    func perform<Result>(_ body: () throws -> Result) rethrows -> Result {
        precondition(GlobalJobHook.installed, "the Swift runtime exports no global enqueue hook")
        let outer = GlobalJobHook.current
        precondition(outer == nil || outer === self, "a thread runs one simulation at a time")
        GlobalJobHook.bind(self)
        defer { GlobalJobHook.bind(outer) }
        return try body()
    }

    /// Traps unless the calling thread runs this loop.
    func checkOnLoop() {
        precondition(GlobalJobHook.current === self, "simulation state touched off its thread")
    }
}

/// Where the loop runs the jobs of the global executor: nonisolated async code of the
/// simulation's tasks. New jobs it is handed go back to the loop.
final class SimGlobalExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: `loop` is set once at the loop's init, before any job exists, and
    // only read after (on the loop's thread).
    unowned(unsafe) var loop: SimLoop?

    func enqueue(_ job: consuming ExecutorJob) {
        loop?.checkOnLoop()
        loop?.enqueueGlobal(UnownedJob(job))
    }
}
