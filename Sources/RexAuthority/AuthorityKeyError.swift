/// An authority key that cannot be made, read or used: what is wrong, in one sentence.
public struct AuthorityKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
