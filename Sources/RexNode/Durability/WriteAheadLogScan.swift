import Foundation

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

    /// Scans the file at `path`; an absent or empty file (or one too short for a header, which
    /// SQLite also ignores) is an empty scan. Reads the whole file: the node checkpoints its log
    /// into the database after recovery and as it runs, so it stays small.
    static func scan(path: String) -> WriteAheadLogScan {
        guard let data = FileManager.default.contents(atPath: path) else { return WriteAheadLogScan() }
        return scan([UInt8](data))
    }

    static func scan(_ bytes: [UInt8]) -> WriteAheadLogScan {
        var scan = WriteAheadLogScan()
        guard bytes.count >= 32 else { return scan }
        let magic = bigEndian(bytes, 0)
        guard magic == 0x377f_0682 || magic == 0x377f_0683 else { return scan }
        let bigEndianWords = magic & 1 == 1
        let pageSize = Int(bigEndian(bytes, 8))
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else { return scan }
        let salts = (bigEndian(bytes, 16), bigEndian(bytes, 20))
        var sum = checksum(bytes, 0..<24, seed: (0, 0), bigEndianWords: bigEndianWords)
        guard sum == (bigEndian(bytes, 24), bigEndian(bytes, 28)) else { return scan }

        let frameSize = 24 + pageSize
        var offset = 32
        var frame = 0
        var damaged = false
        while offset < bytes.count {
            guard bytes.count - offset >= frameSize else {
                scan.partialBytes = bytes.count - offset
                break
            }
            // A frame of an older generation (other salts): the log ends here, as for SQLite.
            guard (bigEndian(bytes, offset + 8), bigEndian(bytes, offset + 12)) == salts else { break }
            let stored = (bigEndian(bytes, offset + 16), bigEndian(bytes, offset + 20))
            let isCommit = bigEndian(bytes, offset + 4) != 0
            var computed = checksum(bytes, offset..<(offset + 8), seed: sum, bigEndianWords: bigEndianWords)
            computed = checksum(bytes, (offset + 24)..<(offset + frameSize), seed: computed, bigEndianWords: bigEndianWords)
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
            offset += frameSize
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
