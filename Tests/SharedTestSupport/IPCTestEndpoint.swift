import Foundation
import Synchronization

/// Unique `ipc://` endpoints under /tmp for tests, whose socket files are removed when the test
/// process exits: libzmq 4.3.4 (Debian's) leaves a bound ipc socket's file behind, even after the
/// socket is closed and its context terminated, so every test run left dozens in /tmp.
public enum IPCTestEndpoint {
    private static let paths = Mutex<[String]>([])
    /// Registers the removal once, at the first endpoint made.
    private static let removalAtExit: Void = { atexit { IPCTestEndpoint.removeAll() } }()

    /// `ipc:///tmp/<name>`; the file is removed at exit. `name` must be unique to the caller
    /// (include the process id and a random tag).
    public static func make(_ name: String) -> String {
        _ = removalAtExit
        let path = "/tmp/\(name)"
        paths.withLock { $0.append(path) }
        return "ipc://\(path)"
    }

    private static func removeAll() {
        for path in paths.withLock({ $0 }) { unlink(path) }
    }
}
