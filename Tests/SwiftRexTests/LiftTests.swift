import SwiftRexTesting
import Testing

/// The lifts carry the supervise axis; collection lifts scope channel ids per element.
@Suite struct LiftTests {
    struct Room: Identifiable, Sendable, Equatable {
        let id: String
        var topic: String
    }

    enum RoomAction: Sendable, Equatable {
        case setTopic(String)
        case say(String)
    }

    struct AppState: Sendable, Equatable {
        var rooms: [Room] = []
        var lobby: Room?
    }

    enum AppAction: Sendable, Equatable {
        case add(Room)
        case remove(String)
        case room(String, RoomAction)
        case all(RoomAction)
        case lobby(RoomAction)
    }

    /// Each room keeps a "socket" keyed by its topic and forwards `say` into it.
    static func roomBehavior(_ recorder: Recorder) -> Behavior<RoomAction, Room, Void> {
        Behavior<RoomAction, Room, Void>
            .reduce { action, room in if case .setTopic(let topic) = action { room.topic = topic } }
            .produce { action, _ in
                if case .say(let text) = action { return .broadcast(text, channel: "socket") }
                return .empty
            }
            .supervise { room in
                Supervision { _ in
                    [
                        Channel(id: "socket", lifetime: .ephemeral(resetKey: room.topic)) { _ in
                            recorder.log("open \(room.id):\(room.topic)")
                            return ChannelHandler(
                                receive: { (text: String) in recorder.log("\(room.id) got \(text)") },
                                cancel: { recorder.log("cancel \(room.id):\(room.topic)") }
                            )
                        }
                    ]
                }
            }
    }

    static func appBehavior(_ recorder: Recorder) -> Behavior<AppAction, AppState, Void> {
        let room = roomBehavior(recorder)
        return Behavior<AppAction, AppState, Void>
            .reduce { action, state in
                switch action {
                case .add(let room): state.rooms.append(room)
                case .remove(let id): state.rooms.removeAll { $0.id == id }
                default: break
                }
            }
            .combined(
                with: room.liftCollection(
                    action: { if case .room(let id, let action) = $0 { (id, action) } else { nil } },
                    embed: { .room($0, $1) },
                    stateCollection: \AppState.rooms
                )
            )
            .combined(
                with: room.liftEach(
                    action: { if case .all(let action) = $0 { action } else { nil } },
                    embed: { .room($0, $1) },
                    stateCollection: \AppState.rooms
                )
            )
            .combined(
                with:
                    room
                    .liftAction(extract: { if case .lobby(let action) = $0 { action } else { nil } }, embed: { .lobby($0) })
                    .liftState(\AppState.lobby)
            )
    }

    @Test func elementsKeepTheirOwnChannelsUnderTheSameInnerId() async {
        let recorder = Recorder()
        let store = TestStore(initial: AppState(), behavior: Self.appBehavior(recorder), environment: ())
        await store.send(.add(Room(id: "a", topic: "x"))) { $0.rooms = [Room(id: "a", topic: "x")] }
        await store.send(.add(Room(id: "b", topic: "x"))) { $0.rooms.append(Room(id: "b", topic: "x")) }
        // liftCollection and liftEach both supervise the same rooms: each socket opens once.
        #expect(recorder.log == ["open a:x", "open b:x"])
        #expect(await store.keep().channels.count == 2)

        await store.send(.room("a", .say("hi")))
        #expect(recorder.log.last == "a got hi", "an element's broadcast reaches its own channel only")

        await store.send(.room("b", .setTopic("y"))) { $0.rooms[1].topic = "y" }
        #expect(recorder.log.suffix(2) == ["cancel b:x", "open b:y"], "only b recreated")

        await store.send(.all(.say("all")))
        #expect(Set(recorder.log.suffix(2)) == ["a got all", "b got all"])

        await store.send(.remove("a")) { $0.rooms.removeFirst() }
        #expect(recorder.log.last == "cancel a:x")
        await store.send(.remove("b")) { $0.rooms = [] }
        await store.finish()
    }

    @Test func anOptionalStateLiftCancelsChannelsWhenTheStateGoesAway() async {
        let recorder = Recorder()
        let behavior = Self.appBehavior(recorder).combined(
            with: .reduce { action, state in
                if case .lobby(.setTopic("close")) = action { state.lobby = nil }
            })
        let store = TestStore(initial: AppState(lobby: Room(id: "lobby", topic: "t")), behavior: behavior, environment: ())
        await store.settle()
        #expect(recorder.log == ["open lobby:t"], "channels implied by the initial state open at init")
        await store.send(.lobby(.setTopic("close"))) { $0.lobby = nil }
        #expect(recorder.log == ["open lobby:t", "cancel lobby:t"])
        await store.finish()
    }

    @Test func liftEnvironmentFeedsTheLocalEnvironmentToSupervise() async {
        let recorder = Recorder()
        struct Env: Sendable { let prefix: String }
        let local = Behavior<Int, Int, String>.supervise { state in
            Supervision { prefix in
                [
                    Channel(id: "\(prefix)-\(state)") { _ in
                        recorder.log("open \(prefix)-\(state)")
                        return .cancelOnly { recorder.log("cancel") }
                    }
                ]
            }
        }
        let global = local.liftEnvironment { (env: Env) in env.prefix }.combined(with: .reduce { action, state in state = action })
        let store = TestStore(initial: 1, behavior: global, environment: Env(prefix: "p"))
        await store.settle()
        await store.send(2) { $0 = 2 }
        #expect(recorder.log == ["open p-1", "open p-2", "cancel"])
        await store.finish(cancelChannels: true)
    }
}
