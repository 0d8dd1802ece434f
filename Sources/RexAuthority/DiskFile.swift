#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The file system calls of the authority's files: a bounded read of a regular file (with the
/// mode and owner of the very file read), and an atomic replace that survives a crash at any
/// point (the old file or the new one, never a mix).
enum DiskFile {
    struct Contents {
        var bytes: [UInt8]
        /// The permission bits (`st_mode & 0o7777`).
        var mode: UInt32
        var owner: UInt32
    }

    /// The file at `path`, at most `maxBytes`; nil when it does not exist.
    static func load(path: String, maxBytes: Int) throws(AuthorityFileError) -> Contents? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw AuthorityFileError("it cannot be read (\(reason(errno)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw AuthorityFileError("it cannot be read (\(reason(errno)))") }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw AuthorityFileError("it is not a regular file") }
        guard info.st_size <= maxBytes else { throw AuthorityFileError("it is larger than \(maxBytes) bytes") }
        // One byte more than allowed: a file that grew since fstat is still caught.
        var bytes = [UInt8](repeating: 0, count: maxBytes + 1)
        var count = 0
        while count < bytes.count {
            let done = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if done < 0 && errno == EINTR { continue }
            guard done >= 0 else { throw AuthorityFileError("it cannot be read (\(reason(errno)))") }
            if done == 0 { break }
            count += done
        }
        guard count <= maxBytes else { throw AuthorityFileError("it is larger than \(maxBytes) bytes") }
        return Contents(bytes: Array(bytes.prefix(count)), mode: UInt32(info.st_mode) & 0o7777, owner: UInt32(info.st_uid))
    }

    /// Replaces the file at `path` with `bytes` (mode `mode`): written to a temporary file in
    /// the same folder, flushed, renamed over `path`, and the folder flushed, so a crash leaves
    /// either the old file or the new one.
    static func replace(path: String, with bytes: [UInt8], mode: UInt32) throws(AuthorityFileError) {
        let temporary = path + ".tmp"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode_t(mode))
        guard fd >= 0 else { throw AuthorityFileError("it cannot be written (\(reason(errno)))") }
        var failure: Int32 = 0
        var written = 0
        while written < bytes.count {
            let done = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if done < 0 && errno == EINTR { continue }
            if done <= 0 {
                failure = done < 0 ? errno : EIO
                break
            }
            written += done
        }
        if failure == 0 && fchmod(fd, mode_t(mode)) != 0 { failure = errno }
        if failure == 0 && fsync(fd) != 0 { failure = errno }
        close(fd)
        if failure == 0 && rename(temporary, path) != 0 { failure = errno }
        if failure != 0 {
            unlink(temporary)
            throw AuthorityFileError("it cannot be written (\(reason(failure)))")
        }
        syncFolder(of: path)
    }

    /// Flushes the folder holding `path`, so a rename into it survives a power cut.
    private static func syncFolder(of path: String) {
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let fd = open(folder.isEmpty ? "/" : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}
