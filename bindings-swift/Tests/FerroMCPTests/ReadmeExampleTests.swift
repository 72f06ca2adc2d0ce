// ReadmeExampleTests: the server and client of bindings-swift/README.md, word for word, so the
// README cannot drift from the API: they compile here and run against each other in memory.

import FerroMCP
import Foundation
import XCTest

// --- README: server ---
struct AddNumbers: Decodable, Sendable {
    let a: Double
    let b: Double
}

func makeCalculator() throws -> Server {
    let server = try Server(name: "calculator", version: "1.0.0")
    try server.registerTool(
        "add", description: "Adds two numbers",
        inputSchema: [
            "type": "object",
            "properties": ["a": ["type": "number"], "b": ["type": "number"]],
            "required": ["a", "b"],
        ],
        arguments: AddNumbers.self
    ) { args, ctx in
        try await ctx.reportProgress(1, total: 1)
        return .text("\(args.a + args.b)")
    }
    try server.registerResource("calc://about", name: "about", mimeType: "text/plain") { _, _ in
        "A calculator served by FerroMCP"
    }
    try server.registerPrompt("explain", arguments: [PromptArgument("expression", required: true)]) { args, _ in
        PromptResult(.user("Explain step by step: \(args["expression"] ?? "")"))
    }
    return server
}
// try await makeCalculator().serveStdio()      // or: try await server.serveHTTP(port: 3000)
// --- end ---

// --- README: client ---
func useCalculator(_ client: Client) async throws -> String {
    let tools = try await client.listAllTools()
    precondition(tools.contains { $0.name == "add" })
    let sum = try await client.callTool("add", arguments: ["a": 2, "b": 0.5])
    let about = try await client.readResource("calc://about")
    return "\(sum.text) / \(about.first?.text ?? "")"
}
// let client = try await Client.stdio(command: "/path/to/calculator")
// let client = try await Client.http(url: "http://127.0.0.1:3000/mcp")
// print(try await useCalculator(client)); await client.close()
// --- end ---

final class ReadmeExampleTests: XCTestCase {
    func testTheReadmeServerAndClientWorkTogether() async throws {
        let client = try await Client.connect(to: try makeCalculator())
        let answer = try await useCalculator(client)
        XCTAssertEqual(answer, "2.5 / A calculator served by FerroMCP")
        let prompt = try await client.getPrompt("explain", arguments: ["expression": "1+1"])
        XCTAssertEqual(prompt.messages.first?.content.text, "Explain step by step: 1+1")
        await client.close()
    }
}
