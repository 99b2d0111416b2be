// swift-tools-version: 6.0
import PackageDescription

// MediaAssets has no Swift package dependencies: the toolchain plus the system C libraries
// (libjpeg-turbo, libpng, zlib, sqlite3) found through pkg-config.
let package = Package(
    name: "MediaAssets",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "MediaAssets", targets: ["MediaAssets"]),
        .executable(name: "benchmarks", targets: ["benchmarks"]),
    ],
    targets: [
        // Core
        .target(name: "MediaAssets"),

        // Test support and the loopback HTTP origin used by tests and examples
        .target(name: "TestSupport", dependencies: ["MediaAssets"], path: "Tests/TestSupport"),

        // Benchmarks
        .executableTarget(
            name: "benchmarks",
            dependencies: ["MediaAssets"],
            path: "Benchmarks"
        ),

        // Tests
        .testTarget(name: "MediaAssetsTests", dependencies: ["MediaAssets", "TestSupport"]),
    ]
)
