// Which errors are the engine's own: a server's answer keeps its code and is never a transport
// error, even with code -32000; a connection that closed is one.

import FerroMCP
import XCTest

final class ErrorKindTests: XCTestCase {
    func testAServersOwnMinus32000IsAnMcpErrorNotAClosedConnection() async throws {
        let server = try Server(name: "mem", version: "1")
        try server.registerPrompt("refuses") { _, _ in
            throw McpError(code: -32000, message: "the server says no", data: ["why": "busy"])
        }
        try server.registerTool("noop") { _, _ in "ok" }
        let client = try await Client.connect(to: server)
        do {
            _ = try await client.getPrompt("refuses")
            XCTFail("the prompt must fail")
        } catch let e as McpError {
            XCTAssertEqual(e.code, -32000)
            XCTAssertEqual(e.message, "the server says no")
            XCTAssertEqual(e.data, ["why": "busy"])
            XCTAssertFalse(e.isTransportError, "a peer's answer, not a closed connection: \(e)")
        }
        await client.close()
        do {
            _ = try await client.callTool("noop")
            XCTFail("a closed client must not answer")
        } catch let e as McpError {
            XCTAssertEqual(e.code, McpError.Code.connectionClosed.rawValue)
            XCTAssertTrue(e.isTransportError, "\(e)")
        }
    }
}
