// MultiRoundTripTests: protocol revision 2026-07-28 from Swift handlers and the Swift client:
// `ctx.input` serves both eras, `McpError.inputRequired` with a state the engine seals,
// `ctx.inputResponse` / `ctx.requestState` on the retry, and a client speaking the per-request
// era (`protocolVersion: "2026-07-28"`) that answers `input_required` with its own handlers.

import FerroMCP
import Foundation
import XCTest

private typealias T = ServerTesting

/// One elicitation input request asking for a name, under `key`.
private func askName(_ key: String) -> [String: Value] {
    [key: ["method": "elicitation/create", "params": [
        "message": "name?", "requestedSchema": ["type": "object", "properties": ["name": ["type": "string"]]],
    ]]]
}

final class MultiRoundTripTests: XCTestCase {
    private func server() throws -> Server {
        let server = try Server(name: "mrtr", version: "1.0.0")
        try server.registerTool("greet") { _, ctx in
            let answers = try await ctx.input(askName("who"))
            return ToolResult(content: [.text("Hello, \(answers["who"]?["content"]?["name"]?.stringValue ?? "?")!")])
        }
        try server.registerTool("explicit") { _, ctx in
            guard let answer = ctx.inputResponse("who") else {
                throw McpError.inputRequired(askName("who"), state: ["n": 42])
            }
            let n = ctx.requestState?["n"]?.intValue ?? -1
            return ToolResult(content: [.text("\(answer["content"]?["name"]?.stringValue ?? "?") \(n)")])
        }
        return server
    }

    private func options(_ version: String?, asked: T.Box<[String]>) -> ClientOptions {
        ClientOptions(protocolVersion: version, elicitation: { params, _ in
            asked.update { $0.append(params["message"]?.stringValue ?? "") }
            return ElicitResult(action: .accept, content: ["name": "Ada"])
        })
    }

    func testInputSendsRequestsInTheHandshakeEra() async throws {
        let asked = T.Box<[String]>([])
        let client = try await Client.connect(to: try server(), options: options(nil, asked: asked))
        XCTAssertNotEqual(client.protocolVersion, "2026-07-28")
        let r = try await client.callTool("greet")
        XCTAssertEqual(r.text, "Hello, Ada!")
        XCTAssertEqual(asked.value, ["name?"])
        await client.close()
    }

    func testPerRequestClientAnswersInputRequired() async throws {
        let asked = T.Box<[String]>([])
        let client = try await Client.connect(to: try server(), options: options("2026-07-28", asked: asked))
        XCTAssertEqual(client.protocolVersion, "2026-07-28")
        let greeted = try await client.callTool("greet")
        XCTAssertEqual(greeted.text, "Hello, Ada!")
        // The handler's own state comes back through the engine's sealed requestState.
        let explicit = try await client.callTool("explicit")
        XCTAssertEqual(explicit.text, "Ada 42")
        XCTAssertEqual(asked.value, ["name?", "name?"])
        await client.close()
    }

    func testInputRequiredCarriesItsRequestsAndState() {
        let error = McpError.inputRequired(askName("k"), state: [1, 2])
        XCTAssertEqual(error.code, McpError.Code.inputRequired.rawValue)
        XCTAssertEqual(error.data?["inputRequests"]?["k"]?["method"], "elicitation/create")
        XCTAssertEqual(error.data?["state"], [1, 2])
        XCTAssertEqual(McpError.Code.missingRequiredClientCapability.rawValue, -32021)
        XCTAssertEqual(McpError.Code.headerMismatch.rawValue, -32020)
        XCTAssertEqual(McpError.Code.unsupportedProtocolVersion.rawValue, -32022)
    }
}
