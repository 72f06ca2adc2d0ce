// MiddlewareRedisTests: rate limiting shared by three Swift servers on a real redis-server
// (`.rateLimit(..., redisURL:)`), the scenario of core/tests/integration/middleware_redis.rs with
// its test names (camelCase after `test`), as the Python and Node tests have it: one client
// (keyed by its address, from a proxy's `x-forwarded-for`) sends 2026-07-28 calls to the servers
// in turn; once over its limit it is refused by every server with -32004 and the same
// `retryAfter`, `limit` and `window` (the bucket lives on Redis's clock), and is allowed again
// after it. Another address is not affected. A Redis away lets requests through; one back empty
// limits again.
//
// The tests run in scripts/swift's root, which has no redis-server: tests/run-swift.sh runs one
// on the host under tests/redis-restartable.sh and sets FERROMCP_TEST_REDIS_URL and
// FERROMCP_TEST_REDIS_CONTROL (the directory through which a test kills and restarts it).

import FerroMCP
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

private typealias T = ServerTesting

/// The redis-server tests/run-swift.sh runs, or a skip saying how to get one.
private func redisURL() throws -> String {
    guard let url = ProcessInfo.processInfo.environment["FERROMCP_TEST_REDIS_URL"] else {
        throw XCTSkip("FERROMCP_TEST_REDIS_URL is not set: tests/run-swift.sh starts a redis-server and sets it")
    }
    return url
}

/// Asks tests/redis-restartable.sh to kill (`stop`) or start again (`start`) its redis-server
/// and waits until it has (the request file is removed when done).
private func redisControl(_ request: String) async throws {
    guard let dir = ProcessInfo.processInfo.environment["FERROMCP_TEST_REDIS_CONTROL"] else {
        throw XCTSkip("FERROMCP_TEST_REDIS_CONTROL is not set: tests/run-swift.sh runs redis-server under tests/redis-restartable.sh")
    }
    let file = URL(fileURLWithPath: dir).appendingPathComponent(request).path
    XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: nil), "cannot create \(file)")
    let deadline = ContinuousClock.now + .seconds(15)
    while FileManager.default.fileExists(atPath: file) {
        guard ContinuousClock.now < deadline else {
            try? FileManager.default.removeItem(atPath: file)  // not left for a later request
            throw McpError(.internalError, "tests/redis-restartable.sh did not \(request) redis-server in 15 s")
        }
        try await Task.sleep(for: .milliseconds(20))
    }
}

/// A server limiting each client address (from the proxy's `x-forwarded-for`, trusted on
/// loopback) to 3 calls per 1.5 s, its buckets on `redisURL`.
private func replica(_ redisURL: String) throws -> Server {
    let server = try Server(name: "mw-redis", version: "1")
    try server.use(.rateLimit(limit: 3, window: .milliseconds(1500), by: [.clientAddress],
                              addressHeader: "x-forwarded-for", redisURL: redisURL))
    try server.registerTool("ping_tool", description: "Answers pong") { _, _ in .text("pong") }
    return server
}

/// One answer of `callFrom`: the JSON-RPC message, the HTTP status and the Retry-After header.
private struct Answer {
    var message: Value
    var status: Int
    var retryAfterHeader: String?

    var isPong: Bool { message["result"]?["content"]?[0]?["text"]?.stringValue == "pong" }
    var error: Value? { message["error"] }
}

/// One 2026-07-28 `tools/call` of `ping_tool` from client address `addr`.
private func callFrom(_ url: String, _ id: Int, _ addr: String) async throws -> Answer {
    let v = "2026-07-28"
    let body: Value = [
        "jsonrpc": "2.0", "id": .int(id), "method": "tools/call",
        "params": [
            "name": "ping_tool",
            "_meta": [
                "io.modelcontextprotocol/protocolVersion": .string(v),
                "io.modelcontextprotocol/clientCapabilities": [:],
                "io.modelcontextprotocol/clientInfo": ["name": "redis-test", "version": "1"],
            ],
        ],
    ]
    var request = URLRequest(url: URL(string: url)!)
    request.httpMethod = "POST"
    request.httpBody = Data(body.jsonText.utf8)
    for (name, value) in [
        ("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", v), ("Mcp-Method", "tools/call"), ("Mcp-Name", "ping_tool"),
        ("X-Forwarded-For", addr),
    ] {
        request.setValue(value, forHTTPHeaderField: name)
    }
    let (data, response): (Data, HTTPURLResponse) = try await withCheckedThrowingContinuation { k in
        URLSession.shared.dataTask(with: request) { data, response, error in
            if let error { return k.resume(throwing: error) }
            k.resume(returning: (data ?? Data(), response as! HTTPURLResponse))
        }.resume()
    }
    let text = String(decoding: data, as: UTF8.self)
    var message: Value
    if (response.value(forHTTPHeaderField: "Content-Type") ?? "").hasPrefix("text/event-stream") {
        let answers = try text.split(separator: "\n").filter { $0.hasPrefix("data:") }
            .map { $0.dropFirst(5).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .map { try Value(json: $0) }.filter { $0["id"] != nil }
        message = answers.last ?? .null
    } else {
        // (A per-address limit answers before any JSON is read: 429, Retry-After, the error.)
        message = try Value(json: text)
    }
    return Answer(message: message, status: response.statusCode,
                  retryAfterHeader: response.value(forHTTPHeaderField: "Retry-After"))
}

final class MiddlewareRedisTests: XCTestCase {
    func testThreeReplicasShareTheBucketsOnRedis() async throws {
        let url = try redisURL()
        var servers: [HTTPServer] = []
        for _ in 0..<3 { servers.append(try await replica(url).startHTTP()) }
        let urls = servers.map(\.url)
        do {
            // Three calls, one per server: the limit.
            for (i, u) in urls.enumerated() {
                let m = try await callFrom(u, i, "10.1.1.1")
                XCTAssertTrue(m.isPong, "call \(i): \(m.message.jsonText)")
            }
            // Over the limit on every server, with the same retryAfter (within the few ms
            // between the calls).
            var retries: [Double] = []
            for (i, u) in urls.enumerated() {
                let m = try await callFrom(u, 10 + i, "10.1.1.1")
                XCTAssertEqual(m.error?["code"], -32004, "server \(i): \(m.message.jsonText)")
                XCTAssertEqual(m.error?["message"], "Rate limited")
                XCTAssertEqual(m.error?["data"]?["limit"], 3)
                XCTAssertEqual(m.error?["data"]?["window"]?.doubleValue, 1.5)
                let retryAfter = try XCTUnwrap(m.error?["data"]?["retryAfter"]?.doubleValue, m.message.jsonText)
                XCTAssertEqual(m.status, 429)
                XCTAssertEqual(m.retryAfterHeader, String(Int(retryAfter.rounded(.up))))
                retries.append(retryAfter)
            }
            let lo = try XCTUnwrap(retries.min()), hi = try XCTUnwrap(retries.max())
            XCTAssertTrue(lo > 0 && hi <= 0.5, "one token in 0.5 s: \(retries)")
            XCTAssertTrue(hi - lo < 0.2, "servers agree: \(retries)")
            // Another client is not affected.
            let other = try await callFrom(urls[1], 20, "10.2.2.2")
            XCTAssertTrue(other.isPong, other.message.jsonText)
            // Allowed again after retryAfter, on any server; then over the limit again.
            try await Task.sleep(for: .milliseconds(Int((hi * 1000).rounded(.up)) + 50))
            let again = try await callFrom(urls[2], 30, "10.1.1.1")
            XCTAssertTrue(again.isPong, again.message.jsonText)
            let over = try await callFrom(urls[0], 31, "10.1.1.1")
            XCTAssertEqual(over.error?["code"], -32004, over.message.jsonText)
        } catch {
            for s in servers { try? await s.close() }
            throw error
        }
        for s in servers { try await s.close() }
    }

    func testARedisAwayLetsRequestsThrough() async throws {
        let url = try redisURL()
        let server = try await replica(url).startHTTP()
        var away = false
        do {
            let first = try await callFrom(server.url, 1, "10.3.3.3")
            XCTAssertTrue(first.isPong, first.message.jsonText)
            try await redisControl("stop")
            away = true
            // Four calls, one over the limit: all served while the store is away.
            for id in 2..<6 {
                let m = try await callFrom(server.url, id, "10.3.3.3")
                XCTAssertTrue(m.isPong, "call \(id): \(m.message.jsonText)")
            }
            // A Redis back empty limits again once the server has reconnected.
            try await redisControl("start")
            away = false
            let deadline = ContinuousClock.now + .seconds(10)
            var id = 10
            while true {
                let m = try await callFrom(server.url, id, "10.3.3.3")
                if m.error?["code"] == -32004 { break }
                XCTAssertTrue(m.isPong, m.message.jsonText)
                guard ContinuousClock.now < deadline else {
                    throw McpError(.internalError, "never limited again (last answer \(m.message.jsonText))")
                }
                id += 1
                try await Task.sleep(for: .milliseconds(20))
            }
        } catch {
            // The other tests share this redis-server: it is up again whatever happened here.
            if away { try? await redisControl("start") }
            try? await server.close()
            throw error
        }
        try await server.close()
    }

    func testABadRateLimitRedisURLIsRefused() async throws {
        // A configuration error: invalid params, naming the option, not repeating the URL.
        let server = try Server(name: "x", version: "1")
        let e = await T.mcpError {
            try server.use(.rateLimit(limit: 3, window: .milliseconds(1500), redisURL: "http://u:secret@127.0.0.1:6379"))
        }
        XCTAssertEqual(e?.code, -32602)
        XCTAssertTrue(e?.message.contains("redisUrl is not a Redis URL") ?? false, e?.message ?? "")
        XCTAssertFalse(e?.message.contains("secret") ?? true, e?.message ?? "")
    }
}
