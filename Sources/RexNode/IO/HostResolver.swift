import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// Looks host names up off the reactor thread: `getaddrinfo` blocks for as long as the DNS takes
/// (seconds when a server does not answer), so lookups run one at a time on a queue of their own
/// and each answer is handed to a callback there.
struct HostResolver: Sendable {
    /// Nil when `host` resolves to at least one TCP address, else why not (one line).
    let lookup: @Sendable (String) -> String?

    /// The system's resolver (`getaddrinfo`: /etc/hosts, then the DNS, as `nsswitch.conf` says).
    static let system = HostResolver { host in
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &result)
        if let result { freeaddrinfo(result) }
        guard status != 0 else { return nil }
        return String(cString: gai_strerror(status))
    }

    private static let queue = DispatchQueue(label: "rexnode.resolve")

    /// Looks `host` up on the resolver's queue and calls `answer` there with the result.
    func resolve(_ host: String, answer: @escaping @Sendable (String?) -> Void) {
        let lookup = self.lookup
        Self.queue.async { answer(lookup(host)) }
    }
}
