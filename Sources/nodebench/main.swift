import BenchSupport
import Foundation
import RexFeeds

// nodebench: RexNode end to end, next to raw libzmq measured in the same run.
//
//   swift run -c release nodebench            full run (~75 s): 5 repetitions
//   swift run -c release nodebench --quick    smoke run (< 30 s): 1 repetition, smaller counts
//   options: --reps N, --no-c (node only), --sync node|publisher (when a churn round counts),
//            --baseline DIR (C sources; default ../shared/bench/zmq-baseline beside the repository, or $ZMQ_BASELINE_DIR)
//
// Single measurements (one result line each; the parent runs them as child processes):
//   nodebench thr <count> [window] [curve]                    end-to-end throughput (curve: both nodes secured)
//   nodebench pub <count>                                     one node's publishing alone
//   nodebench churn <shared|from> <seconds> [node|publisher] [follows] [curve]   follow-topic churn (curve: both nodes secured)
//   nodebench idle <follows> <seconds>                        one node's idle CPU holding that many follows
//   nodebench memory <follows>                                where a follow's memory goes, part by part (mallinfo2)

let arguments = Array(CommandLine.arguments.dropFirst())

do {
    switch arguments.first {
    case "thr":
        guard arguments.count >= 2, let count = Int(arguments[1]) else { fail("usage: nodebench thr <count> [window]", code: 64) }
        alarm(120)
        try await NodeThroughput.run(
            count: count, window: arguments.count > 2 ? Int(arguments[2]) ?? 50_000 : 50_000,
            curve: arguments.count > 3 && arguments[3] == "curve")
    case "pub":
        guard arguments.count >= 2, let count = Int(arguments[1]) else { fail("usage: nodebench pub <count>", code: 64) }
        alarm(120)
        try await PublisherOnly.run(count: count)
    case "churn":
        guard arguments.count >= 3, let mode = FollowChurn.Mode(rawValue: arguments[1]), let seconds = Double(arguments[2]) else {
            fail("usage: nodebench churn <shared|from> <seconds> [node|publisher] [follows]", code: 64)
        }
        let sync = arguments.count > 3 ? FollowChurn.Sync(rawValue: arguments[3]) ?? .publisher : .publisher
        let follows = arguments.count > 4 ? Int(arguments[4]) ?? 100 : 100
        alarm(120)
        try await FollowChurn.run(mode: mode, seconds: seconds, sync: sync, follows: follows, curve: arguments.last == "curve")
    case "idle":
        guard arguments.count >= 3, let follows = Int(arguments[1]), follows >= 0, follows <= 1_000_000,
            let seconds = Double(arguments[2]), seconds > 0, seconds <= 60
        else {
            fail("usage: nodebench idle <follows 0…1,000,000> <seconds 0…60>", code: 64)
        }
        alarm(300)
        try await IdleFollows.run(follows: follows, seconds: seconds)
    case "memory":
        guard arguments.count >= 2, let follows = Int(arguments[1]), follows >= 1, follows <= 1_000_000 else {
            fail("usage: nodebench memory <follows 1…1,000,000>", code: 64)
        }
        alarm(600)
        try await FollowMemory.run(follows: follows)
    case "durable": try await DurableThroughput.main(Array(arguments.dropFirst()))
    default:
        var sync = FollowChurn.Sync.publisher
        let options = ComparisonOptions.parseOrExit(
            arguments, repetitions: 5, tool: "nodebench",
            usage: [
                "usage: nodebench [--quick] [--reps N] [--no-c] [--sync node|publisher] [--baseline DIR]",
                "       nodebench thr <count> [window] | nodebench churn <shared|from> <seconds> [node|publisher] [follows]",
            ]
        ) { arguments, index in
            guard arguments[index] == "--sync" else { return false }
            index += 1
            guard index < arguments.count, let value = FollowChurn.Sync(rawValue: arguments[index]) else {
                throw OptionError("--sync node|publisher")
            }
            sync = value
            return true
        }
        var report = Report()
        report.quick = options.quick
        report.repetitions = options.repetitions
        report.runC = options.runC
        report.sync = sync
        report.baseline.sourceDirectory = options.baselineDirectory
        report.run()
    }
} catch {
    fail("\(error)")
}
