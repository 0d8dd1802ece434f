import Foundation
import RexCluster

/// What an SQLite write-ahead log (`…-wal`) holds, read before SQLite opens it.
///
/// SQLite recovers a log by itself: it keeps the frames up to the last commit whose checksums
/// all verify, and ignores the rest without a word. The node wants the word — a torn or damaged
/// tail is logged — and wants to refuse a damaged *middle*: a damaged frame followed by
/// transactions that committed after it (those were acknowledged, and SQLite would silently drop
/// them too). The format is SQLite's documented WAL format (sqlite.org/fileformat.html): a
/// 32-byte header (magic, version, page size, checkpoint number, two salts, a checksum), then
/// frames of a 24-byte header (page number, database size for a commit frame, the salts, a
/// running checksum) and one page.
struct WriteAheadLogScan: Equatable {
    /// Frames SQLite will keep: up to the last valid commit frame.
    var committedFrames = 0
    /// Frames of this log's generation after those (uncommitted, torn or damaged): ignored.
    var discardedFrames = 0
    /// Bytes of a frame cut short at the end of the file.
    var partialBytes = 0
    /// Commit frames that verify after the first damaged one (their own chain restarted from
    /// the stored checksum before them). Two or more: a whole transaction committed after the
    /// damage, so the damage is not a torn tail.
    var committedAfterDamage = 0

    var hasDiscardedTail: Bool { discardedFrames > 0 || partialBytes > 0 }
    var damagedMiddle: Bool { committedAfterDamage >= 2 }

    /// Scans the file at `path` one frame at a time (at most 64 KiB in memory, however large the
    /// file); an absent or empty file (or one too short for a header, which SQLite also ignores)
    /// is an empty scan.
    static func scan(path: String) -> WriteAheadLogScan {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return WriteAheadLogScan() }
        defer { close(fd) }
        return scan { count in
            var buffer = [UInt8](repeating: 0, count: count)
            var filled = 0
            while filled < count {
                let got = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, count - filled) }
                if got < 0, errno == EINTR { continue }
                guard got > 0 else { break }
                filled += got
            }
            return Array(buffer[..<filled])
        }
    }

    /// Scans bytes held in memory (tests).
    static func scan(_ bytes: [UInt8]) -> WriteAheadLogScan {
        var offset = 0
        return scan { count in
            let end = min(offset + count, bytes.count)
            defer { offset = end }
            return Array(bytes[offset..<end])
        }
    }

    /// `next(n)` returns the next n bytes of the log, fewer at its end.
    private static func scan(_ next: (Int) -> [UInt8]) -> WriteAheadLogScan {
        var scan = WriteAheadLogScan()
        let header = next(32)
        guard header.count == 32 else { return scan }
        let magic = bigEndian(header, 0)
        guard magic == 0x377f_0682 || magic == 0x377f_0683 else { return scan }
        let bigEndianWords = magic & 1 == 1
        let pageSize = Int(bigEndian(header, 8))
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else { return scan }
        let salts = (bigEndian(header, 16), bigEndian(header, 20))
        var sum = checksum(header, 0..<24, seed: (0, 0), bigEndianWords: bigEndianWords)
        guard sum == (bigEndian(header, 24), bigEndian(header, 28)) else { return scan }

        let frameSize = 24 + pageSize
        var frame = 0
        var damaged = false
        while true {
            let bytes = next(frameSize)
            guard bytes.count == frameSize else {
                scan.partialBytes = bytes.count
                break
            }
            // A frame of an older generation (other salts): the log ends here, as for SQLite.
            guard (bigEndian(bytes, 8), bigEndian(bytes, 12)) == salts else { break }
            let stored = (bigEndian(bytes, 16), bigEndian(bytes, 20))
            let isCommit = bigEndian(bytes, 4) != 0
            var computed = checksum(bytes, 0..<8, seed: sum, bigEndianWords: bigEndianWords)
            computed = checksum(bytes, 24..<frameSize, seed: computed, bigEndianWords: bigEndianWords)
            frame += 1
            if !damaged, computed == stored {
                if isCommit { scan.committedFrames = frame }
                sum = stored
            } else {
                damaged = true
                if computed == stored, isCommit { scan.committedAfterDamage += 1 }
                // Restart the chain from what this frame stored, to judge the next one alone.
                sum = stored
            }
        }
        scan.discardedFrames = frame - scan.committedFrames
        return scan
    }

    private static func bigEndian(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    /// SQLite's WAL checksum: over 32-bit words in the log's byte order, two running sums.
    private static func checksum(
        _ bytes: [UInt8], _ range: Range<Int>, seed: (UInt32, UInt32), bigEndianWords: Bool
    ) -> (UInt32, UInt32) {
        var (s0, s1) = seed
        var index = range.lowerBound
        while index + 8 <= range.upperBound {
            let first = bigEndianWords ? bigEndian(bytes, index) : littleEndian(bytes, index)
            let second = bigEndianWords ? bigEndian(bytes, index + 4) : littleEndian(bytes, index + 4)
            s0 = s0 &+ first &+ s1
            s1 = s1 &+ second &+ s0
            index += 8
        }
        return (s0, s1)
    }

    private static func littleEndian(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }
}
