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
}
