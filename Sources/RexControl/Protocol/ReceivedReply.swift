/// One reply frame as a client reads it: which request it answers, and what it says.
///
/// The one place a client judges a reply: it must be a JSON object whose `"v"` is the integer
/// 1 (``ProtocolVersion``) and whose `"ok"` is a boolean. The result is decoded on demand, as
/// the document the request asked for.
///
/// ```swift
/// let reply = ReceivedReply(frame)
/// guard reply.id == .string(sentID) else { return }   // a late answer to another request
/// let keep = try reply.result(KeepDocument.self).get()
/// ```
public struct ReceivedReply: Sendable {
    /// Why a reply carries no result.
    public enum Failure: Error, Sendable, Equatable {
        /// The node answered `ok: false`.
        case refused(ControlError)
        /// Not a protocol v1 reply, or its result is not the document asked for: what is wrong.
        case unreadable(String)
    }

    /// The reply's `id` member; nil when absent or when the frame is not an object.
    public let id: JSONValue?
    private let frame: [UInt8]
    private let failure: Failure?

    /// Reads the reply's id, version and `ok` from the last frame of a reply message.
    public init(_ frame: [UInt8]) {
        self.frame = frame
        let header: Header
        do {
            header = try ControlCodec.decode(Header.self, from: frame)
        } catch let error as DecodingError {
            let problem =
                if case .dataCorrupted(let context) = error, context.codingPath.isEmpty { "not JSON" } else { "not a JSON object" }
            (id, failure) = (nil, .unreadable(problem))
            return
        } catch {
            (id, failure) = (nil, .unreadable("not a JSON object"))
            return
        }
        id = header.id
        switch ProtocolVersion.read(frame) {
        case .current:
            switch header.ok {
            case true?: failure = nil
            case false?: failure = .refused(header.error ?? ControlError(.init(rawValue: "unknown"), "(no message)"))
            case nil: failure = .unreadable(#"no "ok" member"#)
            }
        case .missing: failure = .unreadable(#"no "v" member"#)
        case .notAnInteger(let text): failure = .unreadable("protocol version \(text)")
        case .unsupported(let version): failure = .unreadable("protocol version \(version)")
        case .repeated: failure = .unreadable(#"more than one "v" member"#)
        case .notAnObject: failure = .unreadable("not a JSON object")
        }
    }

    /// The result, as a `Document`; or why there is none.
    public func result<Document: Decodable>(_ type: Document.Type) -> Result<Document, Failure> {
        if let failure { return .failure(failure) }
        do {
            guard let result = try ControlCodec.decode(ResultMember<Document>.self, from: frame).result else {
                return .failure(.unreadable(#"no "result" member"#))
            }
            return .success(result)
        } catch {
            return .failure(.unreadable("its result is not a \(Document.self): \(decodingSummary(error))"))
        }
    }

    /// The members every reply has; read leniently, so the frame's problems can be named.
    private struct Header: Decodable {
        let id: JSONValue?
        let ok: Bool?
        let error: ControlError?

        enum Key: String, CodingKey { case id, ok, error }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            id = try? container.decodeIfPresent(JSONValue.self, forKey: .id)
            ok = try? container.decodeIfPresent(Bool.self, forKey: .ok)
            error = try? container.decodeIfPresent(LenientError.self, forKey: .error)?.error
        }
    }

    /// An `error` member whose code or message may be missing or mistyped.
    private struct LenientError: Decodable {
        let error: ControlError

        enum Key: String, CodingKey { case code, message }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            let code = (try? container.decode(String.self, forKey: .code)) ?? "unknown"
            let message = (try? container.decode(String.self, forKey: .message)) ?? "(no message)"
            error = ControlError(.init(rawValue: code), message)
        }
    }

    private struct ResultMember<Document: Decodable>: Decodable {
        let result: Document?
    }
}
