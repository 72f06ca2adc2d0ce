// The Swift options against the engine's configuration schema (`embed/config-schema.json`: the
// JSON Schema of embed's `ServerConfig`, `HttpConfig` and `ClientConfig`, derived from those
// structs and checked against them by `cargo test -p ferromcp-embed`). With every option set
// (checked through `Mirror`, so a new option cannot go unset here), each key the facade sends
// must be a key of the schema (a misnamed key fails here, not only when some test sets that
// option), and each key of the schema must be sent or listed in `notOffered` with the reason (an
// option added to the engine fails here until Swift offers it or says why not). A listed key
// Swift now sends fails too.

import Foundation
import XCTest
@testable import FerroMCP

private let notYet = "not offered by the Swift facade"
/// Keys of each config the facade does not send, with the reason.
private let notOffered: [String: [String: String]] = [
    "ServerConfig": [
        "middleware": "sent apart: Server.use(_:) hands each built-in's config to the engine",
    ],
    "HttpConfig": [
        "maxConnectionsPerClient": notYet,
        "sseIdleTimeoutMs": notYet,
        "connectionsKeptForSessions": notYet,
        "maxStreamBufferedBytes": notYet,
        "maxSessionBufferedBytes": notYet,
        "healthPath": notYet + " (the engine's default)",
    ],
    "ClientConfig": [:],
]

final class ConfigSchemaTests: XCTestCase {
    private func schemaKeys(_ name: String) throws -> Set<String> {
        // <repository>/bindings-swift/Tests/FerroMCPTests/<this file> -> <repository>/embed/config-schema.json
        var repo = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { repo = repo.deletingLastPathComponent() }
        let file = repo.appendingPathComponent("embed/config-schema.json")
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw McpError(.internalError, "no \(file.path) (cargo test -p ferromcp-embed writes it with FERROMCP_BLESS=1)")
        }
        guard let props = try Value(json: data)[name]?["properties"]?.objectValue else {
            throw McpError(.internalError, "\(file.path) has no \(name).properties")
        }
        return Set(props.keys)
    }

    private func check(_ name: String, sent: Value, file: StaticString = #filePath, line: UInt = #line) throws {
        let keys = try schemaKeys(name)
        let sentKeys = Set(sent.objectValue?.keys.map { $0 } ?? [])
        let listed = Set((notOffered[name] ?? [:]).keys)
        XCTAssertEqual(sentKeys.subtracting(keys).sorted(), [],
                       "sent keys the engine's \(name) does not have (misnamed?)", file: file, line: line)
        XCTAssertEqual(keys.subtracting(sentKeys).subtracting(listed).sorted(), [],
                       "\(name) keys the facade never sends (offer them or list them in notOffered)", file: file, line: line)
        XCTAssertEqual(listed.intersection(sentKeys).sorted(), [], "notOffered lists keys the facade sends", file: file, line: line)
        XCTAssertEqual(listed.subtracting(keys).sorted(), [], "notOffered lists keys \(name) no longer has", file: file, line: line)
    }

    /// Every stored property of `options` is set (not nil, not false), but for `apart`.
    private func assertEverySet(_ options: Any, apart: Set<String>, file: StaticString = #filePath, line: UInt = #line) {
        for child in Mirror(reflecting: options).children {
            guard let label = child.label, !apart.contains(label) else { continue }
            let m = Mirror(reflecting: child.value)
            let isNil = m.displayStyle == .optional && m.children.isEmpty
            XCTAssertFalse(isNil || (child.value as? Bool) == false,
                           "\(type(of: options)).\(label) is not set here: set it so its key is checked", file: file, line: line)
        }
    }

    func testServerOptionsAreTheEnginesServerConfig() throws {
        let options = ServerOptions(
            websiteUrl: "https://example.com", icons: [["src": "https://example.com/i.png"]], pageSize: 5,
            requestTimeout: .seconds(1), enableTools: true, enableResources: true, enablePrompts: true,
            enableLogging: true, maxMessageSize: 1000, cacheTtlMs: 1, cacheScope: .public,
            cacheHints: ["tools/list": CacheHint(ttlMs: 1)], maxListenStreams: 2,
            requestStateKeys: [RequestStateKey(id: "k", secret: String(repeating: "0", count: 64))],
            requestStateReplayCapacity: 3, tasksExtension: true, supportedVersions: ["2025-11-25"])
        assertEverySet(options, apart: ["extra"])
        try check("ServerConfig", sent: Server.configValue(name: "s", version: "1", title: "t", instructions: "i",
                                                           options: options))
    }

    func testHTTPOptionsAreTheEnginesHttpConfig() throws {
        let options = HTTPOptions(
            path: "/mcp", jsonResponse: true, stateless: true, enableGetStream: true, maxSessions: 1,
            sessionIdleTimeout: .seconds(1), maxBodySize: 1, dnsRebindingProtection: true, allowedHosts: ["a"],
            allowedOrigins: ["b"], streamQueueCapacity: 1, closeStreamsAfter: .seconds(1),
            retryInterval: .seconds(1), sseKeepAlive: .seconds(1), legacySSE: true, legacySSEPath: "/sse", legacyMessagesPath: "/messages",
            maxConnections: 1, maxHeadSize: 1, headerReadTimeout: .seconds(1), requestTimeout: .seconds(1),
            keepAliveTimeout: .seconds(1), writeTimeout: .seconds(1), maxBufferedBytes: 1,
            redisURL: "redis://127.0.0.1:1",
            tls: TLSOptions(certificate: .pem("cert"), privateKey: .pem("key")),
            compression: CompressionOptions(codings: [.gzip], minSize: 1, level: .fastest, streams: true),
            oauthProxy: OAuthProxyOptions(issuerURL: "https://example.com", resourceURL: "https://example.com/mcp",
                                          upstream: OAuthProxyUpstream(preset: "github", clientID: "id")))
        // omitRetryHint and omitSSEKeepAlive choose between two values of retryIntervalMs and
        // sseKeepAliveMs (a time, or null).
        assertEverySet(options, apart: ["extra", "omitRetryHint", "omitSSEKeepAlive"])
        try check("HttpConfig", sent: options.value)
    }

    func testClientOptionsAreTheEnginesClientConfig() throws {
        var options = ClientOptions(
            name: "c", version: "1", protocolVersion: "2025-11-25", requestTimeout: .seconds(1),
            sampling: { _, _ in [:] }, samplingTools: true, elicitation: { _, _ in ElicitResult(action: .cancel) },
            elicitationURL: true, roots: { [] }, notificationBufferSize: 1, maxMessageSize: 1,
            tasksExtension: false, tasks: true, capabilities: ["experimental": [:]])
        options.protocolMode = .auto
        options.openTelemetry = ClientOpenTelemetry(serviceName: "c")
        // notificationBufferSize: the facade's own buffer; tasksExtension: sent when false.
        assertEverySet(options, apart: ["notificationBufferSize", "tasksExtension"])
        try check("ClientConfig", sent: try Value(json: options.configJSON))
    }
}
