import Foundation
import RexAuthority
import RexCluster
import RexControl

/// A secured node's cluster authority while it runs: the statements it holds (an
/// `AuthorityLedger`, the state machine that accepts or refuses each), and what an accepted one
/// does, on the reactor thread:
///
/// 1. the ledger is written to the data directory (without one it lives in memory) — a
///    statement that cannot be written is not taken;
/// 2. the live `ZapPolicy` becomes the files' policy with every held statement laid over it:
///    the next handshake and the next control request are judged by it;
/// 3. the membership admits the members with a key from then on (one without is declared left),
///    and connections this node opened to a member whose key changed are made anew, expecting
///    the new key, or dropped when it has none;
/// 4. the statement is published, retained, under `$auth.<key in hex>`: every node follows
///    `$auth.` from every peer with a snapshot, so a node that joins or restarts gets every
///    statement its peers hold, and each passes on only what is new to it, so gossip ends.
///
/// Statements come from operators (the control `statement` operation) and from peers; both go
/// through ``receive(_:from:)``, and every refusal is counted by reason.
final class NodeAuthority {
    /// What one statement did.
    enum Outcome {
        case accepted(AuthorityChange)
        /// Refused by the ledger (a replay of the very statement held included).
        case refused(AuthorityRefusal)
        /// Accepted, but the data directory could not take it: not taken.
        case notPersisted(String)
    }

    /// The topics statements travel under: `$auth.` and the key's 64 hex digits.
    static let topicPrefix = "$auth."
    /// Refusals from peers logged in full; then one in a thousand.
    static let refusalsLoggedInFull = 20

    private(set) var ledger: AuthorityLedger
    let policy: ZapPolicy
    /// The node's sockets (which own this authority: `NodeIO.authority`).
    private unowned let io: NodeIO
    private let directory: String?
    private let log: NodeLogger
    private var route: RouteID?
    /// Refusals the ledger does not count: gossip that is not base64, and accepted statements
    /// that could not be written.
    private var otherRefusals: [String: Int] = [:]
    private var peerRefusalsLogged = 0

    init(ledger: AuthorityLedger, policy: ZapPolicy, io: NodeIO, directory: String?, log: NodeLogger) {
        self.ledger = ledger
        self.policy = policy
        self.io = io
        self.directory = directory
        self.log = log
    }

    /// Offers every held statement to the node's peers and follows theirs.
    func start() {
        for signed in ledger.statements { publish(signed) }
        route = io.subscriber.addRoute(.prefix(Self.topicPrefix), snapshot: true) { [unowned self] messages in
            receive(gossip: messages)
        }
    }

    func close() {
        if let route { io.subscriber.removeRoute(route) }
        route = nil
    }

    /// Receives one statement's bytes from `source` (an operator's name, or `peer ID`).
    func receive(_ bytes: [UInt8], from source: String) -> Outcome {
        take([(bytes, source)])[0]
    }

    /// Receives a statement in base64 (a control request's, or a peer's message); nil when it
    /// is not base64 (counted as malformed).
    func receive(base64 text: String, from source: String) -> Outcome? {
        guard let bytes = Self.bytes(base64: text) else {
            otherRefusals["malformed", default: 0] += 1
            return nil
        }
        return receive(bytes, from: source)
    }

    /// Receives statements together: each is judged in turn, and those accepted are written to
    /// the data directory at once (one write, whatever their number: a node joining a cluster
    /// gets every statement its peers hold in a few reads) before any of them is applied. When
    /// the write fails, none is taken.
    private func take(_ items: [(bytes: [UInt8], source: String)]) -> [Outcome] {
        var next = ledger
        var outcomes: [Outcome] = []
        var changes: [(AuthorityChange, String)] = []
        for item in items {
            switch next.receive(item.bytes) {
            case .accepted(let change):
                outcomes.append(.accepted(change))
                changes.append((change, item.source))
            case .refused(let refusal):
                outcomes.append(.refused(refusal))
            }
        }
        if !changes.isEmpty, let directory {
            do {
                try AuthorityLedgerFile.save(next, directory: directory)
            } catch {
                otherRefusals["notPersisted", default: 0] += changes.count
                log.error("statement_not_persisted", ["statements": "\(changes.count)", "error": error.message])
                return outcomes.map { outcome in
                    if case .accepted = outcome { return .notPersisted(error.message) }
                    return outcome
                }
            }
        }
        ledger = next
        if !changes.isEmpty { apply(changes) }
        return outcomes
    }

    private static func bytes(base64 text: String) -> [UInt8]? {
        Data(base64Encoded: text).map { Array($0) }
    }

    /// What the metrics show.
    var metrics: MetricsDocument.Authority {
        var refused = otherRefusals
        for reason in AuthorityRefusal.Reason.allCases where ledger.counters[reason] > 0 {
            refused[reason.rawValue, default: 0] += ledger.counters[reason]
        }
        return MetricsDocument.Authority(
            statements: ledger.count, highestSerial: highestSerial, accepted: ledger.counters.accepted, refused: refused)
    }

    /// The highest serial held (0: none).
    var highestSerial: UInt64 { ledger.statements.last?.statement.serial ?? 0 }

    /// The topic a statement about `key` travels under.
    static func topic(of key: CurvePublicKey) -> String {
        topicPrefix + key.bytes.map { byte in String(byte, radix: 16).leftPadded(to: 2) }.joined()
    }

    /// What one read of the network brought under `$auth.`: taken together.
    private func receive(gossip messages: [Received]) {
        var items: [(bytes: [UInt8], source: String)] = []
        var sources: [Received] = []
        for message in messages {
            guard let bytes = Self.bytes(base64: message.value) else {
                otherRefusals["malformed", default: 0] += 1
                logPeerRefusal(message, reason: "not base64")
                continue
            }
            items.append((bytes, "peer \(message.sender)"))
            sources.append(message)
        }
        guard !items.isEmpty else { return }
        for (message, outcome) in zip(sources, take(items)) {
            switch outcome {
            case .accepted, .notPersisted: break
            case .refused(.replayed(_)): break  // gossip coming round again: the rule, not news
            case .refused(let refusal): logPeerRefusal(message, reason: refusal.description)
            }
        }
    }

    /// Lays the ledger's statements over the files' policy, once for every change taken
    /// together, then passes each change on.
    private func apply(_ changes: [(AuthorityChange, String)]) {
        let changed = policy.update(ledger.policy(over: policy.initial))
        io.membership?.admit(policy.admittedIDs)
        for id in changed.sorted() {
            io.membership?.forget(id)
            for endpoint in policy.publisherEndpoints(of: id) { io.subscriber.rekey(endpoint) }
        }
        for (change, source) in changes {
            publish(change.statement)
            log.info(
                "statement_accepted",
                ["statement": "\(change.statement.statement)", "from": source, "statements": "\(ledger.count)"])
        }
        if !changed.isEmpty { log.info("members_rekeyed", ["members": changed.sorted().joined(separator: ",")]) }
    }

    private func publish(_ signed: SignedStatement) {
        io.publisher.publishRetained(
            topic: Self.topic(of: signed.statement.key), value: Data(signed.encoded).base64EncodedString())
    }

    private func logPeerRefusal(_ message: Received, reason: String) {
        peerRefusalsLogged &+= 1
        guard peerRefusalsLogged <= Self.refusalsLoggedInFull || peerRefusalsLogged % 1000 == 0 else { return }
        log.warning(
            "statement_refused",
            ["from": "peer \(message.sender)", "topic": message.topic, "reason": reason, "refused": "\(peerRefusalsLogged)"])
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

@available(*, unavailable) extension NodeAuthority: Sendable {}
