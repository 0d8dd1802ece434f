import CSodium

/// libsodium's one-time set-up (`sodium_init`), run before the first call that needs it.
///
/// `sodium_init` picks the fastest implementations for this CPU and seeds the random generator;
/// it may be called again and from any thread, and a Swift `static let` runs it once anyway.
enum SodiumLibrary {
    /// Whether libsodium is usable (`sodium_init` returned 0, or 1: already initialised).
    static let isReady: Bool = sodium_init() >= 0

    /// Throws when libsodium could not initialise (it cannot read the system's random source).
    static func ensureReady(_ function: String) throws(SodiumError) {
        guard isReady else {
            throw SodiumError(function: function, message: "libsodium could not initialise (sodium_init failed: no random source?)")
        }
    }
}
