// DirectToolCall.swift's shortcut pinned to the JSON text round trip it skips: for each value it
// takes, a handler's params and the engine's result are what `Bridge.compat` and
// `Server.toolResult(Bridge.engine(...))` make; every value it leaves to the round trip is one.

import FerroMCP
@testable import FerroMCPCompat
import Foundation
import XCTest

final class DirectToolCallTests: XCTestCase {
    /// The params the round trip decodes for a call of `name` with `arguments`.
    private func roundTrip(_ name: String, _ arguments: FerroMCP.Value) throws -> CallTool.Parameters {
        try Bridge.compat(["name": .string(name), "arguments": arguments], as: CallTool.Parameters.self)
    }

    func testDirectArgumentsAreWhatTheRoundTripDecodes() throws {
        let cases: [FerroMCP.Value] = [
            .null,
            [:],
            ["text": "hi"],
            ["s": "hé ✓ \"q\" \\ \n", "i": 42, "neg": -7, "max": .int(Int.max), "min": .int(Int.min), "t": true, "f": false,
             "n": .null],
            ["url": "data:text/plain;base64,aGk=", "nomime": "data:;base64,aGk=", "notb64": "data:text/plain,hi",
             "bad": "data:text/plain;base64,@@", "plain": "data",
             // Bytes of "data:" that are not its Characters (a combining mark on the colon), and
             // another case: neither is a data URL.
             "combining": "data:\u{301};base64,aGk=", "upper": "DATA:;base64,aGk="],
            ["a": [1, "x", [false, .null], [:]], "o": ["k": ["j": [], "m": ["z": 0]]]],
        ]
        for arguments in cases {
            let direct = try XCTUnwrap(Bridge.compatArguments(arguments), "\(arguments) should take the shortcut")
            XCTAssertEqual(CallTool.Parameters(name: "echo", arguments: direct), try roundTrip("echo", arguments),
                           "\(arguments)")
        }
    }

    func testArgumentsWithANonIntegerNumberOrNotAnObjectTakeTheRoundTrip() {
        let cases: [FerroMCP.Value] = [
            ["d": 1.5], ["whole": .double(2)], ["deep": ["x": [0.25]]], [1, 2], "text", 3, true,
        ]
        for arguments in cases {
            if case .some = Bridge.compatArguments(arguments) { XCTFail("\(arguments) took the shortcut") }
        }
    }

    func testDirectMetaIsWhatTheRoundTripDecodes() throws {
        let cases: [FerroMCP.Value?] = [
            nil,
            [:],
            ["progressToken": 7],
            ["progressToken": "tok-1", "k": "v"],
            // What a 2026-07-28 client sends with every request.
            ["io.modelcontextprotocol/protocolVersion": "2026-07-28",
             "io.modelcontextprotocol/clientInfo": ["name": "probe", "version": "1"],
             "io.modelcontextprotocol/clientCapabilities": ["sampling": [:], "roots": ["listChanged": true]]],
            ["traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "n": .null,
             "url": "data:text/plain;base64,aGk=", "a": [1, false, ["x": []]]],
        ]
        for meta in cases {
            let direct = try XCTUnwrap(Bridge.compatMeta(meta), "\(String(describing: meta)) should take the shortcut")
            var params: [String: FerroMCP.Value] = ["name": "echo", "arguments": ["text": "hi"]]
            if let meta { params["_meta"] = meta }
            let roundTrip = try Bridge.compat(.object(params), as: CallTool.Parameters.self)
            XCTAssertEqual(CallTool.Parameters(name: "echo", arguments: ["text": "hi"], meta: direct), roundTrip,
                           "\(String(describing: meta))")
            XCTAssertEqual(direct?.progressToken, roundTrip._meta?.progressToken)
        }
    }

    func testMetaWithANonIntegerNumberOrNotAnObjectTakesTheRoundTrip() {
        let cases: [FerroMCP.Value] = [["progressToken": 1.5], ["deep": ["x": [0.25]]], [1], "text", .null]
        for meta in cases {
            if case .some = Bridge.compatMeta(meta) { XCTFail("\(meta) took the shortcut") }
        }
    }

    func testDirectResultsAreWhatTheRoundTripMakes() throws {
        let cases: [CallTool.Result] = [
            .init(content: [.text("hi")], isError: false),
            .init(content: [.text("a"), .text("é\n\"b\"")], isError: true),
            .init(content: [.text("no flag")]),
            .init(content: []),
        ]
        for result in cases {
            let direct = try XCTUnwrap(Bridge.directToolResult(result), "\(result) should take the shortcut")
            XCTAssertEqual(direct, try FerroMCPCompat.Server.toolResult(try Bridge.engine(result)), "\(result)")
        }
    }

    func testResultsWithMoreThanPlainTextTakeTheRoundTrip() throws {
        let cases: [CallTool.Result] = [
            .init(content: [.text("x"), .image(data: "aGk=", mimeType: "image/png", metadata: nil)]),
            .init(content: [.text(text: "x", annotations: .init(priority: 1), _meta: nil)]),
            .init(content: [.text("x", metadata: Metadata(additionalFields: ["k": "v"]))]),
            .init(content: [.text("x")], structuredContent: Optional<FerroMCPCompat.Value>.some(["k": 1])),
            .init(content: [.text("x")], structuredContent: Optional<FerroMCPCompat.Value>.some(.null)),
            .init(content: [.text("x")], _meta: Metadata(additionalFields: ["k": "v"])),
        ]
        for result in cases {
            XCTAssertNil(Bridge.directToolResult(result), "\(result)")
        }
    }

    /// Through the engine: a tool call with shortcut arguments, one with `_meta` and one that needs
    /// the round trip (a double) reach the same handler with the params the round trip would give.
    func testAServerCallsItsCallToolHandlerTheSameWayOnBothPaths() async throws {
        let seen = Seen()
        let server = FerroMCPCompat.Server(name: "echo", version: "1", capabilities: .init(tools: .init()))
        await server.withMethodHandler(ListTools.self) { _ in
            .init(tools: [FerroMCPCompat.Tool(name: "echo", inputSchema: ["type": "object"])])
        }
        await server.withMethodHandler(CallTool.self) { params in
            await seen.add(params)
            return .init(content: [.text("\(params.arguments?["text"]?.stringValue ?? "-")")], isError: false)
        }
        let (clientEnd, serverEnd) = await InMemoryTransport.createConnectedPair()
        try await server.start(transport: serverEnd)
        let client = FerroMCPCompat.Client(name: "probe", version: "1")
        _ = try await client.connect(transport: clientEnd)
        let plain = try await client.callTool(name: "echo", arguments: ["text": "hi", "n": 3])
        XCTAssertEqual(plain.content, [.text("hi")])
        let withDouble = try await client.callTool(name: "echo", arguments: ["text": "x", "d": 0.5])
        XCTAssertEqual(withDouble.content, [.text("x")])
        let withMeta = try await client.callTool(name: "echo", arguments: ["text": "m"],
                                                 meta: Metadata(additionalFields: ["k": "v"]))
        XCTAssertEqual(withMeta.content, [.text("m")])
        let params = await seen.all
        XCTAssertEqual(params.map(\.arguments), [["text": "hi", "n": 3], ["text": "x", "d": 0.5], ["text": "m"]])
        XCTAssertEqual(params.map { $0._meta?["k"] }, [nil, nil, "v"])
        await client.disconnect()
    }

    /// The `CallTool` overload of `withMethodHandler` (the closure at its own type, no
    /// reabstraction thunks) pinned to the generic one: the same handler registered either way
    /// gets the same params and gives the same results, on the shortcut and on the round trip.
    func testTheCallToolOverloadActsAsTheGenericWithMethodHandler() async throws {
        let concrete = try await callsThroughAServer { server, handler in
            await server.withMethodHandler(CallTool.self, handler: handler)
        }
        let generic = try await callsThroughAServer { server, handler in
            await Self.registerGenerically(server, CallTool.self, handler)
        }
        XCTAssertEqual(concrete.params, generic.params)
        XCTAssertEqual(concrete.params.count, 4)
        XCTAssertEqual(concrete.results, generic.results)
        XCTAssertEqual(Array(concrete.results.prefix(3)), [
            "[FerroMCPCompat.Tool.Content.text(text: \"hi\", annotations: nil, _meta: nil)] nil",
            "[FerroMCPCompat.Tool.Content.text(text: \"x\", annotations: nil, _meta: nil)] nil",
            "[FerroMCPCompat.Tool.Content.text(text: \"m\", annotations: nil, _meta: nil)] nil",
        ])
    }

    /// `withMethodHandler` as generic code reaches it (`M` unknown here: the generic overload).
    private static func registerGenerically<M: FerroMCPCompat.Method>(
        _ server: FerroMCPCompat.Server, _ type: M.Type,
        _ handler: @escaping @Sendable (M.Parameters) async throws -> M.Result
    ) async {
        await server.withMethodHandler(type, handler: handler)
    }

    /// Serves an echo tool whose `CallTool` handler `register` sets, makes four calls (shortcut
    /// arguments, a double, `_meta`, a handler that throws) and returns what the handler saw and
    /// what the client got.
    private func callsThroughAServer(
        _ register: (FerroMCPCompat.Server, @escaping @Sendable (CallTool.Parameters) async throws -> CallTool.Result)
            async -> Void
    ) async throws -> (params: [CallTool.Parameters], results: [String]) {
        let seen = Seen()
        let server = FerroMCPCompat.Server(name: "echo", version: "1", capabilities: .init(tools: .init()))
        await server.withMethodHandler(ListTools.self) { _ in
            .init(tools: [FerroMCPCompat.Tool(name: "echo", inputSchema: ["type": "object"])])
        }
        await register(server) { params in
            await seen.add(params)
            if params.arguments?["fail"] != nil { throw MCPError.invalidParams("boom") }
            return .init(content: [.text("\(params.arguments?["text"]?.stringValue ?? "-")")], isError: false)
        }
        let (clientEnd, serverEnd) = await InMemoryTransport.createConnectedPair()
        try await server.start(transport: serverEnd)
        let client = FerroMCPCompat.Client(name: "probe", version: "1")
        _ = try await client.connect(transport: clientEnd)
        // Each call's `content` and `isError` as text, or the error it threw.
        var results: [String] = []
        let calls: [([String: FerroMCPCompat.Value], Metadata?)] = [
            (["text": "hi", "n": 3], nil), (["text": "x", "d": 0.5], nil),
            (["text": "m"], Metadata(additionalFields: ["k": "v"])), (["fail": true], nil),
        ]
        for (arguments, meta) in calls {
            do {
                let r = try await client.callTool(name: "echo", arguments: arguments, meta: meta)
                results.append("\(r.content) \(String(describing: r.isError))")
            } catch {
                results.append("threw \(error)")
            }
        }
        await client.disconnect()
        return (await seen.all, results)
    }
}

private actor Seen {
    var all: [CallTool.Parameters] = []
    func add(_ p: CallTool.Parameters) { all.append(p) }
}
