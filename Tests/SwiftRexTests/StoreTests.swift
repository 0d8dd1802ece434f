import Foundation
import SwiftRexTesting
import Synchronization
import Testing

@testable import SwiftRex

/// The store: batching, executors, dispatch from any thread, observation, runaway loops.
@Suite struct StoreTests {
    @Test func dispatchFromManyThreadsLosesNothing() async {
        let store = Store(initial: 0, behavior: Behavior<Int, Int, Void>.reduce { action, state in state += action })
        let threads = 4
        let perThread = 10_000
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<threads {
                group.addTask {
                    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                        Thread.detachNewThread {
                            for _ in 0..<perThread { store.dispatch(1) }
                            done.resume()
                        }
                    }
                }
            }
        }
        await store.waitUntilIdle()
        #expect(store.state == threads * perThread)
    }

    @Test func aStateThatExistsOnlyInsideOneBatchNeverOpensAChannel() async {
        let recorder = Recorder()
        let executor = ManualExecutor()
        let store = Store(initial: ChannelsState(), behavior: channelsFeature(recorder), executor: .custom(executor))
        executor.runAll()
        store.dispatch(.set("flash", ChannelSpec()))
        store.dispatch(.remove("flash"))
        store.dispatch(.set("kept", ChannelSpec()))
        executor.runAll()
        #expect(recorder.log == ["open kept"])
        #expect(store.state.channels.keys.sorted() == ["kept"])
        withExtendedLifetime(store) {}
    }

    @Test func switchingIdsOpensTheNewOneBeforeClosingTheOld() async {
        let recorder = Recorder()
        let executor = ManualExecutor()
        let store = Store(
            initial: ChannelsState(channels: ["old": ChannelSpec()]), behavior: channelsFeature(recorder), executor: .custom(executor))
        executor.runAll()
        store.dispatch(.remove("old"))
        store.dispatch(.set("new", ChannelSpec()))
        executor.runAll()
        #expect(recorder.log == ["open old", "open new", "cancel old"])
        withExtendedLifetime(store) {}
    }

    @Test func reconcileRunsOncePerBatch() async {
        let recorder = Recorder()
        let executor = ManualExecutor()
        let store = Store(initial: ChannelsState(), behavior: channelsFeature(recorder), executor: .custom(executor))
        executor.runAll()
        for n in 0..<100 { store.dispatch(.event("\(n)")) }
        executor.runAll()
        // Read on the store's executor, as one more job of it: no hop through the cooperative pool.
        let cycles = Mutex<Int?>(nil)
        executor.execute { cycles.withLock { $0 = store.runtime.assumeIsolated { $0.reconcileCounters.cycles } } }
        executor.runAll()
        #expect(cycles.withLock { $0 } == 2, "one at init, one for the batch of 100")
        #expect(store.state.events.count == 100)
    }

    @Test func observersSeeTheStateAfterEachBatchUntilCancelled() async {
        let store = Store(initial: 0, behavior: Behavior<Int, Int, Void>.reduce { action, state in state += action })
        let seen = Mutex<[Int]>([])
        let token = store.observe { state in seen.withLock { $0.append(state) } }
        store.dispatch(5)
        await store.waitUntilIdle()
        token.cancel()
        store.dispatch(1)
        await store.waitUntilIdle()
        #expect(seen.withLock { $0 } == [5])
        #expect(store.state == 6)
    }

    @Test func aRunawayActionLoopIsReportedAndStopped() async {
        let diagnostics = Recorder()
        let behavior = Behavior<String, Int, Void>
            .reduce { action, state in if action == "loop" { state += 1 } else { state = -1 } }
            .produce { action, _ in action == "loop" ? .just("loop") : .empty }
        let store = Store(
            initial: 0, behavior: behavior,
            options: StoreOptions(runawayThreshold: 50, onDiagnostic: { diagnostics.log($0.kind.rawValue) })
        )
        store.dispatch("loop")
        await store.waitUntilIdle()
        #expect(diagnostics.log == ["runawayActionLoop"])
        #expect(store.state == 51, "the first action plus 50 feedback hops ran, then the loop was cut")
        store.dispatch("reset")
        await store.waitUntilIdle()
        #expect(store.state == -1, "the store still works")
    }

    @Test func theMainActorCanBeTheExecutor() async {
        let store = Store(
            initial: 0,
            behavior: Behavior<Int, Int, Void>.reduce { action, state in
                MainActor.assertIsolated()
                state += action
            }, executor: .main)
        store.dispatch(2)
        await store.waitUntilIdle()
        #expect(store.state == 2)
    }

    @Test func stateStreamYieldsEachBatch() async {
        let store = Store(initial: 0, behavior: Behavior<Int, Int, Void>.reduce { action, state in state += action })
        var iterator = store.states.makeAsyncIterator()
        store.dispatch(3)
        #expect(await iterator.next() == 3)
    }
}
