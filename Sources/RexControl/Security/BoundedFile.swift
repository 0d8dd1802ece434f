import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads small files that configure security: a regular file, at most a given size, and what
/// `fstat` says of the opened file (so the mode checked is the mode of the bytes read).
enum BoundedFile {
    struct Contents {
        var bytes: [UInt8]
        /// The permission bits (`st_mode & 0o7777`).
        var mode: UInt32
        var owner: UInt32
        var group: UInt32
    }

    static func read(path: String, maxBytes: Int) throws(SecurityFileError) -> [UInt8] {
        try readWithMode(path: path, maxBytes: maxBytes).bytes
    }

    static func readWithMode(path: String, maxBytes: Int) throws(SecurityFileError) -> Contents {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            let reason = errno == ENOENT ? "it does not exist" : "it cannot be read (\(String(cString: strerror(errno))))"
            throw SecurityFileError(reason)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SecurityFileError("it cannot be read (\(String(cString: strerror(errno))))") }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw SecurityFileError("it is not a regular file") }
        guard info.st_size <= maxBytes else { throw SecurityFileError("it is larger than \(maxBytes) bytes") }
        var bytes = [UInt8](repeating: 0, count: maxBytes + 1)
        var count = 0
        while count < bytes.count {
            let read = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if read < 0 && errno == EINTR { continue }
            guard read >= 0 else { throw SecurityFileError("it cannot be read (\(String(cString: strerror(errno))))") }
            if read == 0 { break }
            count += read
        }
        guard count <= maxBytes else { throw SecurityFileError("it is larger than \(maxBytes) bytes") }
        return Contents(
            bytes: Array(bytes.prefix(count)), mode: UInt32(info.st_mode) & 0o7777, owner: UInt32(info.st_uid), group: UInt32(info.st_gid))
    }
}
