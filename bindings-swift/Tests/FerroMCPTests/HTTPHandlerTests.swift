// HTTPHandlerTests: Server.httpHandler(), the framework-neutral Streamable HTTP entry point a
// Vapor or Hummingbird route calls (method, target, headers, body in; status, headers and a
// chunked body out), driven here as such a route would drive it: a whole session (initialize,
// a call, the GET SSE stream receiving a notification, DELETE), the JSON response mode, and
// what the endpoint refuses.

import FerroMCP
import Foundation
import XCTest

final class HTTPHandlerTests: XCTestCase {
    // A framework hands over the request's headers as received, Host included (the endpoint's
    // DNS-rebinding protection answers 403 without an allowed one).
    private let host = HTTPHeader(name: "Host", value: "127.0.0.1:8080")
    private let json = HTTPHeader(name: "Content-Type", value: "application/json")
    private let accept = HTTPHeader(name: "Accept", value: "application/json, text/event-stream")

    private func server() throws -> Server {
        let s = try Server(name: "mounted", version: "2.0.0")
        try s.registerTool("echo", inputSchema: ["type": "object", "properties": ["text": ["type": "string"]]]) { args, _ in
            .text(args["text"]?.stringValue ?? "")
        }
        return s
    }

    private func rpc(_ id: Int, _ method: String, _ params: Value = [:]) -> Data {
        Data(Value.object(["jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": params]).jsonText.utf8)
    }

    /// The JSON-RPC message of a body: the last `data:` line of an SSE body, or the JSON body.
    private func message(_ body: Data) throws -> Value {
        let text = String(decoding: body, as: UTF8.self)
        let data = text.split(separator: "\n").filter { $0.hasPrefix("data:") }
            .map { $0.dropFirst(5).trimmingCharacters(in: .whitespaces) }.last { !$0.isEmpty }
        return try Value(json: data ?? text)
    }

    private let initialize: Value = [
        "protocolVersion": "2025-11-25", "capabilities": [:], "clientInfo": ["name": "route", "version": "1"],
    ]

    func testASessionRunsThroughTheNeutralHandlerWithItsSSEStream() async throws {
        let server = try server()
        let handler = try server.httpHandler()

        let opened = try await handler.handle(method: "POST", target: "/mcp", headers: [host, json, accept],
                                              body: rpc(1, "initialize", initialize))
        XCTAssertEqual(opened.status, 200)
        let session = try XCTUnwrap(opened.header("mcp-session-id"))
        let hello = try message(try await opened.collect())
        XCTAssertEqual(hello["result"]?["serverInfo"]?["name"], "mounted")
        let sid = HTTPHeader(name: "Mcp-Session-Id", value: session)
        let version = HTTPHeader(name: "MCP-Protocol-Version", value: "2025-11-25")

        let initialized = Data(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.utf8)
        let ack = try await handler.handle(method: "POST", target: "/mcp", headers: [host, json, accept, sid, version],
                                           body: initialized)
        XCTAssertEqual(ack.status, 202)
        let ackBody = try await ack.collect()
        XCTAssertEqual(ackBody, Data())

        let called = try await handler.handle(method: "POST", target: "/mcp", headers: [host, json, accept, sid, version],
                                              body: rpc(2, "tools/call", ["name": "echo", "arguments": ["text": "through a route"]]))
        XCTAssertEqual(called.status, 200)
        let answer = try message(try await called.collect())
        XCTAssertEqual(answer["id"], 2)
        XCTAssertEqual(answer["result"]?["content"]?[0]?["text"], "through a route")

        // The GET stream stays open and carries what the server sends later.
        let stream = try await handler.handle(method: "GET", target: "/mcp",
                                              headers: [host, HTTPHeader(name: "Accept", value: "text/event-stream"), sid, version],
                                              body: Data())
        XCTAssertEqual(stream.status, 200)
        XCTAssertTrue(stream.isEventStream, "\(stream.headers)")
        try server.registerTool("late") { _, _ in "late" }
        var seen = ""
        let reader = Task {
            var text = ""
            for try await chunk in stream.body {
                text += String(decoding: chunk, as: UTF8.self)
                if text.contains("notifications/tools/list_changed") { break }
            }
            return text
        }
        let timeout = Task { try await Task.sleep(for: .seconds(10)); reader.cancel(); stream.cancel() }
        seen = try await reader.value
        timeout.cancel()
        XCTAssertTrue(seen.contains("notifications/tools/list_changed"), seen)
        // The framework's client went away: the stream ends.
        stream.cancel()
        let afterCancel = try await stream.nextChunk()
        XCTAssertNil(afterCancel)

        let closed = try await handler.handle(method: "DELETE", target: "/mcp", headers: [host, sid, version], body: Data())
        XCTAssertEqual(closed.status, 200)
        let gone = try await handler.handle(method: "POST", target: "/mcp", headers: [host, json, accept, sid, version],
                                            body: rpc(3, "ping"))
        XCTAssertEqual(gone.status, 404, "a deleted session is unknown")
    }

    func testJSONResponsesAndWhatTheEndpointRefuses() async throws {
        let handler = try server().httpHandler(options: HTTPOptions(path: "/tools/mcp", jsonResponse: true, maxBodySize: 2048))
        let opened = try await handler.handle(method: "POST", target: "/tools/mcp", headers: [host, json, accept],
                                              body: rpc(1, "initialize", initialize))
        XCTAssertEqual(opened.status, 200)
        XCTAssertFalse(opened.isEventStream)
        XCTAssertEqual(opened.header("content-type")?.hasPrefix("application/json"), true)
        let openedBody = try await opened.collect()
        XCTAssertEqual(try message(openedBody)["result"]?["serverInfo"]?["version"], "2.0.0")

        let elsewhere = try await handler.handle(method: "POST", target: "/mcp", headers: [host, json, accept],
                                                 body: rpc(1, "initialize", initialize))
        XCTAssertEqual(elsewhere.status, 404)
        let big = try await handler.handle(method: "POST", target: "/tools/mcp", headers: [host, json, accept],
                                           body: rpc(1, "initialize", ["pad": .string(String(repeating: "x", count: 4096))]))
        XCTAssertEqual(big.status, 413)
        let noSession = try await handler.handle(method: "POST", target: "/tools/mcp", headers: [host, json, accept],
                                                 body: rpc(2, "tools/list"))
        XCTAssertEqual(noSession.status, 400, "a request without a session before initialize")
        let put = try await handler.handle(method: "PUT", target: "/tools/mcp", headers: [host, json], body: Data())
        XCTAssertEqual(put.status, 405)
        do {
            _ = try await handler.handle(method: "GE T", target: "/tools/mcp", headers: [host], body: Data())
            XCTFail("a method that is not HTTP was accepted")
        } catch let e as McpError {
            XCTAssertEqual(e.code, McpError.Code.invalidParams.rawValue, "\(e)")
        }
    }
}

extension HTTPHandlerTests {
    /// Without an allowed Host (a name other than loopback's, not in `allowedHosts`), 403; with
    /// it listed, served.
    func testTheHostHeaderIsCheckedAsTheEngineChecksIt() async throws {
        let strict = try server().httpHandler()
        let foreign = HTTPHeader(name: "Host", value: "mcp.example.com")
        let refused = try await strict.handle(method: "POST", target: "/mcp", headers: [foreign, json, accept],
                                              body: rpc(1, "initialize", initialize))
        XCTAssertEqual(refused.status, 403)
        let listed = try server().httpHandler(options: HTTPOptions(allowedHosts: ["mcp.example.com"]))
        let served = try await listed.handle(method: "POST", target: "/mcp", headers: [foreign, json, accept],
                                             body: rpc(1, "initialize", initialize))
        XCTAssertEqual(served.status, 200)
    }
}
