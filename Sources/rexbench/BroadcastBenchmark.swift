import SwiftRex

/// Broadcast throughput: every action's `produce` returns `Effect.broadcast` of a two-string
/// value into one permanent channel, whose handler counts it — the path of a node's `publish`
/// (one broadcast per message), without the sockets.
///
/// All actions are dispatched by a closure on the store's own executor, as in dispatch mode (a);
/// the clock stops when the observer sees the reducer's count reach N, and the run then checks
/// that the handler received exactly N values.
enum BroadcastBenchmark {
    enum Action: Sendable { case send(topic: String, payload: String) }

    struct Message: Sendable {
        let topic: String
        let payload: String
    }

    /// Counts deliveries; touched only by the channel's handler, on the store's executor.
    final class Counter: @unchecked Sendable {
        // @unchecked Sendable: written only by the handler (on the store's executor) and read
        // after `waitUntilIdle`, which orders that read after every write.
        var received = 0
        var bytes = 0
    }

    static func behavior(_ counter: Counter) -> Behavior<Action, Int, Void> {
        Behavior<Action, Int, Void>
            .reduce { _, count in count += 1 }
            .produce { action, _ in
                switch action {
                case .send(let topic, let payload): .broadcast(Message(topic: topic, payload: payload), channel: "sink")
                }
            }
            .supervise { _ in
                Supervision { _ in
                    [
                        Channel(
                            id: "sink",
                            receiving: { _ in
                                ChannelHandler(
                                    receive: { (message: Message) in
                                        counter.received += 1
                                        counter.bytes += message.payload.utf8.count
                                    }, cancel: {})
                            })
                    ]
                }
            }
    }

    static func run(actions: Int) async -> Duration {
        let executor = ThreadExecutor(name: "rexbench.store")
        defer { executor.stop() }
        let counter = Counter()
        let store = Store(initial: 0, behavior: behavior(counter), executor: .custom(executor))
        await store.waitUntilIdle()  // the sink is open
        let done = Completion()
        let token = store.observe { count in
            if count >= actions { done.fire() }
        }
        defer { token.cancel() }
        let payload = "0123456789abcdef"  // 16 B: a heap-allocated string, as a node's payload
        let start = ContinuousClock.now
        executor.execute {
            for _ in 0..<actions { store.dispatch(.send(topic: "bench.t", payload: payload)) }
        }
        let end = await done.wait()
        await store.waitUntilIdle()
        precondition(counter.received == actions, "the channel received \(counter.received) of \(actions) values")
        await store.release()
        return end - start
    }

    /// Runs `runs` times; returns broadcasts per second.
    static func runAll(actions: Int, runs: Int) async -> Sample {
        _ = await run(actions: min(actions, 100_000))  // warm-up
        var rates: [Double] = []
        for _ in 0..<runs { rates.append(Double(actions) / (await run(actions: actions)).seconds) }
        let rate = Sample(rates)
        var table = Table(
            "1b. Broadcast throughput — produce → Effect.broadcast → channel handler, \(Format.count(actions)) actions, \(runs) runs",
            header: ["mode", "broadcasts/s median", "min – max"]
        )
        table.add(["on the store's executor", "\(Format.rate(rate.median))/s", "\(Format.rate(rate.min)) – \(Format.rate(rate.max))"])
        table.notes = ["Each action is reduced (count += 1), then its effect delivered into a permanent channel."]
        table.print()
        return rate
    }
}
