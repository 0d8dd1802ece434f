import SwiftRexTesting
import Testing

/// The Swift Concurrency bridges: AsyncStream-consuming channels and `asChannel`.
@Suite struct ConcurrencyBridgeTests {
    @Test func anAsyncStreamChannelConsumesEveryPipedValueInOneInstance() async {
        let behavior = Behavior<String, [String], Void>
            .reduce { action, state in if action.hasPrefix("echo ") { state.append(action) } }
            .produce { action, _ in
                guard !action.hasPrefix("echo ") else { return .empty }
                return .channel(value: action, scheduling: .keyed(id: "echo")) { (values: AsyncStream<String>, send, _) in
                    for await value in values { send("echo \(value)") }
                }
            }
        let store = TestStore(initial: [], behavior: behavior, environment: ())
        await store.send("a")
        await store.receive("echo a") { $0 = ["echo a"] }
        await store.send("b")
        await store.receive("echo b") { $0.append("echo b") }
        let keep = await store.keep()
        #expect(keep.entry(for: "echo")?.opens == 1 && keep.entry(for: "echo")?.deliveries == 2)
        await store.finish(cancelChannels: true)
    }

    @Test func anAsyncSequenceAsAChannelDispatchesEachElementWhileLive() async {
        let (numbers, input) = AsyncStream<Int>.makeStream()
        let behavior = Behavior<Int, [Int], Void>
            .reduce { action, state in if action >= 0 { state.append(action) } else { state = [] } }
            .supervise { state in
                Supervision { _ in [numbers.asChannel(id: "numbers") { $0 }] }
            }
        let store = TestStore(initial: [], behavior: behavior, environment: ())
        await store.settle()
        input.yield(1)
        await store.receive(1) { $0 = [1] }
        input.yield(2)
        await store.receive(2) { $0 = [1, 2] }
        await store.release()
        input.yield(3)
        await store.expectNoAction()
    }

    @Test func reschedulingAChannelEffectKeepsItAChannel() async {
        let recorder = Recorder()
        let behavior = Behavior<String, Int, Void>.produce { action, _ in
            Effect.open(
                Channel(id: "c") { _ in
                    recorder.log("open")
                    return ChannelHandler(receive: { (v: String) in recorder.log("recv \(v)") }, cancel: { recorder.log("cancel") })
                }
            )
            .scheduling(.immediately)
            .combined(with: .broadcast(action, channel: "c"))
        }
        let store = TestStore(initial: 0, behavior: behavior, environment: ())
        await store.send("x")
        #expect(recorder.log == ["open", "recv x"], "scheduling(_:) did not turn the open into an inert component")
        await store.release()
        #expect(recorder.log.last == "cancel")
    }
}
