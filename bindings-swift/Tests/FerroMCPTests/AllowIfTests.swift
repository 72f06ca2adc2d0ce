// AllowIfTests: authorization by a predicate from Swift (`AllowIf`), the scenario of
// core/tests/integration/authorization.rs `a_predicate_decides_from_the_client_identity` (and
// the Python and Node tests of the same names), and hidden items refused as unknown ones.

import FerroMCP
import Foundation
import XCTest

private let opsOnly = AllowIf { a in
    !(a.name.hasPrefix("admin_") || a.name.hasPrefix("secret://"))
        || a.request.context.clientInfo?["name"] == "ops-console"
}

private func authzServer() throws -> Server {
    let s = try Server(name: "authz", version: "1", options: .init(pageSize: 2))
    try s.use(opsOnly)
    for name in ["admin_reset", "echo", "admin_delete", "search", "time"] {
        try s.registerTool(name, description: name) { _, _ in .text("ran \(name)") }
    }
    try s.registerResource("secret://keys", name: "keys") { _, _ in "k" }
    try s.registerResource("public://readme", name: "readme") { _, _ in "r" }
    try s.registerPrompt("admin_report") { _, _ in "report" }
    return s
}

final class AllowIfTests: XCTestCase {
    func testAPredicateDecidesFromTheClientIdentity() async throws {
        let s = try authzServer()
        let plain = try await Client.connect(to: s)
        let ops = try await Client.connect(to: s, options: ClientOptions(name: "ops-console"))
        let plainTools = try await plain.listAllTools().map(\.name)
        XCTAssertEqual(plainTools, ["echo", "search", "time"])
        let opsTools = try await ops.listAllTools().map(\.name)
        XCTAssertEqual(opsTools.count, 5)
        let ran = try await ops.callTool("admin_reset")
        XCTAssertEqual(ran.content.first?.text, "ran admin_reset")
        await plain.close()
        await ops.close()
    }

    func testHiddenItemsAreRefusedAsUnknownOnes() async throws {
        let c = try await Client.connect(to: authzServer())
        let tool = await ServerTesting.mcpError { try await c.callTool("admin_reset") }
        XCTAssertEqual(tool?.code, -32602)
        XCTAssertEqual(tool?.message, "Unknown tool: admin_reset")
        let resource = await ServerTesting.mcpError { try await c.readResource("secret://keys") }
        XCTAssertEqual(resource?.code, -32002)
        let echo = try await c.callTool("echo")
        XCTAssertEqual(echo.content.first?.text, "ran echo")
        await c.close()
    }

    func testAPredicateReadsScopesAndSession() async throws {
        // Over HTTP with verified tokens: the predicate gets the principal, its scopes and the
        // session, and decides from the scopes (admin items for a token with "admin" only).
        let probe = try await Server(name: "probe", version: "1").startHTTP()
        let port = probe.port
        try await probe.close()
        let resource = "http://127.0.0.1:\(port)/mcp"
        let auth = ProtectedResource(resource: resource, authorizationServers: ["http://as.example"]) { token in
            AuthInfo(subject: token, scopes: token == "alice" ? ["admin"] : [], audience: [resource])
        }
        let asked = Asked()
        let s = try Server(name: "authz", version: "1", options: .init(pageSize: 2))
        try s.use(AllowIf { a in
            let subject = a.request.principal?["subject"]?.stringValue ?? "-"
            let inSession = a.request.sessionId.map { a.request.sessionKey?.contains($0) == true } ?? false
            asked.add("\(a.name) \(subject) \(a.scopes) \(inSession)")
            return !a.name.hasPrefix("admin_") || a.hasScope("admin")
        })
        for name in ["admin_reset", "echo", "admin_delete", "search", "time"] {
            try s.registerTool(name, description: name) { _, _ in .text("ran \(name)") }
        }
        let http = try await s.startHTTP(port: port, auth: auth)
        for (who, tools) in [("alice", 5), ("bob", 3)] {
            let c = try await Client.http(url: http.url, headers: ["Authorization": "Bearer \(who)"])
            let names = try await c.listAllTools().map(\.name)
            XCTAssertEqual(names.count, tools, who)
            await c.close()
        }
        try await http.close()
        let seen = asked.recorded
        XCTAssertTrue(seen.contains("admin_reset alice [\"admin\"] true"), "\(seen)")
        XCTAssertTrue(seen.contains("admin_reset bob [] true"), "\(seen)")
        XCTAssertTrue(seen.allSatisfy { $0.hasSuffix(" true") }, "\(seen)")
    }

    /// allow_if_full_pages: hidden items straddle the page size (2); every page but the last is
    /// full, each `nextCursor` leads on, and the predicate is asked about the whole list once
    /// per list request.
    func testAllowIfFullPages() async throws {
        let asked = Asked()
        let s = try Server(name: "authz", version: "1", options: .init(pageSize: 2))
        try s.use(AllowIf { a in
            asked.add(a.name)
            return !a.name.hasPrefix("admin_")
        })
        for name in ["a", "admin_1", "b", "admin_2", "admin_3", "c", "d", "admin_4", "e"] {
            try s.registerTool(name, description: name) { _, _ in .text("ran \(name)") }
        }
        let c = try await Client.connect(to: s)
        var pages: [[String]] = []
        var cursors: [String?] = []
        var cursor: String?
        repeat {
            let r = try await c.listTools(cursor: cursor)
            pages.append(r.tools.map(\.name))
            cursor = r.nextCursor
            cursors.append(cursor)
        } while cursor != nil
        XCTAssertEqual(pages, [["a", "b"], ["c", "d"], ["e"]])
        XCTAssertTrue(cursors.dropLast().allSatisfy { $0 != nil })
        XCTAssertEqual(asked.count, 3 * 9)
        await c.close()
    }
}

/// The names a predicate was asked about, from the engine's threads.
private final class Asked: @unchecked Sendable {
    private let lock = NSLock()
    private var names: [String] = []

    func add(_ name: String) {
        lock.lock()
        names.append(name)
        lock.unlock()
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return names.count
    }

    var recorded: [String] {
        lock.lock()
        defer { lock.unlock() }
        return names
    }
}
