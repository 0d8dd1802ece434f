import Foundation
import SwiftRex

/// Reads this process's memory use.
enum MemoryProbe {
    /// How many times the child recreates every channel before its second reading.
    static let churnRounds = 6

    /// Resident set size, from `/proc/self/statm` (second field, in pages).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Returns freed memory to the kernel so RSS reflects live data only.
    /// (`malloc_trim` is looked up at run time: the Glibc module does not import `malloc.h`.)
    static func trim() {
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
    }

    /// The child side of the memory benchmark: opens `k` channels in this fresh process and prints
    /// `rss=<bytes> churned=<bytes> live=<n>` — the growth from just before the store was created,
    /// right after opening and again after every channel was recreated `churnRounds` times.
    static func runChild(k: Int) async {
        let executor = ThreadExecutor(name: "rexbench.memory")
        // Warm the runtime and the executor with a tiny store first, so their one-off costs are
        // not counted against the channels.
        let warm = Store(initial: Fleet.State(count: 16), behavior: Fleet.behavior, executor: .custom(executor))
        await warm.waitUntilIdle()
        await warm.release()
        let state = Fleet.State(count: k)
        trim()
        let rssBefore = residentBytes()
        let store = Store(initial: state, behavior: Fleet.behavior, executor: .custom(executor))
        await store.waitUntilIdle()
        trim()
        let rssAfter = residentBytes()
        // Then recreate every channel `churnRounds` times (each recreate adds history events).
        for _ in 0..<churnRounds {
            store.dispatch(.rekey(count: k))
            await store.waitUntilIdle()
        }
        trim()
        let rssChurned = residentBytes()
        let live = await store.keep().counters.liveChannels
        print("rss=\(rssAfter - rssBefore) churned=\(rssChurned - rssBefore) live=\(live)")
        withExtendedLifetime(store) {}
    }
}
