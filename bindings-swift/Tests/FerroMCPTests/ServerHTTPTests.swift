// ServerHTTPTests: the Server over Streamable HTTP on a local port, with a Client connected by
// URL: startHTTP / HTTPServer (headers reaching the handler, options, close), and serveHTTP
// ending with its task.

@testable import FerroMCP
import Foundation
import XCTest

private typealias T = ServerTesting

final class ServerHTTPTests: XCTestCase {
    private func headerServer() throws -> Server {
        let server = try Server(name: "http", version: "1.0.0")
        try server.registerTool("headers") { _, ctx in
            let headers = ctx.httpHeaders ?? []
            return ToolResult(content: [.text(ctx.httpHeader("X-Trace") ?? "none")], structuredContent: [
                "names": .array(headers.map { .string($0.name) }),
                "closed": .bool(ctx.closeSSEStream()),
            ])
        }
        return server
    }

    func testStartHTTPServesAClientAndShowsItsHeaders() async throws {
        let server = try headerServer()
        // A short retry hint: the handler closes its SSE stream, and the client resumes after it.
        let quickRetry = Duration.milliseconds(10)
        for options in [HTTPOptions(retryInterval: quickRetry), HTTPOptions(path: "/rpc", jsonResponse: true)] {
            let http = try await server.startHTTP(options: options)
            XCTAssertGreaterThan(http.port, 0)
            XCTAssertEqual(http.url, "http://127.0.0.1:\(http.port)\(options.path)")

            let client = try await Client.http(url: http.url, headers: ["X-Trace": "trace-42"])
            let result = try await client.callTool("headers")
            XCTAssertEqual(result.text, "trace-42")
            let names = result.structuredContent?["names"]?.arrayValue?.compactMap(\.stringValue) ?? []
            XCTAssertTrue(names.contains("x-trace"), "\(names)")
            XCTAssertTrue(names.contains("mcp-protocol-version"), "\(names)")
            // Closing the SSE stream works only where the answer travels on one.
            XCTAssertEqual(result.structuredContent?["closed"], .bool(options.jsonResponse != true))
            await client.close()

            try await http.close()
            try await T.deadline(10, "HTTPServer.wait after close") { await http.wait() }
            try await http.close()  // idempotent
            let refused = await T.mcpError { try await Client.http(url: http.url, legacyFallback: false) }
            XCTAssertEqual(refused?.isTransportError, true, "\(String(describing: refused))")
        }
    }

    func testServeHTTPRunsUntilItsTaskIsCancelled() async throws {
        let server = try headerServer()
        // A port that was free a moment ago (the engine's listener reuses addresses).
        let probe = try await server.startHTTP()
        let port = probe.port
        try await probe.close()

        let serving = Task {
            try await server.serveHTTP(port: port, options: HTTPOptions(retryInterval: .milliseconds(10)))
        }
        let url = "http://127.0.0.1:\(port)/mcp"
        // serveHTTP says nothing when it is listening: try until it answers (bounded).
        let client = try await T.deadline(10, "serveHTTP to listen") {
            while true {
                do {
                    return try await Client.http(url: url, legacyFallback: false)
                } catch let e as McpError where e.isTransportError {
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
        }
        let result = try await client.callTool("headers")
        XCTAssertEqual(result.text, "none")
        await client.close()

        serving.cancel()
        try await T.deadline(10, "serveHTTP to return after cancellation") { try await serving.value }
        let refused = await T.mcpError { try await Client.http(url: url, legacyFallback: false) }
        XCTAssertEqual(refused?.isTransportError, true, "\(String(describing: refused))")
    }

    func testServeHTTPReportsABadConfiguration() async throws {
        let server = try headerServer()
        let e = await T.mcpError { try await server.serveHTTP(options: HTTPOptions(extra: ["nope": 1])) }
        XCTAssertEqual(e?.code, McpError.Code.invalidParams.rawValue)
    }

    func testHTTPOptionsSendOnlyWhatIsSet() throws {
        XCTAssertEqual(HTTPOptions().value, ["path": "/mcp"])
        let all = HTTPOptions(
            path: "/x", jsonResponse: true, stateless: false, enableGetStream: false, maxSessions: 5,
            sessionIdleTimeout: .milliseconds(1500), maxBodySize: 1024, dnsRebindingProtection: true,
            allowedHosts: ["a"], allowedOrigins: ["b"], streamQueueCapacity: 8,
            closeStreamsAfter: .microseconds(1), retryInterval: .seconds(2), legacySSE: true,
            legacySSEPath: "/sse", legacyMessagesPath: "/messages", extra: ["future": 1])
        XCTAssertEqual(all.value, [
            "path": "/x", "jsonResponse": true, "stateless": false, "enableGetStream": false,
            "maxSessions": 5, "sessionIdleTimeoutMs": 1500, "maxBodySize": 1024,
            "dnsRebindingProtection": true, "allowedHosts": ["a"], "allowedOrigins": ["b"],
            "streamQueueCapacity": 8, "closeStreamsAfterMs": 1, "retryIntervalMs": 2000,
            "legacySse": true, "legacySsePath": "/sse", "legacyMessagesPath": "/messages", "future": 1,
        ])
        XCTAssertEqual(HTTPOptions(retryInterval: .seconds(5), omitRetryHint: true).value["retryIntervalMs"], .null)
    }
}
