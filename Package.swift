// swift-tools-version:6.0
import PackageDescription

// Every target compiles in Swift 6 language mode with complete strict concurrency, and no
// unsafe flags: SwiftPM accepts the package as a versioned dependency. The generic core is made
// specialisable across modules in the source instead (`@inlinable` / `@usableFromInline` on the
// dispatch and drain paths), and run-time exclusivity checks are switched off only on the few
// properties where they were measured, each with `@exclusivity(unchecked)` and a comment.
let strictness: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "SwiftRex",
    products: [
        .library(name: "SwiftRex", targets: ["SwiftRex"]),
        .library(name: "SwiftRexTesting", targets: ["SwiftRexTesting"]),
        .library(name: "ZMQ", targets: ["ZMQ"]),
        .executable(name: "rexbench", targets: ["rexbench"]),
        .executable(name: "zmqbench", targets: ["zmqbench"]),
        .library(name: "RexControl", targets: ["RexControl"]),
        .library(name: "RexCluster", targets: ["RexCluster"]),
        .library(name: "RexFeeds", targets: ["RexFeeds"]),
        .library(name: "RexNode", targets: ["RexNode"]),
        .executable(name: "rexnode", targets: ["rexnode"]),
        .executable(name: "rexctl", targets: ["rexctl"]),
        .executable(name: "nodebench", targets: ["nodebench"]),
        .library(name: "RexMembership", targets: ["RexMembership"]),
        .executable(name: "membench", targets: ["membench"]),
        .library(name: "RexActors", targets: ["RexActors"]),
        .executable(name: "actorbench", targets: ["actorbench"]),
        .executable(name: "rexsim", targets: ["rexsim"]),
    ],
    targets: [
        // Core: toolchain modules only, no C.
        .target(name: "SwiftRex"),
        .target(name: "SwiftRexTesting", dependencies: ["SwiftRex"]),

        // libzmq, quarantined: CZMQ is a module map only; ZMQ is the only Swift code importing it.
        .systemLibrary(name: "CZMQ", providers: [.apt(["libzmq3-dev"])]),
        .target(name: "ZMQ", dependencies: ["CZMQ"]),
        // glibc's malloc_trim, for a node that gives memory back after a burst (libc6-dev).
        .systemLibrary(name: "CGlibcMalloc"),
        // SQLite, quarantined the same way: CSQLite is a module map only; SQLite is the only Swift
        // code importing it (the node's durable state: snapshot + journal, WAL mode).
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "SQLite", dependencies: ["CSQLite"]),
        // libsodium, quarantined the same way: CSodium is a module map only; Sodium is the only
        // Swift code importing it (Ed25519 signatures for the cluster authority).
        .systemLibrary(name: "CSodium", providers: [.apt(["libsodium-dev"])]),
        .target(name: "Sodium", dependencies: ["CSodium"]),

        // The cluster: the control protocol's types (the node's state and the documents node and
        // CLI exchange; Foundation only), a node runtime (library, so tests drive nodes
        // in-process), its thin executable, and the operator CLI.
        .target(name: "RexControl"),
        // The domain, naming no socket, file or thread: what a feature on the cluster is given
        // (the data plane as closures, operator actions described once, logging) and the
        // feeds-and-follows feature, its state and its durable fold.
        .target(name: "RexCluster", dependencies: ["RexControl", "RexMembership", "SwiftRex"]),
        .target(name: "RexFeeds", dependencies: ["RexCluster", "RexControl", "RexMembership", "SwiftRex"]),
        // The runtime carrying the domain out over ZeroMQ and SQLite.
        .target(
            name: "RexNode",
            dependencies: [
                "RexCluster", "SwiftRex", "ZMQ", "RexControl", "RexMembership", "CGlibcMalloc", "SQLite", "RexAuthority",
            ]),
        .executableTarget(name: "rexnode", dependencies: ["RexNode", "RexFeeds"]),
        .executableTarget(name: "rexctl", dependencies: ["ZMQ", "RexControl", "RexFeeds", "RexAuthority"]),
        // The cluster authority, naming no socket or thread: signed statements admitting and
        // revoking member and operator keys, the ledger that accepts them, their files.
        .target(name: "RexAuthority", dependencies: ["RexControl", "Sodium"]),
        .testTarget(name: "RexAuthorityTests", dependencies: ["RexAuthority", "RexControl", "Sodium", "ZMQ", "SharedTestSupport"]),

        // SWIM-style membership: a sans-IO state machine, its wire form and a deterministic
        // simulated network (toolchain modules only; the node hosts it, membench measures it).
        .target(name: "RexMembership"),
        .executableTarget(name: "membench", dependencies: ["RexMembership"]),
        .testTarget(name: "RexMembershipTests", dependencies: ["RexMembership"]),

        // A whole cluster in one deterministic process: the real stores, feature, membership and
        // durable logic over a simulated network, clock and disk, with faults, checkers and seed
        // replay; its command line and tests.
        .target(name: "RexSimulation", dependencies: ["RexCluster", "RexFeeds", "RexControl", "RexMembership", "SwiftRex"]),
        .executableTarget(name: "rexsim", dependencies: ["RexSimulation"]),
        .testTarget(name: "RexSimulationTests", dependencies: ["RexSimulation", "RexCluster", "RexFeeds", "SwiftRex", "rexsim"]),

        // Distributed actors over the cluster: the actor system over a transport seam (toolchain
        // modules only), its ZeroMQ transport, and the benchmark next to raw DEALER/ROUTER.
        .target(name: "RexActors"),
        .target(name: "RexActorsZMQ", dependencies: ["RexActors", "ZMQ"]),
        // A `@Resolvable` interface alone: its clients need not link the implementation.
        .target(name: "ActorEchoInterface", dependencies: ["RexActors"]),
        .executableTarget(name: "actorbench", dependencies: ["RexActors", "RexActorsZMQ", "ActorEchoInterface", "ZMQ", "BenchSupport"]),
        .testTarget(
            name: "RexActorsTests",
            dependencies: ["RexActors", "RexActorsZMQ", "ActorEchoInterface", "SwiftRexTesting"]),

        // Benchmarks (run with `swift run -c release …`).
        .executableTarget(name: "rexbench", dependencies: ["SwiftRex"]),
        .target(name: "BenchSupport"),
        .executableTarget(name: "zmqbench", dependencies: ["ZMQ", "BenchSupport"]),
        .executableTarget(
            name: "nodebench",
            dependencies: ["RexNode", "RexCluster", "RexFeeds", "RexControl", "SwiftRex", "ZMQ", "BenchSupport", "CGlibcMalloc"]),

        .testTarget(name: "SwiftRexTests", dependencies: ["SwiftRex", "SwiftRexTesting", "SharedTestSupport"]),
        // The test kit under XCTest: its failures reach an XCTestCase, not only Swift Testing.
        .testTarget(name: "SwiftRexTestingXCTests", dependencies: ["SwiftRex", "SwiftRexTesting"]),
        // Shared by the test targets: a seeded generator, ipc endpoints whose files go at exit.
        .target(name: "SharedTestSupport", path: "Tests/SharedTestSupport"),
        .testTarget(name: "ZMQTests", dependencies: ["ZMQ", "SharedTestSupport"]),
        .testTarget(name: "SQLiteTests", dependencies: ["SQLite"]),
        // Shared by the test targets that run real nodes: waiting on a node's state, off the pool.
        .target(
            name: "NodeTestSupport", dependencies: ["RexNode", "RexCluster", "RexFeeds", "RexControl", "SwiftRex"],
            path: "Tests/NodeTestSupport"),
        .testTarget(
            name: "RexNodeTests",
            dependencies: [
                "RexNode", "RexCluster", "RexFeeds", "RexControl", "RexMembership", "SwiftRexTesting", "rexnode", "NodeTestSupport",
                "SharedTestSupport", "RexAuthority",
            ]),
        .testTarget(
            name: "rexctlTests",
            dependencies: ["rexctl", "RexNode", "RexCluster", "RexFeeds", "RexControl", "NodeTestSupport", "RexAuthority"]),
        // The protocol's types and codec alone, and their wire form as a real node serves it.
        .testTarget(
            name: "RexControlTests",
            dependencies: ["RexControl", "RexNode", "RexCluster", "RexFeeds", "ZMQ", "NodeTestSupport", "SharedTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + strictness
}
