// KeepAliveCompressionTests: `HTTPOptions(sseKeepAlive:omitSSEKeepAlive:)` and
// `HTTPOptions(compression:)`. Their keys, then their effect through the framework-neutral
// handler (Server.httpHandler(), the engine's Streamable HTTP endpoint without a socket): an
// idle GET stream gets `: keep-alive` comments on schedule and none when they are off (the
// scenarios of core/tests/integration/http_sse_keep_alive.rs); a large answer is gzip-encoded
// when the request's Accept-Encoding allows it, and sent as it is with compression off.

@testable import FerroMCP
import Foundation
import XCTest

final class KeepAliveCompressionTests: XCTestCase {
    private let host = HTTPHeader(name: "Host", value: "127.0.0.1:8080")
    private let json = HTTPHeader(name: "Content-Type", value: "application/json")
    private let accept = HTTPHeader(name: "Accept", value: "application/json, text/event-stream")
    private let version = HTTPHeader(name: "MCP-Protocol-Version", value: "2025-11-25")
    private let comment = ": keep-alive\n\n"

    private func server() throws -> Server {
        let s = try Server(name: "keep-alive", version: "1.0.0")
        try s.registerTool("big", inputSchema: ["type": "object", "properties": ["n": ["type": "integer"]]]) { args, _ in
            .text(String(repeating: "compressible ", count: args["n"]?.intValue ?? 1))
        }
        return s
    }

    private func rpc(_ id: Int, _ method: String, _ params: Value = [:]) -> Data {
        Data(Value.object(["jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": params]).jsonText.utf8)
    }

    /// Initializes a session through `handler` and returns its id header.
    private func session(_ handler: HTTPHandler) async throws -> HTTPHeader {
        let initialize: Value = [
            "protocolVersion": "2025-11-25", "capabilities": [:], "clientInfo": ["name": "route", "version": "1"],
        ]
        let opened = try await handler.handle(method: "POST", target: "/mcp", headers: [host, json, accept],
                                              body: rpc(1, "initialize", initialize))
        XCTAssertEqual(opened.status, 200)
        let sid = HTTPHeader(name: "Mcp-Session-Id", value: try XCTUnwrap(opened.header("mcp-session-id")))
        _ = try await opened.collect()
        let ack = try await handler.handle(method: "POST", target: "/mcp", headers: [host, json, accept, sid, version],
                                           body: Data(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.utf8))
        XCTAssertEqual(ack.status, 202)
        _ = try await ack.collect()
        return sid
    }

    /// What the session's GET stream carries for `time`.
    private func readGetStream(_ handler: HTTPHandler, _ sid: HTTPHeader, for time: Duration) async throws -> String {
        let stream = try await handler.handle(method: "GET", target: "/mcp",
                                              headers: [host, HTTPHeader(name: "Accept", value: "text/event-stream"), sid, version],
                                              body: Data())
        XCTAssertEqual(stream.status, 200)
        let reader = Task {
            var text = ""
            do {
                for try await chunk in stream.body { text += String(decoding: chunk, as: UTF8.self) }
            } catch {}
            return text
        }
        try await Task.sleep(for: time)
        stream.cancel()
        return await reader.value
    }

    func testKeepAliveAndCompressionBecomeTheEnginesKeys() {
        XCTAssertEqual(HTTPOptions(sseKeepAlive: .milliseconds(250)).value["sseKeepAliveMs"], 250)
        XCTAssertEqual(HTTPOptions(sseKeepAlive: .seconds(5), omitSSEKeepAlive: true).value["sseKeepAliveMs"], .null)
        XCTAssertNil(HTTPOptions().value["sseKeepAliveMs"])
        XCTAssertEqual(HTTPOptions(compression: .off).value["compression"], false)
        XCTAssertEqual(HTTPOptions(compression: CompressionOptions()).value["compression"], [:])
        XCTAssertEqual(HTTPOptions(compression: CompressionOptions(codings: [.zstd, .gzip], minSize: 10,
                                                                   level: .smallest, streams: false)).value["compression"],
                       ["codings": ["zstd", "gzip"], "minSize": 10, "level": "smallest", "streams": false])
        XCTAssertNil(HTTPOptions().value["compression"])
    }

    func testAnIdleGETStreamGetsKeepAliveCommentsOnSchedule() async throws {
        let handler = try server().httpHandler(options: HTTPOptions(sseKeepAlive: .milliseconds(100)))
        let text = try await readGetStream(handler, try await session(handler), for: .milliseconds(550))
        let comments = text.components(separatedBy: comment).count - 1
        XCTAssertTrue((3...6).contains(comments), "\(comments) comments in \(text.debugDescription)")
    }

    func testKeepAliveCommentsCanBeTurnedOff() async throws {
        let handler = try server().httpHandler(options: HTTPOptions(sseKeepAlive: .milliseconds(100), omitSSEKeepAlive: true))
        let text = try await readGetStream(handler, try await session(handler), for: .milliseconds(400))
        XCTAssertFalse(text.contains("keep-alive"), text.debugDescription)
    }

    /// One `tools/call` of `big` answered as JSON: the response's Content-Encoding and body.
    private func callBig(_ compression: CompressionOptions?) async throws -> (String?, Data) {
        let handler = try server().httpHandler(options: HTTPOptions(jsonResponse: true, stateless: true, compression: compression))
        let answer = try await handler.handle(
            method: "POST", target: "/mcp",
            headers: [host, json, accept, version, HTTPHeader(name: "Accept-Encoding", value: "gzip")],
            body: rpc(2, "tools/call", ["name": "big", "arguments": ["n": 2000]]))
        XCTAssertEqual(answer.status, 200)
        return (answer.header("content-encoding"), try await answer.collect())
    }

    func testALargeAnswerIsCompressedUnlessCompressionIsOff() async throws {
        // The default (on) and options of one's own: gzip, as the request allows.
        for options in [nil, CompressionOptions(codings: [.gzip], minSize: 1, level: .fastest)] {
            let (coding, body) = try await callBig(options)
            XCTAssertEqual(coding, "gzip")
            XCTAssertEqual(Array(body.prefix(2)), [0x1f, 0x8b], "a gzip member")
            XCTAssertLessThan(body.count, 2000, "26,000 bytes of text encoded in \(body.count)")
        }
        // Off: the JSON as it is.
        let (coding, body) = try await callBig(.off)
        XCTAssertNil(coding)
        let answer = try Value(json: String(decoding: body, as: UTF8.self))
        XCTAssertEqual(answer["result"]?["content"]?[0]?["text"]?.stringValue?.count, 26_000)
    }
}
