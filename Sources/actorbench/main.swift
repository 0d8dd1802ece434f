import BenchSupport
import Foundation

// actorbench: remote calls of the actor system (RexActors over ZMQActorTransport, DEALER/ROUTER
// over tcp loopback, two processes) next to raw libzmq DEALER/ROUTER through the ZMQ module,
// measured in the same run, alternating which goes first.
//
//   swift run -c release actorbench            round trip p50/p99 and one-way calls/s, 3 reps
//   swift run -c release actorbench --quick    one short rep
//   options: --reps N
// Internal child roles: raw-echo, raw-sink N, actor-serve ENDPOINT.

let arguments = Array(CommandLine.arguments.dropFirst())

do {
    switch arguments.first {
    case "raw-echo":
        try RawBench.runEcho()
    case "raw-sink":
        guard arguments.count == 2, let count = Int(arguments[1]), count > 1 else { fail("usage: raw-sink N", code: 64) }
        alarm(120)
        try RawBench.runSink(count: count)
    case "actor-serve":
        guard arguments.count == 2 else { fail("usage: actor-serve ENDPOINT", code: 64) }
        try await ActorBench.serve(clientEndpoint: arguments[1])
    default:
        let options = ComparisonOptions.parseOrExit(
            arguments, repetitions: 3, tool: "actorbench",
            usage: ["usage: actorbench [--quick] [--reps N]"])
        alarm(900)
        try await Comparison(quick: options.quick, repetitions: options.quick ? 1 : options.repetitions).run()
    }
} catch {
    fail("\(error)")
}
