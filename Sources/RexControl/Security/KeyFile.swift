import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A CURVE key pair on disk (`rexctl keygen FILE` writes one), or a public key alone.
///
/// ```
/// # rexctl keygen: a CURVE key pair (Z85). Keep this file private (mode 0600).
/// public-key = rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7
/// secret-key = JTKVSB%%)wK0E.X)V>+}o?pNmC{O&4W4b!Ni{Lh6
/// ```
///
/// Lines are `name = value` or comments (`#`); at most ``maxFileBytes``. A file holding a secret
/// key is refused when group or others may read or write it, or when another user owns it (as
/// ssh refuses a private key it could not trust to be private) — save one case: a file root
/// owns that only its group may read, and the reader reads through that group (a Kubernetes
/// Secret mounted for a non-root pod with `fsGroup`, mode 0440; see `SecretKeyAccess`).
public struct KeyFile: Sendable, Equatable {
    /// The public key (Z85).
    public var publicKey: String
    /// The secret key (Z85); nil in a public key file.
    public var secretKey: String?

    public init(publicKey: String, secretKey: String?) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// The largest key file read.
    public static let maxFileBytes = 4096

    /// Where `keygen` writes the public half of the pair at `path`: `n1.key` → `n1.pub`,
    /// anything else → `path.pub`.
    public static func publicPath(for path: String) -> String {
        path.hasSuffix(".key") ? String(path.dropLast(4)) + ".pub" : path + ".pub"
    }

    /// Parses the text of a key file.
    public static func parse(_ bytes: [UInt8]) throws(SecurityFileError) -> KeyFile {
        guard bytes.count <= maxFileBytes else { throw SecurityFileError("it is larger than \(maxFileBytes) bytes") }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw SecurityFileError("it is not UTF-8 text") }
        var values: [String: String] = [:]
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw SecurityFileError("line \(number + 1) is not 'name = value'")
            }
            let name = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard name == "public-key" || name == "secret-key" else {
                throw SecurityFileError("line \(number + 1) names '\(name.prefix(32))'; a key file has public-key and secret-key")
            }
            guard values[name] == nil else { throw SecurityFileError("it has two \(name) lines") }
            guard CurveKeyText.isValid(value) else {
                throw SecurityFileError("its \(name) is not 40 Z85 characters")
            }
            values[name] = value
        }
        guard let publicKey = values["public-key"] else {
            throw SecurityFileError("it has no public-key line (make a key with: rexctl keygen FILE)")
        }
        return KeyFile(publicKey: publicKey, secretKey: values["secret-key"])
    }

    /// Reads the key file at `path`; with `requiringSecret`, it must hold a secret key.
    ///
    /// - Throws: ``SecurityFileError`` saying what is wrong and how to fix it, e.g. a secret key
    ///   readable by others: "it holds a secret key but its mode is 0644 … run: chmod 600 FILE".
    public static func read(path: String, requiringSecret: Bool) throws(SecurityFileError) -> KeyFile {
        let contents = try BoundedFile.readWithMode(path: path, maxBytes: maxFileBytes)
        let file = try parse(contents.bytes)
        if file.secretKey != nil {
            let access = SecretKeyAccess.reader(mode: contents.mode, owner: contents.owner, group: contents.group)
            if let problem = access.problem {
                let fix =
                    problem.hasPrefix("belongs to uid")
                    ? "" : " — run: chmod 600 \(path) (a Kubernetes Secret: defaultMode 0440 with the pod's fsGroup)"
                throw SecurityFileError("it holds a secret key but \(problem)\(fix)")
            }
        } else if requiringSecret {
            throw SecurityFileError("it holds a public key only; a secret key file is needed (make one with: rexctl keygen FILE)")
        }
        return file
    }

    /// The file's text: a comment line, then the keys.
    public func encoded(comment: String) -> String {
        var text = "# \(comment)\npublic-key = \(publicKey)\n"
        if let secretKey { text += "secret-key = \(secretKey)\n" }
        return text
    }

    /// Writes `text` to a new file at `path` with `mode` (0600 for a secret): created exclusively
    /// unless `overwrite`, in which case an existing file is replaced (through a temporary file in
    /// the same folder, renamed over it, so no reader ever sees a half-written key).
    public static func write(_ text: String, to path: String, mode: UInt32, overwrite: Bool) throws(SecurityFileError) {
        let target = overwrite ? path + ".tmp-\(getpid())" : path
        let fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode_t(mode))
        guard fd >= 0 else {
            if errno == EEXIST {
                throw SecurityFileError("it already exists (pass --force to replace it)")
            }
            throw SecurityFileError("it cannot be created (\(String(cString: strerror(errno))))")
        }
        let bytes = Array(text.utf8)
        var written = 0
        var failure: Int32 = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if result < 0 && errno == EINTR { continue }
            if result <= 0 { failure = errno; break }
            written += result
        }
        // The umask may have narrowed the mode; it must never have widened it. Set it exactly.
        if failure == 0 && fchmod(fd, mode_t(mode)) != 0 { failure = errno }
        if failure == 0 && fsync(fd) != 0 { failure = errno }
        close(fd)
        if failure == 0 && overwrite && rename(target, path) != 0 { failure = errno }
        if failure != 0 {
            unlink(target)
            throw SecurityFileError("it cannot be written (\(String(cString: strerror(failure))))")
        }
    }

    static func octal(_ mode: UInt32) -> String {
        let text = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - text.count)) + text
    }
}
