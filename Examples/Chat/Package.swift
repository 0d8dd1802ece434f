// swift-tools-version:6.0
import Foundation
import PackageDescription

// A second application on the cluster, outside the main package: chat rooms as a feature of the
// node runtime, and its own node binary. It depends on SwiftRex by version, as Countdown does.
//
// deploy/example.sh clones the repository, tags the clone (0.1.0) and points SWIFTREX_URL at it
// (file://…), so this resolves `.package(url:from:)` exactly as it would a published release.
// Without SWIFTREX_URL (working on the example in a checkout), the enclosing checkout is used by
// path instead.
let swiftRexURL = Context.environment["SWIFTREX_URL"]
let swiftRexCheckout = URL(fileURLWithPath: Context.packageDirectory).appendingPathComponent("../..").standardized

let swiftRex: Package.Dependency = swiftRexURL.map { .package(url: $0, from: "0.1.0") } ?? .package(path: swiftRexCheckout.path)
// SwiftPM names a dependency after the last component of its URL or path.
let swiftRexIdentity =
    (swiftRexURL.flatMap(URL.init(string:))?.deletingPathExtension().lastPathComponent
    ?? swiftRexCheckout.lastPathComponent).lowercased()

func swiftRexProduct(_ name: String) -> Target.Dependency { .product(name: name, package: swiftRexIdentity) }

let package = Package(
    name: "Chat",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Chat", targets: ["Chat"]),
        .executable(name: "chat-node", targets: ["ChatNode"]),
    ],
    dependencies: [swiftRex],
    targets: [
        // The feature: the domain alone (no socket, file or thread).
        .target(name: "Chat", dependencies: [swiftRexProduct("SwiftRex"), swiftRexProduct("RexCluster"), swiftRexProduct("RexControl")]),
        // The node binary: the runtime (ZeroMQ, SQLite, security, metrics) hosting the feature.
        .executableTarget(name: "ChatNode", dependencies: ["Chat", swiftRexProduct("RexNode")]),
        .testTarget(
            name: "ChatTests",
            dependencies: [
                "Chat", swiftRexProduct("SwiftRex"), swiftRexProduct("SwiftRexTesting"), swiftRexProduct("RexCluster"),
                swiftRexProduct("RexControl"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets {
    target.swiftSettings = [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("InternalImportsByDefault")]
}
