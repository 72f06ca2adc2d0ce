// LimitsTests (issue 16): the engine's limits as the facade's options, as Node's listen() /
// McpServer / Client and Python's serve_http / Server / Client take them: the HTTP server's
// connection limits (HTTPOptions), the server's maxMessageSize (a request over it is answered
// with an error carrying its id, and the session goes on) and the client's (a response over it
// fails that one call).

import Foundation
import XCTest
@testable import FerroMCP

final class LimitsTests: XCTestCase {
    private static let textSchema: Value = [
        "type": "object", "properties": ["text": ["type": "string"]], "required": ["text"],
    ]

    /// A server with `echo` (its text back) and `big` (n bytes of "x").
    private func limitsServer(_ options: ServerOptions = .init()) throws -> Server {
        let server = try Server(name: "limits", version: "1.0.0", options: options)
        try server.registerTool("echo", inputSchema: Self.textSchema) { args, _ in
            .text(args["text"]?.stringValue ?? "")
        }
        try server.registerTool(
            "big", inputSchema: ["type": "object", "properties": ["n": ["type": "integer"]], "required": ["n"]]
        ) { args, _ in
            .text(String(repeating: "x", count: args["n"]?.intValue ?? 0))
        }
        return server
    }

    /// Calls `echo` with `size` bytes of text and expects the server's refusal: invalid
    /// request, the limit named in its data. The client matched the error to its call, so the
    /// error carried the request's id.
    private func assertRefused(_ client: Client, size: Int, limit: Int,
                               file: StaticString = #filePath, line: UInt = #line) async {
        do {
            let r = try await client.callTool("echo", arguments: ["text": .string(String(repeating: "t", count: size))])
            XCTFail("a request over the limit was answered: \(r.text.prefix(20))", file: file, line: line)
        } catch let error as McpError {
            XCTAssertEqual(error.code, McpError.Code.invalidRequest.rawValue, "\(error)", file: file, line: line)
            let data = error.data?.jsonText ?? ""
            XCTAssertTrue(data.contains("exceeds the limit of \(limit) bytes"), data, file: file, line: line)
        } catch {
            XCTFail("unexpected error \(error)", file: file, line: line)
        }
    }

    func testARequestOverTheServerLimitIsRefusedWithItsIdAndTheSessionGoesOn() async throws {
        let server = try limitsServer(.init(maxMessageSize: 1024))
        let client = try await Client.connect(to: server)
        await assertRefused(client, size: 4000, limit: 1024)
        let ok = try await client.callTool("echo", arguments: ["text": "ok"])
        XCTAssertEqual(ok.text, "ok")
        // Just under the limit still passes (the whole message counts, so leave room).
        let near = try await client.callTool("echo", arguments: ["text": .string(String(repeating: "n", count: 900))])
        XCTAssertEqual(near.text.count, 900)
        await client.close()
    }

    func testOverStreamableHTTPTheBodyLimitRefusesARequestAndTheSessionGoesOn() async throws {
        // Over Streamable HTTP a request is a POST body: maxBodySize bounds it (413).
        let server = try limitsServer()
        let http = try await server.startHTTP(options: HTTPOptions(maxBodySize: 2048))
        addTeardownBlock { try? await http.close() }
        let client = try await Client.http(url: http.url)
        do {
            let r = try await client.callTool("echo", arguments: ["text": .string(String(repeating: "t", count: 5000))])
            XCTFail("a body over maxBodySize was answered: \(r.text.prefix(20))")
        } catch let error as McpError {
            let said = "\(error.message) \(error.data?.jsonText ?? "")"
            XCTAssertTrue(said.contains("exceeds 2048 bytes"), "\(error)")
        }
        let ok = try await client.callTool("echo", arguments: ["text": "still here"])
        XCTAssertEqual(ok.text, "still here")
        await client.close()
    }

    func testAResponseOverTheClientLimitFailsThatCall() async throws {
        let server = try limitsServer()
        let http = try await server.startHTTP()
        addTeardownBlock { try? await http.close() }
        let client = try await Client.http(url: http.url, options: .init(maxMessageSize: 2048))
        do {
            _ = try await client.callTool("big", arguments: ["n": 10_000])
            XCTFail("a response over the client's limit was accepted")
        } catch let error as McpError {
            XCTAssertTrue("\(error.message) \(error.data?.jsonText ?? "")".contains("exceeds the limit"), "\(error)")
        }
        let small = try await client.callTool("big", arguments: ["n": 3])
        XCTAssertEqual(small.text, "xxx")
        await client.close()
    }

    func testConnectionLimitsAreHTTPOptions() async throws {
        let options = HTTPOptions(
            maxConnections: 8, maxHeadSize: 2048, headerReadTimeout: .seconds(2),
            requestTimeout: .seconds(5), keepAliveTimeout: .seconds(30), writeTimeout: .seconds(5),
            maxBufferedBytes: 1 << 20)
        XCTAssertEqual(options.value, [
            "path": "/mcp", "maxConnections": 8, "maxHeadSize": 2048, "headerReadTimeoutMs": 2000,
            "requestTimeoutMs": 5000, "keepAliveTimeoutMs": 30000, "writeTimeoutMs": 5000,
            "maxBufferedBytes": 1_048_576,
        ])
        let server = try limitsServer()
        let http = try await server.startHTTP(options: options)
        addTeardownBlock { try? await http.close() }
        let client = try await Client.http(url: http.url)
        let r = try await client.callTool("big", arguments: ["n": 2])
        XCTAssertEqual(r.text, "xx")
        await client.close()
        // A head over maxHeadSize is refused (431): this client cannot connect.
        do {
            let refused = try await Client.http(url: http.url, headers: ["X-Big": String(repeating: "a", count: 4096)],
                                                legacyFallback: false)
            await refused.close()
            XCTFail("a request head over maxHeadSize was accepted")
        } catch let error as McpError {
            XCTAssertTrue(error.message.contains("431"), "\(error)")
        }
    }

    func testABadLimitIsRefusedByTheEngine() async throws {
        let server = try limitsServer()
        do {
            let http = try await server.startHTTP(options: HTTPOptions(maxHeadSize: -1))
            try? await http.close()
            XCTFail("a negative maxHeadSize was accepted")
        } catch let error as McpError {
            XCTAssertEqual(error.code, McpError.Code.invalidParams.rawValue, "\(error)")
        }
    }
}
