import BenchSupport
import Foundation
import ZMQ

// zmqbench: the Swift ZMQ layer measured with the C baseline's method, side by side.
//
//   swift run -c release zmqbench            full comparison (~2-3 min): throughput + recreate, 5 reps
//   swift run -c release zmqbench --quick    short smoke run (10x fewer messages, 1 rep)
//   options: --reps N, --no-c (Swift only), --baseline DIR (C sources; default ../shared/bench/zmq-baseline beside the repository, or $ZMQ_BASELINE_DIR)
//
// Single measurements (one result line, same format as the C programs):
//   zmqbench thr <inproc|ipc|tcp> <payload-bytes> <count> <hwm> [curve]   (curve: CURVE on the PUB/SUB pair)
//   zmqbench recreate <cycles>
// Internal child roles: thr-pub …, xpub-reactive.
// Profiling (valgrind cannot follow Foundation's process spawn): start the two halves yourself,
//   zmqbench thr-pub ipc <size> <count> <hwm> <pub-ep> <sync-ep>  (exits when its stdin closes)
//   zmqbench thr-sub ipc <size> <count> <hwm> <pub-ep> <sync-ep>

let arguments = Array(CommandLine.arguments.dropFirst())

do {
    switch arguments.first {
    case "thr":
        guard arguments.count == 5 || (arguments.count == 6 && arguments[5] == "curve"), let size = Int(arguments[2]),
            let count = Int(arguments[3]), let hwm = Int(arguments[4])
        else { fail("usage: zmqbench thr <inproc|ipc|tcp> <size> <count> <hwm> [curve]", code: 64) }
        alarm(120)
        try Throughput.runSubscriber(transport: arguments[1], size: size, count: count, hwm: hwm, curve: arguments.count == 6)
    case "thr-pub":
        try Throughput.runPublisherProcess(Array(arguments.dropFirst()))
    case "thr-sub":
        alarm(120)
        try Throughput.runSubscriberProcess(Array(arguments.dropFirst()))
    case "recreate":
        guard arguments.count == 2, let cycles = Int(arguments[1]) else { fail("usage: zmqbench recreate <cycles>", code: 64) }
        alarm(150)
        try Recreate.run(cycles: cycles)
    case "xpub-reactive":
        try Recreate.runReactivePublisher()
    default:
        let options = ComparisonOptions.parseOrExit(
            arguments, repetitions: 5, tool: "zmqbench",
            usage: [
                "usage: zmqbench [--quick] [--reps N] [--no-c] [--baseline DIR]",
                "       zmqbench thr <inproc|ipc|tcp> <size> <count> <hwm> | zmqbench recreate <cycles>",
            ])
        var comparison = Comparison()
        comparison.quick = options.quick
        comparison.repetitions = options.repetitions
        comparison.runC = options.runC
        comparison.baselineDirectory = options.baselineDirectory
        print("zmqbench: libzmq \(ZMQVersion.current)")
        comparison.run()
    }
} catch {
    fail("\(error)")
}
