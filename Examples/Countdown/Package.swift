// swift-tools-version:6.0
import Foundation
import PackageDescription

// A consumer of SwiftRex, depending on it the ordinary way: by version.
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

let package = Package(
    name: "Countdown",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Countdown", targets: ["Countdown"]),
        .executable(name: "countdown-bench", targets: ["CountdownBench"]),
    ],
    dependencies: [swiftRex],
    targets: [
        .target(name: "Countdown", dependencies: [.product(name: "SwiftRex", package: swiftRexIdentity)]),
        .executableTarget(name: "CountdownBench", dependencies: ["Countdown", .product(name: "SwiftRex", package: swiftRexIdentity)]),
        .testTarget(
            name: "CountdownTests",
            dependencies: [
                "Countdown", .product(name: "SwiftRexTesting", package: swiftRexIdentity),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
