// OpenTelemetryTests: the engine's OpenTelemetry layer from Swift (`.openTelemetry(...)`),
// scenario as bindings-node/test/otel.test.mjs. The engine exports its SERVER span over
// OTLP/HTTP to the receiver tests/run-swift.sh starts (tests/otel/otlp-receiver.mjs, its URL in
// FERROMCP_TEST_OTLP; Foundation on Linux has no HTTP server to run one here), and these tests
// read the spans back from its GET /spans.

@testable import FerroMCP
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

private final class Seen: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String?] = []
    func add(_ v: String?) {
        lock.lock()
        defer { lock.unlock() }
        values.append(v)
    }
    var all: [String?] {
        lock.lock()
        defer { lock.unlock() }
        return values
    }
}

private func hex(_ bytes: Int) -> String {
    (0..<bytes).map { _ in String(format: "%02x", Int.random(in: 0...255)) }.joined()
}

final class OpenTelemetryTests: XCTestCase {
    private func receiver() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["FERROMCP_TEST_OTLP"], !url.isEmpty else {
            throw XCTSkip("FERROMCP_TEST_OTLP is not set (tests/run-swift.sh starts tests/otel/otlp-receiver.mjs)")
        }
        return url
    }

    /// The receiver's spans of `service` named `name`, polled until `count` arrived (20 s at most).
    private func spans(_ base: String, service: String, name: String, count: Int) async throws -> [Value] {
        let deadline = Date().addingTimeInterval(20)
        while true {
            let data: Data = try await withCheckedThrowingContinuation { k in
                URLSession.shared.dataTask(with: URL(string: base + "/spans")!) { data, _, error in
                    if let error { return k.resume(throwing: error) }
                    k.resume(returning: data ?? Data())
                }.resume()
            }
            let all = try Value(json: String(decoding: data, as: UTF8.self)).arrayValue ?? []
            let found = all.filter { $0["service"]?.stringValue == service && $0["name"]?.stringValue == name }
            if found.count >= count || Date() > deadline { return found }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    func testTheEnginesSpanJoinsTheCallersTraceAndTheSwiftHandlerSeesItAsItsParent() async throws {
        let endpoint = try receiver()
        // The engine's batch span processor exports every 100 ms instead of 5 s.
        setenv("OTEL_BSP_SCHEDULE_DELAY", "100", 1)
        let service = "swift-server-\(hex(4))"
        let server = try Server(name: "traced", version: "1.0.0")
        try server.use(.openTelemetry(serviceName: service, otlpEndpoint: endpoint, samplingRatio: 1))
        let seen = Seen()
        try server.registerTool("lookup", inputSchema: ["type": "object", "properties": ["key": ["type": "string"]]]) { args, ctx in
            seen.add(ctx.meta?["traceparent"]?.stringValue)
            return .text((args["key"]?.stringValue ?? "").uppercased())
        }
        let client = try await Client.connect(to: server)
        let traceId = hex(16)
        let callerSpan = hex(8)
        let r = try await client.sendRequest(method: "tools/call", params: [
            "name": "lookup", "arguments": ["key": "k"], "_meta": ["traceparent": .string("00-\(traceId)-\(callerSpan)-01")],
        ])
        XCTAssertEqual(r["content"]?[0]?["text"]?.stringValue, "K")
        let bad = try await client.sendRequest(method: "tools/call", params: [
            "name": "lookup", "arguments": ["key": "x"], "_meta": ["traceparent": "00-zz-bad"],
        ])
        XCTAssertEqual(bad["content"]?[0]?["text"]?.stringValue, "X")
        await client.close()

        let engine = try await spans(endpoint, service: service, name: "tools/call lookup", count: 2)
        XCTAssertEqual(engine.count, 2)
        guard let joined = engine.first(where: { $0["parentSpanId"]?.stringValue == callerSpan }) else {
            return XCTFail("no engine span has the caller's span as its parent: \(engine)")
        }
        XCTAssertEqual(joined["traceId"]?.stringValue, traceId)
        XCTAssertEqual(joined["kind"]?.intValue, 2, "SPAN_KIND_SERVER")
        XCTAssertEqual(joined["attributes"]?["mcp.method.name"]?.stringValue, "tools/call")
        XCTAssertEqual(joined["attributes"]?["gen_ai.tool.name"]?.stringValue, "lookup")
        XCTAssertEqual(joined["attributes"]?["gen_ai.operation.name"]?.stringValue, "execute_tool")
        let spanId = joined["spanId"]?.stringValue ?? ""
        // The handler's meta names the engine span: a span started from it is the engine span's child.
        XCTAssertEqual(seen.all.first ?? nil, "00-\(traceId)-\(spanId)-01")
        // The malformed traceparent: answered, and a trace of its own started by the engine.
        guard let other = engine.first(where: { $0["spanId"]?.stringValue != spanId }) else {
            return XCTFail("the second call's span is missing: \(engine)")
        }
        XCTAssertEqual(other["parentSpanId"]?.stringValue, "")
        XCTAssertNotEqual(other["traceId"]?.stringValue, traceId)
        let otherTrace = other["traceId"]?.stringValue ?? ""
        let otherSpan = other["spanId"]?.stringValue ?? ""
        XCTAssertEqual(seen.all.last ?? nil, "00-\(otherTrace)-\(otherSpan)-01")
    }

    /// `ClientOptions.openTelemetry`: the client's CLIENT span has the caller's span (named in
    /// `_meta`) as parent and the engine's SERVER span as child; a malformed `traceparent` gives
    /// a client span of its own trace. `close()` flushes the client's spans.
    func testTheClientsSpanIsTheCallersChildAndTheServerSpansParent() async throws {
        let endpoint = try receiver()
        setenv("OTEL_BSP_SCHEDULE_DELAY", "100", 1)
        let serverService = "swift-traced-server-\(hex(4))"
        let clientService = "swift-client-\(hex(4))"
        let server = try Server(name: "traced", version: "1.0.0")
        try server.use(.openTelemetry(serviceName: serverService, otlpEndpoint: endpoint))
        try server.registerTool("lookup", inputSchema: ["type": "object", "properties": ["key": ["type": "string"]]]) { args, _ in
            .text((args["key"]?.stringValue ?? "").uppercased())
        }
        var options = ClientOptions()
        options.openTelemetry = ClientOpenTelemetry(serviceName: clientService, otlpEndpoint: endpoint, samplingRatio: 1)
        let client = try await Client.connect(to: server, options: options)
        let traceId = hex(16)
        let callerSpan = hex(8)
        let r = try await client.sendRequest(method: "tools/call", params: [
            "name": "lookup", "arguments": ["key": "k"], "_meta": ["traceparent": .string("00-\(traceId)-\(callerSpan)-01")],
        ])
        XCTAssertEqual(r["content"]?[0]?["text"]?.stringValue, "K")
        let bad = try await client.sendRequest(method: "tools/call", params: [
            "name": "lookup", "arguments": ["key": "x"], "_meta": ["traceparent": "00-zz-bad"],
        ])
        XCTAssertEqual(bad["content"]?[0]?["text"]?.stringValue, "X")
        await client.close()

        let clients = try await spans(endpoint, service: clientService, name: "tools/call lookup", count: 2)
        let servers = try await spans(endpoint, service: serverService, name: "tools/call lookup", count: 2)
        XCTAssertEqual(clients.count, 2)
        XCTAssertEqual(servers.count, 2)
        guard let joined = clients.first(where: { $0["parentSpanId"]?.stringValue == callerSpan }) else {
            return XCTFail("no client span has the caller's span as its parent: \(clients)")
        }
        XCTAssertEqual(joined["traceId"]?.stringValue, traceId)
        XCTAssertEqual(joined["kind"]?.intValue, 3, "SPAN_KIND_CLIENT")
        let own = clients.first(where: { $0["spanId"] != joined["spanId"] })
        XCTAssertEqual(own?["parentSpanId"]?.stringValue, "", "a malformed traceparent gives no parent")
        XCTAssertNotEqual(own?["traceId"]?.stringValue, traceId)
        for c in clients {
            let children = servers.filter { $0["parentSpanId"] == c["spanId"] }
            XCTAssertEqual(children.count, 1, "the engine's SERVER span is the client span's child: \(servers)")
            XCTAssertEqual(children.first?["traceId"], c["traceId"])
        }
    }

    func testTheClientsOpenTelemetryOptionsBecomeTheEnginesKeys() throws {
        var options = ClientOptions()
        options.openTelemetry = ClientOpenTelemetry(
            serviceName: "c", otlpEndpoint: "http://127.0.0.1:4318", otlpHeaders: ["api-key": "k"],
            samplingRatio: 0.5, metricExportInterval: .seconds(2))
        XCTAssertEqual(try Value(json: options.configJSON)["openTelemetry"], [
            "serviceName": "c", "otlpEndpoint": "http://127.0.0.1:4318", "otlpHeaders": ["api-key": "k"],
            "samplingRatio": 0.5, "metricExportIntervalMs": 2000,
        ])
    }

    func testOptionsTheEngineDoesNotAcceptAreRefusedWhenTheLayerIsAdded() throws {
        let server = try Server(name: "traced", version: "1.0.0")
        XCTAssertThrowsError(try server.use(.openTelemetry(samplingRatio: 2))) { error in
            XCTAssertTrue("\(error)".contains("samplingRatio must be between 0 and 1, got 2"), "\(error)")
        }
    }

    func testTheLayersOptionsBecomeTheEnginesKeys() {
        let layer = BuiltinMiddleware.openTelemetry(
            serviceName: "s", otlpEndpoint: "http://127.0.0.1:4318", otlpHeaders: ["api-key": "k"],
            samplingRatio: 0.25, metricExportInterval: .milliseconds(1500), prometheus: "/metrics")
        guard case .config(let v) = layer.kind else { return XCTFail("not a config layer") }
        XCTAssertEqual(v, [
            "name": "openTelemetry", "serviceName": "s", "otlpEndpoint": "http://127.0.0.1:4318",
            "otlpHeaders": ["api-key": "k"], "samplingRatio": 0.25, "metricExportIntervalMs": 1500,
            "prometheus": "/metrics",
        ])
    }

    /// GET (or POST) `url`: the status, the content type and the body.
    private func fetch(_ url: String, method: String = "GET") async throws -> (Int, String, String) {
        var req = URLRequest(url: URL(string: url)!)
        req.httpMethod = method
        return try await withCheckedThrowingContinuation { k in
            URLSession.shared.dataTask(with: req) { data, response, error in
                if let error { return k.resume(throwing: error) }
                let http = response as? HTTPURLResponse
                k.resume(returning: (http?.statusCode ?? 0,
                                     http?.value(forHTTPHeaderField: "Content-Type") ?? "",
                                     String(decoding: data ?? Data(), as: UTF8.self)))
            }.resume()
        }
    }

    func testThePrometheusPathServesDurationsAndTheListenersGauges() async throws {
        let server = try Server(name: "measured", version: "1.0.0")
        try server.use(.openTelemetry(serviceName: "swift-metrics", prometheus: "/metrics"))
        try server.registerTool("echo", inputSchema: ["type": "object", "properties": ["x": ["type": "string"]]]) { args, _ in
            .text(args["x"]?.stringValue ?? "")
        }
        let http = try await server.startHTTP(port: 0)
        let metrics = "http://127.0.0.1:\(http.port)/metrics"
        let client = try await Client.http(url: http.url)
        let r = try await client.sendRequest(method: "tools/call", params: ["name": "echo", "arguments": ["x": "hi"]])
        XCTAssertEqual(r["content"]?[0]?["text"]?.stringValue, "hi")
        let (status, contentType, text) = try await fetch(metrics)
        let (postStatus, _, _) = try await fetch(metrics, method: "POST")
        await client.close()
        try await http.close()
        XCTAssertEqual(status, 200)
        XCTAssertEqual(contentType, "text/plain; version=0.0.4; charset=utf-8")
        let lines = text.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains { $0.hasPrefix("mcp_server_operation_duration_seconds_count{")
            && $0.contains("gen_ai_tool_name=\"echo\"") && $0.hasSuffix(" 1") }, text)
        XCTAssertTrue(lines.contains { $0.hasPrefix("mcp_server_operation_duration_seconds_bucket{") }, text)
        // The client's session is alive and its connection open while the text is read.
        XCTAssertTrue(lines.contains { $0.hasPrefix("ferromcp_server_sessions") && $0.hasSuffix(" 1") }, text)
        XCTAssertTrue(lines.contains { $0.hasPrefix("ferromcp_server_connections") && !$0.hasSuffix(" 0") }, text)
        XCTAssertTrue(text.contains("# TYPE ferromcp_server_sse_streams gauge"), text)
        XCTAssertEqual(postStatus, 405)
    }

    /// `httpHandler()` owns no listener, so the layer's `prometheus` path is not served by the
    /// engine: `server.prometheusText()` gives the text for a route of the framework's own.
    /// After a call through the handler it has the call's duration histogram.
    func testPrometheusTextServesAHostFrameworksRoute() async throws {
        let server = try Server(name: "measured", version: "1.0.0")
        try server.use(.openTelemetry(serviceName: "swift-host-app", prometheus: "/metrics"))
        try server.registerTool("echo", inputSchema: ["type": "object", "properties": ["x": ["type": "string"]]]) { args, _ in
            .text(args["x"]?.stringValue ?? "")
        }
        let handler = try server.httpHandler(options: HTTPOptions(jsonResponse: true, stateless: true))
        let headers = [
            HTTPHeader(name: "Host", value: "127.0.0.1"),
            HTTPHeader(name: "Content-Type", value: "application/json"),
            HTTPHeader(name: "Accept", value: "application/json, text/event-stream"),
            HTTPHeader(name: "MCP-Protocol-Version", value: "2025-11-25"),
        ]
        let call = Data(#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"x":"hi"}}}"#.utf8)
        let called = try await handler.handle(method: "POST", target: "/mcp", headers: headers, body: call)
        let answer = String(decoding: try await called.collect(), as: UTF8.self)
        XCTAssertEqual(called.status, 200, answer)
        XCTAssertTrue(answer.contains(#""text":"hi""#), answer)
        let text = try XCTUnwrap(server.prometheusText())
        XCTAssertTrue(text.split(separator: "\n").contains {
            $0.hasPrefix("mcp_server_operation_duration_seconds_count{") && $0.contains(#"gen_ai_tool_name="echo""#) && $0.hasSuffix(" 1")
        }, text)
        // Without the layer, or without its prometheus option, there is no text.
        XCTAssertNil(try Server(name: "plain", version: "1.0.0").prometheusText())
        let otlpOnly = try Server(name: "otlp", version: "1.0.0")
        try otlpOnly.use(.openTelemetry(serviceName: "x"))
        XCTAssertNil(otlpOnly.prometheusText())
    }

    func testThePrometheusOptionTakesAPath() throws {
        let server = try Server(name: "measured", version: "1.0.0")
        XCTAssertThrowsError(try server.use(.openTelemetry(prometheus: "metrics"))) { error in
            XCTAssertTrue("\(error)".contains("prometheus must be a path starting with '/'"), "\(error)")
        }
    }
}
