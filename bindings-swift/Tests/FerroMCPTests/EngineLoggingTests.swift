// EngineLoggingTests: the engine's log events reach Swift (issue 37 point 2) through
// `EngineLog.setHandler`: the `.requestLog` layer's record per request and the detail
// `.maskErrors` hid. Scenario names as in bindings-python/tests/test_engine_logging.py and
// bindings-node/test/engine_logging.test.mjs (in camelCase, after `test`).

import FerroMCP
import Foundation
import XCTest

private typealias T = ServerTesting

private struct DatabaseDown: Error, CustomStringConvertible {
    var description: String { "password authentication failed for user \"app\"" }
}

/// A server with a tool `echo`, a resource `db://orders` whose handler fails, and `layers`.
private func loggedServer(_ layers: BuiltinMiddleware...) throws -> Server {
    let server = try Server(name: "logged", version: "1.0.0")
    try server.registerTool("echo") { args, _ in .text(args["text"]?.stringValue ?? "echoed") }
    try server.registerResource("db://orders", name: "orders") { _, _ in throw DatabaseDown() }
    for layer in layers { try server.use(layer) }
    return server
}

/// Waits (at most 5 s) for a record matching `match` among those `records` collected.
private func waitFor(_ records: T.Box<[EngineLog.Record]>,
                     _ match: @escaping @Sendable (EngineLog.Record) -> Bool) async throws -> EngineLog.Record {
    try await T.deadline(5, "the engine's log record") {
        while true {
            if let r = records.value.first(where: match) { return r }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

final class EngineLoggingTests: XCTestCase {
    private let records = T.Box<[EngineLog.Record]>([])

    override func setUp() {
        super.setUp()
        let records = records
        XCTAssertTrue(EngineLog.setHandler(level: .info) { r in records.update { $0.append(r) } })
    }

    override func tearDown() {
        EngineLog.setHandler(level: .info, nil)
        super.tearDown()
    }

    func testRequestLogReachesTheHostLogger() async throws {
        let server = try loggedServer(.requestLog)
        let client = try await Client.connect(to: server)
        _ = try await client.callTool("echo", arguments: ["text": "hi"])
        let r = try await waitFor(records) { $0.fields["method"]?.stringValue == "tools/call" }
        await client.close()
        XCTAssertEqual(r.level, .info)
        XCTAssertEqual(r.logger, "ferromcp.request")
        XCTAssertEqual(r.target, "ferromcp::request")
        XCTAssertEqual(r.fields["tool"]?.stringValue, "echo")
        XCTAssertEqual(r.fields["outcome"]?.stringValue, "ok")
        let duration = try XCTUnwrap(r.fields["duration_us"]?.intValue)
        XCTAssertGreaterThanOrEqual(duration, 0)
        XCTAssertTrue(r.line.hasPrefix("request method=tools/call tool=echo "), r.line)
    }

    func testMaskedErrorDetailIsLoggedServerSide() async throws {
        let server = try loggedServer(.maskErrors)
        let client = try await Client.connect(to: server)
        let masked = await T.mcpError { _ = try await client.readResource("db://orders") }
        XCTAssertEqual(masked?.code, McpError.Code.internalError.rawValue)
        XCTAssertEqual(masked?.message, "Internal error")
        XCTAssertNil(masked?.data)
        let r = try await waitFor(records) { $0.logger == "ferromcp.masked" }
        await client.close()
        XCTAssertEqual(r.level, .error)
        XCTAssertEqual(r.fields["method"]?.stringValue, "resources/read")
        XCTAssertEqual(r.fields["code"]?.intValue, McpError.Code.internalError.rawValue)
        let detail = try XCTUnwrap(r.fields["detail"]?.stringValue)
        XCTAssertTrue(detail.contains("password authentication failed"), detail)
    }

    func testTheLevelIsChanged() {
        EngineLog.level = .warn
        XCTAssertEqual(EngineLog.level, .warn)
        EngineLog.level = .off
        XCTAssertEqual(EngineLog.level, .off)
        EngineLog.level = .info
        XCTAssertEqual(EngineLog.level, .info)
    }
}
