// swift-tools-version:6.0
// The FerroMCP Swift examples that join ferromcp's cross-language contract: the "everything"
// server and client the official conformance suite drives (tests/conformance/SCENARIOS.md) and
// the interop server of tests/interop/SURFACE.md. scripts/everything-server|everything-client
// swift build and run them (scripts/lib-swift-binding.sh).
//
// The binding is a path dependency: build its native part first (bindings-swift/scripts/build.sh).
// Its linker flags (-L to the engine's static library) are `unsafeFlags`, which SwiftPM accepts
// from a local (path) package such as this one.
import PackageDescription

let ferroMCP: Target.Dependency = .product(name: "FerroMCP", package: "bindings-swift")

let package = Package(
    name: "FerroMCPExamples",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: "../../bindings-swift"),
    ],
    targets: [
        // What the example servers share: the command line and the serving loop.
        .target(name: "ExampleSupport", dependencies: [ferroMCP]),
        .executableTarget(name: "EverythingServer", dependencies: [ferroMCP, "ExampleSupport"]),
        .executableTarget(name: "EverythingClient", dependencies: [ferroMCP, "ExampleSupport"]),
        .executableTarget(name: "InteropServer", dependencies: [ferroMCP, "ExampleSupport"]),
        // The middleware, composition and MCP Apps examples of docs/middleware.md,
        // docs/composition.md and docs/mcp-apps.md (tests/run-examples.sh checks them with
        // tests/examples/check.mjs).
        .executableTarget(name: "MiddlewareServer", dependencies: [ferroMCP, "ExampleSupport"]),
        .executableTarget(name: "CompositionServer", dependencies: [ferroMCP, "ExampleSupport"]),
        .executableTarget(name: "AppsServer", dependencies: [ferroMCP, "ExampleSupport"]),
        // One replica of the deployed OAuth proxy test (tests/run-oauth-proxy.sh), as
        // core/examples/oauth_proxy_replica.rs and tests/oauth/replica.{py,mjs} are.
        .executableTarget(name: "OAuthProxyReplica", dependencies: [ferroMCP, "ExampleSupport"]),
    ]
)
