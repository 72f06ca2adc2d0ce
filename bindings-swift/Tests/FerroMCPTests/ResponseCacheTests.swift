// ResponseCacheTests: the engine's ResponseCache from Swift (`.responseCache(ttl:...)`),
// scenario names as in core/tests/integration/response_cache.rs in camelCase after `test`. The
// engine does the caching; these prove the Swift surface reaches it, Swift handlers included.

import FerroMCP
import Foundation
import XCTest

private final class Counts: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String: Int] = [:]
    func bump(_ key: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        values[key, default: 0] += 1
        return values[key]!
    }
    func get(_ key: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return values[key, default: 0]
    }
}

private func cachedServer(_ layer: BuiltinMiddleware, _ counts: Counts) throws -> Server {
    let s = try Server(name: "cache", version: "1")
    try s.use(layer)
    try s.registerResource("mem://a", name: "a") { _, _ in .text("read \(counts.bump("read"))") }
    try s.registerTool("forecast", inputSchema: ["type": "object", "properties": ["city": ["type": "string"]]]) { args, _ in
        .text("call \(counts.bump("call")) for \(args["city"]?.stringValue ?? "")")
    }
    try s.registerTool("roll") { _, _ in .text("roll \(counts.bump("call"))") }
    return s
}

private func read(_ c: Client, _ uri: String) async throws -> String {
    try await c.readResource(uri).first?.text ?? ""
}

final class ResponseCacheTests: XCTestCase {
    func testASecondListAndReadWithinTheTtlAreHits() async throws {
        let counts = Counts()
        let c = try await Client.connect(to: cachedServer(.responseCache(ttl: .seconds(60)), counts))
        let first = try await read(c, "mem://a")
        let second = try await read(c, "mem://a")
        XCTAssertEqual(first, "read 1")
        XCTAssertEqual(second, first)
        XCTAssertEqual(counts.get("read"), 1)
        await c.close()
    }

    func testInvalidationMakesACachedAnswerFresh() async throws {
        let counts = Counts()
        let s = try cachedServer(.responseCache(ttl: .seconds(60), tools: ["forecast"]), counts)
        let c = try await Client.connect(to: s)
        let first = try await read(c, "mem://a")
        let cached = try await read(c, "mem://a")
        XCTAssertEqual(first, "read 1")
        XCTAssertEqual(cached, first)
        try s.invalidateCache(uri: "mem://a")
        let afterUri = try await read(c, "mem://a")
        XCTAssertEqual(afterUri, "read 2")
        try s.invalidateCache(method: "resources/read")
        let afterMethod = try await read(c, "mem://a")
        XCTAssertEqual(afterMethod, "read 3")
        let oslo = try await c.callTool("forecast", arguments: ["city": "Oslo"])
        let again = try await c.callTool("forecast", arguments: ["city": "Oslo"])
        XCTAssertEqual(again.content.first?.text, oslo.content.first?.text)
        try s.invalidateCache()
        let fresh = try await c.callTool("forecast", arguments: ["city": "Oslo"])
        XCTAssertNotEqual(fresh.content.first?.text, oslo.content.first?.text)
        let afterAll = try await read(c, "mem://a")
        let cachedAgain = try await read(c, "mem://a")
        XCTAssertEqual(afterAll, "read 4")
        XCTAssertEqual(cachedAgain, "read 4")
        XCTAssertEqual(counts.get("read"), 4)
        await c.close()
        XCTAssertThrowsError(try s.invalidateCache(method: "resources/read", uri: "mem://a")) { e in
            XCTAssertTrue((e as? McpError)?.message.contains("not both") ?? false, "\(e)")
        }
        let plain = try Server(name: "plain", version: "1")
        XCTAssertThrowsError(try plain.invalidateCache()) { e in
            XCTAssertTrue((e as? McpError)?.message.contains("no responseCache middleware") ?? false, "\(e)")
        }
    }

    func testToolCallsAreCachedOnlyForNamedToolsByArguments() async throws {
        let counts = Counts()
        let c = try await Client.connect(to: cachedServer(.responseCache(ttl: .seconds(60), tools: ["forecast"]), counts))
        let oslo = try await c.callTool("forecast", arguments: ["city": "Oslo"])
        let again = try await c.callTool("forecast", arguments: ["city": "Oslo"])
        XCTAssertEqual(again.content.first?.text, oslo.content.first?.text)
        _ = try await c.callTool("forecast", arguments: ["city": "Lima"])
        XCTAssertEqual(counts.get("call"), 2)
        let r1 = try await c.callTool("roll")
        let r2 = try await c.callTool("roll")
        XCTAssertNotEqual(r1.content.first?.text, r2.content.first?.text)
        await c.close()
    }

    func testEntriesExpireAfterTheTtl() async throws {
        let counts = Counts()
        let c = try await Client.connect(to: cachedServer(.responseCache(ttl: .milliseconds(300)), counts))
        let first = try await read(c, "mem://a")
        let cached = try await read(c, "mem://a")
        XCTAssertEqual(cached, first)
        try await Task.sleep(for: .milliseconds(500))
        let later = try await read(c, "mem://a")
        XCTAssertNotEqual(later, first)
        await c.close()
    }

    func testListChangedAndResourceUpdatedInvalidate() async throws {
        let counts = Counts()
        let s = try cachedServer(.responseCache(ttl: .seconds(60)), counts)
        let c = try await Client.connect(to: s)
        _ = try await read(c, "mem://a")
        s.notifyResourceUpdated("mem://a")
        _ = try await read(c, "mem://a")
        XCTAssertEqual(counts.get("read"), 2)
        let before = try await c.listAllTools().map(\.name)
        try s.registerTool("added") { _, _ in "new" }
        let after = try await c.listAllTools().map(\.name)
        XCTAssertTrue(after.contains("added") && !before.contains("added"))
        await c.close()
    }

    func testOneSessionNeverGetsAnotherSessionsAnswer() async throws {
        let counts = Counts()
        let s = try cachedServer(.responseCache(ttl: .seconds(60)), counts)
        let c1 = try await Client.connect(to: s)
        let c2 = try await Client.connect(to: s)
        let a1 = try await read(c1, "mem://a")
        let a2 = try await read(c2, "mem://a")
        XCTAssertNotEqual(a1, a2)
        let again = try await read(c1, "mem://a")
        XCTAssertEqual(again, a1)
        await c1.close()
        await c2.close()
    }

    func testNoCrossPrincipalLeakOverHttp() async throws {
        // The default scope is the principal: over HTTP with verified tokens, alice's two
        // sessions share her cached read, and bob, asking the same thing, never gets her answer.
        let probe = try await Server(name: "probe", version: "1").startHTTP()
        let port = probe.port
        try await probe.close()
        let resource = "http://127.0.0.1:\(port)/mcp"
        let auth = ProtectedResource(resource: resource, authorizationServers: ["http://as.example"]) { token in
            AuthInfo(subject: "user-\(token)", scopes: [], audience: [resource])
        }
        let counts = Counts()
        let s = try Server(name: "cache", version: "1")
        try s.use(.responseCache(ttl: .seconds(60)))
        try s.registerResource("mem://a", name: "a") { _, ctx in
            .text("read \(counts.bump("read")) for \(ctx.auth?.subject ?? "-")")
        }
        let http = try await s.startHTTP(port: port, auth: auth)
        let url = http.url
        let connect = { (who: String) in
            try await Client.http(url: url, headers: ["Authorization": "Bearer \(who)"])
        }
        let alice1 = try await connect("alice"), alice2 = try await connect("alice"), bob = try await connect("bob")
        let first = try await read(alice1, "mem://a")
        XCTAssertEqual(first, "read 1 for user-alice")
        let again = try await read(alice2, "mem://a")
        XCTAssertEqual(again, first, "alice's sessions share her entry")
        let bobs = try await read(bob, "mem://a")
        XCTAssertEqual(bobs, "read 2 for user-bob", "bob never gets hers")
        for c in [alice1, alice2, bob] { await c.close() }
        try await http.close()
        XCTAssertEqual(counts.get("read"), 2)
    }

    func testBadOptionsAreRefused() throws {
        let s = try Server(name: "cache", version: "1")
        for (layer, says) in [
            (BuiltinMiddleware.responseCache(ttl: .zero), "ttlMs must be at least 1"),
            (.responseCache(ttl: .seconds(1), maxEntries: 0), "maxEntries must be at least 1"),
        ] {
            XCTAssertThrowsError(try s.use(layer)) { error in
                let e = error as? McpError
                XCTAssertEqual(e?.code, McpError.Code.invalidParams.rawValue, "\(error)")
                XCTAssertTrue(e?.message.contains(says) == true, "\(error)")
            }
        }
        // By configuration, an option the engine does not know is refused too.
        XCTAssertThrowsError(try Server(name: "cache", version: "1", options: .init(extra: [
            "middleware": [["name": "responseCache", "ttlMs": 1000, "ttl": 3]],
        ]))) { error in
            XCTAssertTrue("\(error)".contains("unknown field `ttl`"), "\(error)")
        }
    }
}
