import SwiftRex

/// A feature whose state lists channels by id: the generic subject of the engine tests.
struct ChannelSpec: Sendable, Equatable {
    var resetKey: Int? = nil
    var settle: Duration? = nil
    var value: Int? = nil
    var delivery: ChannelDelivery = .immediate
    /// Dispatch `.event("opened <id>")` synchronously inside the body.
    var announcesOpen = false
}

struct ChannelsState: Sendable, Equatable {
    var channels: [String: ChannelSpec] = [:]
    var events: [String] = []
}

enum ChannelsAction: Sendable, Equatable {
    case set(String, ChannelSpec)
    case remove(String)
    case removeAll
    case event(String)
    case broadcast(String, Int)
    case broadcastText(String, String)
    case cancel(String)
    case open(String, ChannelSpec)
    case oneShot(String)
}

/// Builds the feature; every body and handler call is logged in `recorder`.
func channelsFeature(_ recorder: Recorder) -> Behavior<ChannelsAction, ChannelsState, Void> {
    Behavior<ChannelsAction, ChannelsState, Void>
        .reduce { action, state in
            switch action {
            case .set(let id, let spec): state.channels[id] = spec
            case .remove(let id): state.channels[id] = nil
            case .removeAll: state.channels.removeAll()
            case .event(let event): state.events.append(event)
            case .broadcast, .broadcastText, .cancel, .open, .oneShot: break
            }
        }
        .produce { action, _ in
            switch action {
            case .broadcast(let id, let value): .broadcast(value, channel: id)
            case .broadcastText(let id, let text): .broadcast(text, channel: id)
            case .cancel(let id): .cancel(id: id)
            case .open(let id, let spec): .open(makeChannel(id, spec, recorder))
            case .oneShot(let id):
                Effect(
                    subscribe: { _, _ in
                        recorder.log("run \(id)")
                        return SubscriptionToken { recorder.log("stop \(id)") }
                    }, scheduling: .keyed(id: id))
            default: .empty
            }
        }
        .supervise { state in
            Supervision { _ in
                state.channels.keys.sorted().map { makeChannel($0, state.channels[$0]!, recorder) }
            }
        }
}

func makeChannel(_ id: String, _ spec: ChannelSpec, _ recorder: Recorder) -> Channel<ChannelsAction> {
    let lifetime: ChannelLifetime = spec.resetKey.map { .ephemeral(resetKey: $0, settle: spec.settle) } ?? .permanent
    let broadcasting: Broadcasting<Int> = spec.value.map { .onChange($0) } ?? .nothing
    return Channel(id: id, lifetime: lifetime, broadcasting: broadcasting, delivery: spec.delivery) { dispatch in
        recorder.log("open \(id)")
        if spec.announcesOpen { dispatch(.event("opened \(id)")) }
        return ChannelHandler(
            receive: { (value: Int) in recorder.log("recv \(id) \(value)") },
            cancel: { recorder.log("cancel \(id)") }
        )
    }
}
