/// A failed libsodium call: which function and what it means for the caller.
public struct SodiumError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The libsodium function that failed, e.g. `crypto_sign_ed25519_seed_keypair`.
    public let function: String
    public let message: String

    public init(function: String, message: String) {
        self.function = function
        self.message = message
    }

    public var description: String { "\(function): \(message)" }
}
