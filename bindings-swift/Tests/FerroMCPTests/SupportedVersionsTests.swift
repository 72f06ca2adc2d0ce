// SupportedVersionsTests (issue 14): `ServerOptions(supportedVersions:)`, the protocol revisions
// a server speaks, as Python's Server(supported_versions=...) and Node's supportedVersions. A
// server of 2026-07-28 only refuses initialize with -32022 (HTTP 400) naming what it speaks and
// still serves per-request calls; a server without 2026-07-28 refuses a per-request request with
// -32022 (2026-07-28, versioning) and still serves handshake clients; a bad list throws. The
// requests are sent raw over Streamable HTTP, as each era's client sends them.

@testable import FerroMCP
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

private let known = #""2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28""#

final class SupportedVersionsTests: XCTestCase {
    private func server(_ versions: [String]) throws -> Server {
        let s = try Server(name: "versions", version: "1.0.0", options: .init(supportedVersions: versions))
        try s.registerTool("echo", inputSchema: ["type": "object"]) { args, _ in
            .text("echo: \(args["text"]?.stringValue ?? "?")")
        }
        return s
    }

    /// One POST (with the request metadata headers when `version` is set); the HTTP status and
    /// the JSON-RPC answer (JSON body or last SSE message).
    private func post(_ url: String, _ body: Value, version: String?) async throws -> (Int, Value) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "POST"
        request.httpBody = Data(body.jsonText.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json, text/event-stream", forHTTPHeaderField: "Accept")
        if let version {
            request.setValue(version, forHTTPHeaderField: "MCP-Protocol-Version")
            request.setValue(body["method"]?.stringValue, forHTTPHeaderField: "Mcp-Method")
            if let name = body["params"]?["name"]?.stringValue {
                request.setValue(name, forHTTPHeaderField: "Mcp-Name")
            }
        }
        let (data, status): (Data, Int) = try await withCheckedThrowingContinuation { k in
            URLSession.shared.dataTask(with: request) { data, response, error in
                if let error { return k.resume(throwing: error) }
                k.resume(returning: (data ?? Data(), (response as? HTTPURLResponse)?.statusCode ?? 0))
            }.resume()
        }
        let text = String(decoding: data, as: UTF8.self)
        let json = text.split(separator: "\n").filter { $0.hasPrefix("data:") }
            .map { $0.dropFirst(5).trimmingCharacters(in: .whitespaces) }.last(where: { !$0.isEmpty })
            ?? text
        return (status, try Value(json: json))
    }

    private func initialize(_ asked: String) -> Value {
        ["jsonrpc": "2.0", "id": 1, "method": "initialize", "params": [
            "protocolVersion": .string(asked), "capabilities": [:],
            "clientInfo": ["name": "swift-test", "version": "1.0"],
        ]]
    }

    private func perRequest(_ method: String, _ params: [String: Value] = [:]) -> Value {
        var p = params
        p["_meta"] = [
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": [:],
            "io.modelcontextprotocol/clientInfo": ["name": "swift-test", "version": "1.0"],
        ]
        return ["jsonrpc": "2.0", "id": 2, "method": .string(method), "params": .object(p)]
    }

    private var echo: Value { perRequest("tools/call", ["name": "echo", "arguments": ["text": "hi"]]) }

    func testPerRequestOnlyRefusesInitializeAndServesPerRequestCalls() async throws {
        let http = try await server(["2026-07-28"]).startHTTP()
        for asked in ["2025-11-25", "2024-11-05"] {
            let (status, answer) = try await post(http.url, initialize(asked), version: nil)
            XCTAssertEqual(status, 400, "\(answer)")
            XCTAssertEqual(answer["error"]?["code"]?.intValue, -32022, "\(answer)")
            XCTAssertEqual(answer["error"]?["data"], ["supported": ["2026-07-28"], "requested": .string(asked)])
        }
        var (status, answer) = try await post(http.url, perRequest("server/discover"), version: "2026-07-28")
        XCTAssertEqual(status, 200, "\(answer)")
        XCTAssertEqual(answer["result"]?["supportedVersions"], ["2026-07-28"])
        (status, answer) = try await post(http.url, echo, version: "2026-07-28")
        XCTAssertEqual(status, 200, "\(answer)")
        XCTAssertEqual(answer["result"]?["content"], [["type": "text", "text": "echo: hi"]])
        try await http.close()
    }

    func testWithout20260728PerRequestCallsAreRefusedAndHandshakesServed() async throws {
        let http = try await server(["2025-11-25", "2025-06-18"]).startHTTP()
        for request in [echo, perRequest("server/discover")] {
            let (status, answer) = try await post(http.url, request, version: "2026-07-28")
            XCTAssertEqual(status, 400, "\(answer)")
            XCTAssertEqual(answer["id"]?.intValue, 2)
            XCTAssertEqual(answer["error"]?["code"]?.intValue, -32022, "\(answer)")
            XCTAssertEqual(answer["error"]?["data"], ["supported": ["2025-11-25", "2025-06-18"], "requested": "2026-07-28"])
        }
        let (status, answer) = try await post(http.url, initialize("2025-11-25"), version: nil)
        XCTAssertEqual(status, 200, "\(answer)")
        XCTAssertEqual(answer["result"]?["protocolVersion"]?.stringValue, "2025-11-25")
        let client = try await Client.http(url: http.url)
        let result = try await client.callTool("echo", arguments: ["text": "hi"])
        XCTAssertEqual(result.text, "echo: hi")
        await client.close()
        try await http.close()
    }

    func testAnEmptyListOrAnUnknownRevisionThrows() {
        XCTAssertThrowsError(try server(["2025-11-25", "2026-01-01"])) {
            XCTAssertTrue("\($0)".contains(#"unknown protocol revision "2026-01-01" (known: \#(known))"#), "\($0)")
        }
        XCTAssertThrowsError(try server([])) {
            XCTAssertTrue("\($0)".contains("supportedVersions must name at least one revision (known: \(known))"), "\($0)")
        }
    }
}
