// ServerOptions2026Tests (issue 14): the 2026-07-28 server options as Python's Server(...) and
// Node's McpServer take them: the caching hints (cacheTtlMs, cacheScope, cacheHints) reach the
// results a per-request client gets, and the engine refuses a bad key ring or replay capacity.

import Foundation
import XCTest
@testable import FerroMCP

final class ServerOptions2026Tests: XCTestCase {
    private func server(_ options: ServerOptions) throws -> Server {
        let server = try Server(name: "options", version: "1.0.0", options: options)
        try server.registerTool("echo", inputSchema: ["type": "object"]) { _, _ in
            .text("ok")
        }
        return server
    }

    func testCachingHintsReachPerRequestResults() async throws {
        let s = try server(.init(
            cacheTtlMs: 60_000, cacheScope: .public,
            cacheHints: ["tools/list": CacheHint(ttlMs: 5, cacheScope: .private)],
            maxListenStreams: 4,
            requestStateKeys: [RequestStateKey(id: "k1", secret: String(repeating: "1f", count: 32))],
            requestStateReplayCapacity: 16))
        var options = ClientOptions()
        options.protocolMode = .perRequest
        options.protocolVersion = "2026-07-28"
        let client = try await Client.connect(to: s, options: options)
        let tools = try await client.sendRequest(method: "tools/list", params: [:])
        XCTAssertEqual(tools["ttlMs"]?.intValue, 5)
        XCTAssertEqual(tools["cacheScope"]?.stringValue, "private")
        let discover = try await client.sendRequest(method: "server/discover", params: [:])
        XCTAssertEqual(discover["ttlMs"]?.intValue, 60_000)
        XCTAssertEqual(discover["cacheScope"]?.stringValue, "public")
        await client.close()
    }

    func testBadSettingsThrow() {
        XCTAssertThrowsError(try server(.init(requestStateKeys: [RequestStateKey(id: "k1", secret: "abcd")]))) {
            XCTAssertTrue("\($0)".contains("must be 64 hex digits"), "\($0)")
        }
        XCTAssertThrowsError(try server(.init(requestStateReplayCapacity: 0))) {
            XCTAssertTrue("\($0)".contains("must be at least 1"), "\($0)")
        }
        XCTAssertThrowsError(try server(.init(maxListenStreams: 0))) {
            XCTAssertTrue("\($0)".contains("maxListenStreams must be at least 1"), "\($0)")
        }
        XCTAssertThrowsError(try server(.init(cacheHints: ["tools/call": CacheHint(ttlMs: 1)]))) {
            XCTAssertTrue("\($0)".contains("has no cacheable result"), "\($0)")
        }
    }
}
