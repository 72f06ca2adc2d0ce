// swift-tools-version:6.0
// FerroMCP, the distribution package: the root Package.swift of the tree `scripts/release swift`
// stages (dist/swift/stage/FerroMCP), which is committed to the release repository and tagged
// @VERSION@, so that an app depends on it with
//     .package(url: "<release repository URL>", from: "@VERSION@")
// No Rust toolchain is needed: the engine comes prebuilt.
//   - Apple platforms: FerroMCPFFI is the release's xcframework zip (the engine's static library
//     per platform, with the C header), downloaded by SwiftPM from its URL and checked against its
//     checksum. The zip is built on macOS (bindings-swift/scripts/build-xcframework.sh --zip).
//   - Linux: FerroMCPFFI is a system library target: its header and module map are here, the
//     engine's static library is the release's `ferromcp-swift-@VERSION@-linux-<arch>.tar.gz`,
//     found through pkg-config (`ferromcp-swift.pc`, relative to its own folder): extract it
//     anywhere and set PKG_CONFIG_PATH=<folder>/lib/pkgconfig, or extract it into /usr/local.
//     (Swift 6.0 has no binary static-library target on Linux, and a linker path in the
//     manifest would be an unsafe flag, which SwiftPM refuses in a dependency taken by version.)
// Generated from dist-staging/swift/Package.swift; Sources/FerroMCPNative is generated from the
// same engine build as the libraries (UniFFI checks their API checksums at the first call).
import PackageDescription

#if os(Linux)
let engine: Target = .systemLibrary(
    name: "FerroMCPFFI",
    path: "Sources/FerroMCPFFI",
    pkgConfig: "ferromcp-swift"
)
// The static library's system libraries, as bindings-swift/Package.swift links them on Linux
// (the rest of rustc's native-static-libs for linux-gnu, gcc_s and c, are in every Swift link).
let engineLibraries: [LinkerSetting] = [
    .linkedLibrary("ferromcp_swift"), .linkedLibrary("m"), .linkedLibrary("dl"), .linkedLibrary("pthread"),
]
#else
let engine: Target = .binaryTarget(
    name: "FerroMCPFFI",
    url: "@XCFRAMEWORK_URL@",
    checksum: "@XCFRAMEWORK_CHECKSUM@"
)
// What the static library needs besides libSystem (rustc --print native-static-libs).
let engineLibraries: [LinkerSetting] = [.linkedLibrary("iconv")]
#endif

// The privacy manifest (Sources/FerroMCP/PrivacyInfo.xcprivacy: no tracking, no data collected,
// the file-timestamp API with reason C617.1; docs/releasing.md says how it was checked). A binary
// target cannot carry resources and SwiftPM drops a manifest inside a static xcframework, so it is
// a resource of FerroMCP, the source target every app links the engine through: Xcode puts it in
// the package's resource bundle, where the app's privacy report finds it. Linux has no use for it.
#if os(Linux)
let privacyManifest: (resources: [Resource], exclude: [String]) = ([], ["PrivacyInfo.xcprivacy"])
#else
let privacyManifest: (resources: [Resource], exclude: [String]) = ([.copy("PrivacyInfo.xcprivacy")], [])
#endif

let package = Package(
    name: "FerroMCP",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "FerroMCP", targets: ["FerroMCP"]),
    ],
    targets: [
        engine,
        // The generated Swift bindings. Swift 5 mode: UniFFI 0.32's output crashes the Swift 6.0
        // compiler in Swift 6 mode (uniffi-rs #2929); everything hand-written is Swift 6.
        .target(
            name: "FerroMCPNative",
            dependencies: ["FerroMCPFFI"],
            path: "Sources/FerroMCPNative",
            swiftSettings: [.swiftLanguageMode(.v5)],
            linkerSettings: engineLibraries
        ),
        // The public API.
        .target(
            name: "FerroMCP",
            dependencies: ["FerroMCPNative"],
            path: "Sources/FerroMCP",
            exclude: privacyManifest.exclude,
            resources: privacyManifest.resources
        ),
    ]
)
