// swift-tools-version:6.0
// The Swift-handler row of the side-by-side benchmark (bench/, scripts/bench): `EchoServer`, the
// bench's `echo` tool on the FerroMCP facade, with the command line of every bench server
// (`EchoServer stdio | http PORT [stateful|stateless|json]`).
//
// Build it as scripts/bench does (scripts/lib-swift-bench.sh): the engine in release
// (`../scripts/build.sh --release`, which writes ../.native/release/lib and leaves the debug
// library of the tests in ../.native/lib alone), then
//   FERROMCP_SWIFT_LIB_DIR=$PWD/../.native/release/lib ../../scripts/swift build -c release
// The binding is a path dependency, so its `unsafeFlags` (-L to the static library) are accepted.
import PackageDescription

let package = Package(
    name: "FerroMCPBench",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "EchoServer",
            dependencies: [
                .product(name: "FerroMCP", package: "bindings-swift"),
                // FERROMCP_BENCH_HANDLER=official: the swift-sdk's form (OfficialForm.swift).
                .product(name: "FerroMCPCompat", package: "bindings-swift"),
            ],
            path: "Sources/EchoServer"
        ),
    ]
)
