// swift-tools-version:6.0
import PackageDescription

// Every target compiles in Swift 6 language mode with complete strict concurrency.
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
    ],
    targets: [
        // Core: toolchain modules only, no C.
        .target(name: "SwiftRex"),
        .target(name: "SwiftRexTesting", dependencies: ["SwiftRex"]),

        // libzmq, quarantined: CZMQ is a module map only; ZMQ is the only Swift code importing it.
        .systemLibrary(name: "CZMQ", providers: [.apt(["libzmq3-dev"])]),
        .target(name: "ZMQ", dependencies: ["CZMQ"]),

        // Benchmarks (run with `swift run -c release …`).
        .executableTarget(name: "rexbench", dependencies: ["SwiftRex"]),
        .executableTarget(name: "zmqbench", dependencies: ["ZMQ"]),

        .testTarget(name: "SwiftRexTests", dependencies: ["SwiftRex", "SwiftRexTesting"]),
        .testTarget(name: "ZMQTests", dependencies: ["ZMQ"]),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + strictness
}
