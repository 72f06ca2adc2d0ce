// swift-tools-version:6.0
// FerroMCP on the prebuilt engine: the Package.swift of the package scripts/build-xcframework.sh
// stages (macOS with Xcode; see APPLE.md). Same products and targets as Package.swift, except that
// the C side of the bindings, FerroMCPFFI, is FerroMCPFFI.xcframework: the engine's static
// library for macOS (arm64 + x86_64), iOS (arm64) and the iOS Simulator (arm64 + x86_64), each
// with FerroMCPFFI.h and its module map.
//
// SwiftPM only reads a file named Package.swift, so this one is not used where it is: the script
// copies it to OUT/Package.swift (default OUT: target/apple/FerroMCP) next to
//   FerroMCPFFI.xcframework/
//   Sources/FerroMCPNative/FerroMCPNative.swift    generated from the same build as the xcframework
//   Sources/FerroMCP/, Tests/FerroMCPTests/, Tests/ListenStdioServer/   copied from bindings-swift/
// and an Xcode project adds OUT with File > Add Package Dependencies… > Add Local….
// By hand: copy those four next to a copy of this file named Package.swift.
//
// A release: `scripts/build-xcframework.sh --zip --out <checkout of the release repository>`,
// upload target/apple/FerroMCPFFI.xcframework.zip, and in the release's Package.swift replace the
// binaryTarget line below with the one the script prints:
//     .binaryTarget(
//         name: "FerroMCPFFI",
//         url: "https://…/FerroMCPFFI.xcframework.zip",
//         checksum: "<swift package compute-checksum FerroMCPFFI.xcframework.zip>"
//     ),
// then commit Package.swift and Sources/ (not the xcframework) and tag. A package URL must be the
// root of its git repository, so the release is a repository (or a branch) of its own, not this
// one's bindings-swift/. FerroMCPNative.swift and the zip must come from the same run: the
// generated Swift checks the library's API checksums at its first call and stops the process on a
// mismatch.
import PackageDescription

let package = Package(
    name: "FerroMCP",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "FerroMCP", targets: ["FerroMCP"]),
    ],
    targets: [
        // The engine (libferromcp_swift.a per platform) and the C side of the generated bindings.
        .binaryTarget(name: "FerroMCPFFI", path: "FerroMCPFFI.xcframework"),
        // The generated Swift bindings. Swift 5 mode: UniFFI 0.32's output crashes the Swift 6.0
        // compiler in Swift 6 mode (uniffi-rs #2929); everything hand-written is Swift 6.
        .target(
            name: "FerroMCPNative",
            dependencies: ["FerroMCPFFI"],
            path: "Sources/FerroMCPNative",
            swiftSettings: [.swiftLanguageMode(.v5)],
            // What the static library needs besides libSystem, which every Apple link has: rustc's
            // native-static-libs is `-liconv -lSystem -lc -lm` (seen for aarch64-apple-ios,
            // aarch64-apple-darwin, x86_64-apple-darwin; the script checks all five targets and
            // stops if it changes). The engine needs no framework: nothing in its dependency tree
            // (tokio, hyper, axum, tokio-tungstenite, jsonschema, …) is Apple-specific, and the
            // archive's undefined symbols all resolve in libSystem.
            linkerSettings: [.linkedLibrary("iconv")]
        ),
        // The public API.
        .target(name: "FerroMCP", dependencies: ["FerroMCPNative"], path: "Sources/FerroMCP"),
        .testTarget(name: "FerroMCPTests", dependencies: ["FerroMCP"], path: "Tests/FerroMCPTests"),
        // The stdio server ListenTests spawns (built with the tests; not a product).
        .executableTarget(name: "ListenStdioServer", dependencies: ["FerroMCP"], path: "Tests/ListenStdioServer"),
    ]
)
