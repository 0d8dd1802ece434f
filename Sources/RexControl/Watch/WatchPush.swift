/// A watch reply assembled from documents encoded once for every watcher.
///
/// A node streams the same keep set and state to up to ``WatchPolicy/maxWatchers`` clients;
/// encoding a large state once per watcher would multiply the cost of every change by their
/// number. So each document is encoded once (``ControlCodec``), and each watcher's reply is the
/// codec's own encoding of ``ControlReply`` of ``WatchDocument`` with those bytes in place: the
/// keys in the codec's sorted order, `id`, `leaseMs` and `sequence` encoded by the codec. The
/// tests check it against encoding the typed reply.
public struct WatchPush: Sendable {
    /// A document's JSON, as the codec wrote it.
    public struct Encoded: Sendable, Equatable {
        public let bytes: [UInt8]

        /// Encodes `document` once, for every watcher it goes to.
        public init<Document: Encodable>(_ document: Document) throws {
            bytes = try ControlCodec.encode(document)
        }
    }

    public var id: JSONValue
    public var sequence: Int
    public var leaseMs: Int
    public var keep: Encoded?
    public var state: Encoded?

    /// The push numbered `sequence` of the watch `id`, with the documents it carries.
    public init(id: JSONValue, sequence: Int, leaseMs: Int, keep: Encoded?, state: Encoded?) {
        self.id = id
        self.sequence = sequence
        self.leaseMs = leaseMs
        self.keep = keep
        self.state = state
    }

    /// `{"id":…,"ok":true,"result":{"keep":…,"leaseMs":…,"sequence":…,"state":…},"v":1}`.
    public func bytes() throws -> [UInt8] {
        var reply = Array(#"{"id":"#.utf8) + (try ControlCodec.encode(id)) + Array(#","ok":true,"result":{"#.utf8)
        if let keep { reply += Array(#""keep":"#.utf8) + keep.bytes + [UInt8(ascii: ",")] }
        reply += Array(#""leaseMs":\#(leaseMs),"sequence":\#(sequence)"#.utf8)
        if let state { reply += Array(#","state":"#.utf8) + state.bytes }
        reply += Array(#"},"v":\#(ProtocolVersion.current)}"#.utf8)
        return reply
    }
}
