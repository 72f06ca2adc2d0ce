// RedisTests (issue 17): `HTTPOptions(redisURL:)` keeps the sessions on Redis, so two servers
// on the same Redis serve one session: initialized on one, called on the other. The Redis is
// the one tests/run-swift.sh starts (FERROMCP_TEST_REDIS_URL and FERROMCP_TEST_REDIS_PORT; the
// tests run in scripts/swift's root, which has no redis-server of its own).

@testable import FerroMCP
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

private typealias T = ServerTesting

final class RedisTests: XCTestCase {
    private func addServer() throws -> Server {
        let server = try Server(name: "replica", version: "1.0.0")
        try server.registerTool(
            "add", inputSchema: ["type": "object", "properties": ["a": ["type": "integer"], "b": ["type": "integer"]]]
        ) { args, _ in
            .text(String((args["a"]?.intValue ?? 0) + (args["b"]?.intValue ?? 0)))
        }
        return server
    }

    /// One JSON-RPC POST: the session id the server answered with, and the answer (from a JSON
    /// body or the SSE stream's data line).
    private func post(_ url: String, _ message: String, session: String? = nil) async throws
        -> (session: String?, answer: Value?)
    {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "POST"
        request.httpBody = Data(message.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json, text/event-stream", forHTTPHeaderField: "Accept")
        request.setValue("2025-11-25", forHTTPHeaderField: "MCP-Protocol-Version")
        if let session { request.setValue(session, forHTTPHeaderField: "Mcp-Session-Id") }
        let (data, response): (Data, HTTPURLResponse) = try await withCheckedThrowingContinuation { k in
            URLSession.shared.dataTask(with: request) { data, response, error in
                if let error { return k.resume(throwing: error) }
                k.resume(returning: (data ?? Data(), response as! HTTPURLResponse))
            }.resume()
        }
        let sid = response.value(forHTTPHeaderField: "Mcp-Session-Id")
        let text = String(decoding: data, as: UTF8.self)
        let json = text.split(separator: "\n").filter { $0.hasPrefix("data:") }
            .map { $0.dropFirst(5).trimmingCharacters(in: .whitespaces) }.last(where: { !$0.isEmpty })
            ?? text
        return (sid, json.isEmpty ? nil : try Value(json: json))
    }

    func testASessionInitializedOnOneServerIsServedByTheOther() async throws {
        guard let redisURL = ProcessInfo.processInfo.environment["FERROMCP_TEST_REDIS_URL"] else {
            throw XCTSkip("FERROMCP_TEST_REDIS_URL is not set: tests/run-swift.sh starts a redis-server and sets it")
        }
        let one = try await addServer().startHTTP(options: HTTPOptions(redisURL: redisURL))
        let two = try await addServer().startHTTP(options: HTTPOptions(redisURL: redisURL))
        let initialize = #"""
            {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",
             "capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
            """#
        let (sid, answer) = try await post(one.url, initialize)
        XCTAssertEqual(answer?["result"]?["serverInfo"]?["name"]?.stringValue, "replica")
        let session = try XCTUnwrap(sid)
        _ = try await post(two.url, #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, session: session)
        let call = #"{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}"#
        let onTwo = try await post(two.url, call.replacingOccurrences(of: "ID", with: "2"), session: session)
        XCTAssertEqual(onTwo.answer?["result"]?["content"]?[0]?["text"]?.stringValue, "5", "\(String(describing: onTwo.answer))")
        let onOne = try await post(one.url, call.replacingOccurrences(of: "ID", with: "3"), session: session)
        XCTAssertEqual(onOne.answer?["result"]?["content"]?[0]?["text"]?.stringValue, "5", "\(String(describing: onOne.answer))")
        try await one.close()
        try await two.close()
    }

    func testABadRedisURLThrowsInvalidParams() async throws {
        let error = await T.mcpError {
            try await self.addServer().startHTTP(options: HTTPOptions(redisURL: "http://127.0.0.1:6379"))
        }
        XCTAssertEqual(error?.code, McpError.Code.invalidParams.rawValue, "\(String(describing: error))")
        XCTAssertTrue(error?.message.contains("redisUrl") ?? false, "\(String(describing: error))")
    }
}
