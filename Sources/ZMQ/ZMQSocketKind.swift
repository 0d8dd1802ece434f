import CZMQ

/// The messaging pattern role of a ``ZMQSocket`` (libzmq's socket type).
public enum ZMQSocketKind: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Publisher: sends to all matching subscribers, drops when a subscriber is at its HWM.
    case pub
    /// Subscriber: receives messages whose first frame starts with a subscribed prefix.
    case sub
    /// Publisher that also receives subscription frames (`0x01`/`0x00` + prefix).
    case xpub
    /// Subscriber that sends subscriptions as frames (used in brokers).
    case xsub
    /// Routes by peer identity: received messages start with the sender's routing id frame.
    case router
    /// Asynchronous request/reply client, load-balances across peers.
    case dealer
    /// Strict request/reply client (send, receive, send, …).
    case req
    /// Strict request/reply server (receive, send, receive, …).
    case rep
    /// Exclusive one-to-one pair.
    case pair
    /// Pipeline sender, load-balances across pullers.
    case push
    /// Pipeline receiver, fair-queues from pushers.
    case pull
    /// Raw TCP (`ZMQ_STREAM`): no ZMTP framing. Each message is `[routing id, bytes]`; an empty
    /// `bytes` received means a peer connected or disconnected, and sending `[id, empty]` closes
    /// that connection. Lets a reactor serve a plain protocol such as HTTP with no new dependency.
    case stream

    /// The libzmq socket type constant.
    var rawValue: Int32 {
        switch self {
        case .pub: return ZMQ_PUB
        case .sub: return ZMQ_SUB
        case .xpub: return ZMQ_XPUB
        case .xsub: return ZMQ_XSUB
        case .router: return ZMQ_ROUTER
        case .dealer: return ZMQ_DEALER
        case .req: return ZMQ_REQ
        case .rep: return ZMQ_REP
        case .pair: return ZMQ_PAIR
        case .push: return ZMQ_PUSH
        case .pull: return ZMQ_PULL
        case .stream: return ZMQ_STREAM
        }
    }

    /// The conventional upper-case name, e.g. `"PUB"`.
    public var description: String {
        switch self {
        case .pub: return "PUB"
        case .sub: return "SUB"
        case .xpub: return "XPUB"
        case .xsub: return "XSUB"
        case .router: return "ROUTER"
        case .dealer: return "DEALER"
        case .req: return "REQ"
        case .rep: return "REP"
        case .pair: return "PAIR"
        case .push: return "PUSH"
        case .pull: return "PULL"
        case .stream: return "STREAM"
        }
    }
}
