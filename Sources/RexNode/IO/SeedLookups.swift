#if canImport(Glibc)
import Glibc
#endif

/// Whether the host of each `--join` seed resolves yet, and when to look it up again: the
/// retry-join of a node whose seeds are DNS names that may not exist yet (a Kubernetes
/// StatefulSet's members appear one by one). Pure: the membership socket feeds it the joins the
/// membership machine sends and the lookups' answers, and carries out what it decides.
///
/// A join to a seed whose host has not resolved is held back (the machine sends it again at its
/// own pace); the first held join starts a lookup, and each failed lookup waits before the next
/// one, `first` doubling up to `cap` (times the caller's jitter). Once a host resolved, joins to
/// it go out (libzmq resolves the name again at each connect, so a seed whose address changes
/// is still reached). Bounded: at most ``maxHosts`` hosts are tracked, failures saturate.
struct SeedLookups {
    /// The first wait after a failed lookup, and the longest.
    var first: Duration = .milliseconds(250)
    var cap: Duration = .seconds(10)
    static let maxHosts = 64

    enum State: Equatable {
        /// Not resolved: `failures` lookups failed; the next may start at `retryAt`.
        case waiting(failures: Int, retryAt: Duration)
        /// A lookup is running.
        case looking(failures: Int)
        case resolved
    }

    /// What to do with a join to a seed.
    enum Decision: Equatable {
        case send
        /// Drop it: the host has not resolved (yet).
        case hold
        /// Drop it, and start a lookup of the host.
        case holdAndLookUp(host: String)
    }

    /// What a finished lookup changed.
    enum Outcome: Equatable {
        case resolved(afterFailures: Int)
        /// Failed again: `failures` so far, the next lookup no sooner than `retryIn`.
        case failed(failures: Int, retryIn: Duration)
        /// An answer for a host not being looked up (ignored).
        case unexpected
    }

    private(set) var states: [String: State] = [:]

    /// The host of a `tcp://HOST:PORT` seed that needs a lookup: nil for a numeric address (and
    /// for other transports), which is dialled as it is.
    static func hostToResolve(in endpoint: String) -> String? {
        guard endpoint.hasPrefix("tcp://") else { return nil }
        let rest = endpoint.dropFirst(6)
        guard let colon = rest.lastIndex(of: ":") else { return nil }
        let host = String(rest[..<colon])
        guard !host.isEmpty, !host.hasPrefix("[") else { return nil }
        var address = in_addr()
        return inet_pton(AF_INET, host, &address) == 1 ? nil : host
    }

    /// A join to a seed at `host` is due at `now`.
    mutating func join(to host: String, now: Duration) -> Decision {
        switch states[host] {
        case .resolved: return .send
        case .looking: return .hold
        case .waiting(let failures, let retryAt):
            guard now >= retryAt else { return .hold }
            states[host] = .looking(failures: failures)
            return .holdAndLookUp(host: host)
        case nil:
            guard states.count < Self.maxHosts else { return .hold }
            states[host] = .looking(failures: 0)
            return .holdAndLookUp(host: host)
        }
    }

    /// The lookup of `host` answered at `now`; `jitter` (e.g. 0.5 to 1.5) scales the wait
    /// before the next one, so replicas started together do not ask the DNS in step.
    mutating func finished(_ host: String, resolved: Bool, now: Duration, jitter: Double = 1) -> Outcome {
        guard case .looking(let failures) = states[host] else { return .unexpected }
        if resolved {
            states[host] = .resolved
            return .resolved(afterFailures: failures)
        }
        let count = failures < Int.max ? failures + 1 : failures
        let wait = delay(afterFailures: count) * max(0, min(jitter, 2))
        states[host] = .waiting(failures: count, retryAt: now + wait)
        return .failed(failures: count, retryIn: wait)
    }

    /// The wait after `failures` failed lookups: `first` × 2^(failures − 1), at most `cap`.
    func delay(afterFailures failures: Int) -> Duration {
        var wait = first
        for _ in 1..<max(1, min(failures, 64)) {
            wait *= 2
            if wait >= cap { return cap }
        }
        return min(wait, cap)
    }
}
