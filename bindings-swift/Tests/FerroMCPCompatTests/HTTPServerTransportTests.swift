// The swift-sdk's server transports for HTTP frameworks (StatefulHTTPServerTransport,
// StatelessHTTPServerTransport: `handleRequest(HTTPRequest) -> HTTPResponse`), as a Vapor or
// Hummingbird route would call them, served by the engine's request-level handler.

import FerroMCPCompat
import Foundation
import XCTest

final class HTTPServerTransportTests: XCTestCase {
    private let headers = [
        "Host": "localhost:8080", "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
    ]

    private func greeter() async -> Server {
        let server = Server(name: "greeter", version: "1.0.0", capabilities: .init(tools: .init()))
        await server.withMethodHandler(ListTools.self) { _ in
            .init(tools: [Tool(name: "hi", description: "Says hi", inputSchema: ["type": "object"])])
        }
        await server.withMethodHandler(CallTool.self) { params in
            .init(content: [.text("hi \(params.arguments?["name"]?.stringValue ?? "")")], isError: false)
        }
        return server
    }

    private func rpc(_ id: Int, _ method: String, _ params: Value) -> Data {
        Data(Value.object(["jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": params]).description.utf8)
    }

    private let initialize: Value = [
        "protocolVersion": "2025-11-25", "capabilities": [:], "clientInfo": ["name": "route", "version": "1"],
    ]

    /// The JSON-RPC message an answer carries (its body, or the last `data:` of its stream).
    private func message(_ response: HTTPResponse) async throws -> [String: Value] {
        var body = response.bodyData ?? Data()
        if case .stream(let stream, _) = response {
            for try await chunk in stream { body.append(chunk) }
        }
        let text = String(decoding: body, as: UTF8.self)
        let json = text.split(separator: "\n").filter { $0.hasPrefix("data:") }
            .map { $0.dropFirst(5).trimmingCharacters(in: .whitespaces) }.last { !$0.isEmpty } ?? text
        return try JSONDecoder().decode(Value.self, from: Data(json.utf8)).objectValue ?? [:]
    }

    func testStatefulTransportServesASessionThroughHandleRequest() async throws {
        let server = await greeter()
        let transport = StatefulHTTPServerTransport()
        let early = await transport.handleRequest(HTTPRequest(method: "POST", headers: headers, body: rpc(1, "initialize", initialize)))
        XCTAssertEqual(early.statusCode, 503, "not started yet")
        try await server.start(transport: transport)

        let opened = await transport.handleRequest(HTTPRequest(method: "POST", headers: headers, body: rpc(1, "initialize", initialize)))
        XCTAssertEqual(opened.statusCode, 200)
        let session = try XCTUnwrap(opened.headers.first { $0.key.lowercased() == "mcp-session-id" }?.value)
        let hello = try await message(opened)
        XCTAssertEqual(hello["result"]?.objectValue?["serverInfo"]?.objectValue?["name"], "greeter")

        var inSession = headers
        inSession["Mcp-Session-Id"] = session
        inSession["MCP-Protocol-Version"] = "2025-11-25"
        let ack = await transport.handleRequest(HTTPRequest(
            method: "POST", headers: inSession, body: Data(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.utf8)))
        XCTAssertEqual(ack.statusCode, 202)
        guard case .accepted = ack else { return XCTFail("\(ack)") }

        let called = await transport.handleRequest(HTTPRequest(
            method: "POST", headers: inSession, body: rpc(2, "tools/call", ["name": "hi", "arguments": ["name": "route"]])))
        let answer = try await message(called)
        let text = answer["result"]?.objectValue?["content"]?.arrayValue?.first?.objectValue?["text"]
        XCTAssertEqual(text, "hi route")

        let closed = await transport.handleRequest(HTTPRequest(method: "DELETE", headers: inSession, path: "/mcp"))
        XCTAssertEqual(closed.statusCode, 200)
    }

    func testStatelessTransportAnswersEachPostWithJSON() async throws {
        let server = await greeter()
        let transport = StatelessHTTPServerTransport()
        try await server.start(transport: transport)
        let opened = await transport.handleRequest(HTTPRequest(method: "POST", headers: headers, body: rpc(1, "initialize", initialize)))
        guard case .data = opened else { return XCTFail("\(opened)") }
        let called = await transport.handleRequest(HTTPRequest(
            method: "POST", headers: headers.merging(["MCP-Protocol-Version": "2025-11-25"]) { _, new in new },
            body: rpc(2, "tools/call", ["name": "hi", "arguments": ["name": "again"]])))
        let answer = try await message(called)
        XCTAssertEqual(answer["result"]?.objectValue?["content"]?.arrayValue?.first?.objectValue?["text"], "hi again")
        let elsewhere = await transport.handleRequest(HTTPRequest(method: "POST", headers: headers,
                                                                  body: rpc(3, "ping", [:]), path: "/other"))
        XCTAssertEqual(elsewhere.statusCode, 404)
    }
}
