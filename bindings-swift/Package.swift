// swift-tools-version:6.0
// FerroMCP: MCP servers and clients for Swift on the ferromcp Rust engine.
//
// Build the engine first: `scripts/build.sh` writes the static library to .native/lib
// (`--release`: .native/release/lib; set FERROMCP_SWIFT_LIB_DIR to link that one) and
// generates Sources/FerroMCPFFI + Sources/FerroMCPNative. On Apple platforms an app can use
// the prebuilt xcframework instead: see Package.xcframework.swift and APPLE.md.
import Foundation
import PackageDescription

let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path
let nativeLibDir = ProcessInfo.processInfo.environment["FERROMCP_SWIFT_LIB_DIR"] ?? "\(here)/.native/lib"

#if os(Linux)
let systemLibraries: [LinkerSetting] = [.linkedLibrary("m"), .linkedLibrary("dl"), .linkedLibrary("pthread")]
#else
// What rustc reports the static library needs on Apple platforms (`--print native-static-libs`).
let systemLibraries: [LinkerSetting] = [.linkedLibrary("iconv")]
#endif

let package = Package(
    name: "FerroMCP",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "FerroMCP", targets: ["FerroMCP"]),
        // The official swift-sdk's API (its module `MCP`) on the same engine: swift-sdk code
        // ports by changing `import MCP` to `import FerroMCPCompat` (README: "Porting from the
        // official swift-sdk").
        .library(name: "FerroMCPCompat", targets: ["FerroMCPCompat"]),
    ],
    targets: [
        // The C side of the generated bindings (header + module map from uniffi-bindgen-swift).
        .systemLibrary(name: "FerroMCPFFI", path: "Sources/FerroMCPFFI"),
        // The generated Swift bindings. Swift 5 mode: UniFFI 0.32's output crashes the Swift 6.0
        // compiler in Swift 6 mode (uniffi-rs #2929); everything hand-written is Swift 6.
        .target(
            name: "FerroMCPNative",
            dependencies: ["FerroMCPFFI"],
            path: "Sources/FerroMCPNative",
            swiftSettings: [.swiftLanguageMode(.v5)],
            linkerSettings: [.unsafeFlags(["-L", nativeLibDir]), .linkedLibrary("ferromcp_swift")] + systemLibraries
        ),
        // The public API.
        .target(name: "FerroMCP", dependencies: ["FerroMCPNative"], path: "Sources/FerroMCP"),
        .target(name: "FerroMCPCompat", dependencies: ["FerroMCP"], path: "Sources/FerroMCPCompat"),
        .testTarget(name: "FerroMCPTests", dependencies: ["FerroMCP"], path: "Tests/FerroMCPTests"),
        // The swift-sdk README's examples with `import FerroMCPCompat`, against the engine.
        .testTarget(name: "FerroMCPCompatTests", dependencies: ["FerroMCPCompat", "FerroMCP"],
                    path: "Tests/FerroMCPCompatTests"),
        // The stdio server ListenTests spawns (built with the tests; not a product).
        .executableTarget(name: "ListenStdioServer", dependencies: ["FerroMCP"], path: "Tests/ListenStdioServer"),
        // The swift-sdk README's server examples over stdio, which FerroMCPCompatTests spawns.
        .executableTarget(name: "CompatStdioServer", dependencies: ["FerroMCPCompat"], path: "Tests/CompatStdioServer"),
    ]
)
