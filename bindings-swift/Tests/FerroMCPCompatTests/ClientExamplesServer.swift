// A ferromcp server written with FerroMCP's own API, serving what the swift-sdk README's client
// examples ask for (the "image-generator" and "long-running-tool" tools, "resource://example",
// the "customer-service" prompt, completions of "code_review" and "file:///{path}"), over
// Streamable HTTP, for the compat client to talk to.

import FerroMCP
import Foundation

/// A running server for the client examples: its endpoint URL and how to stop it.
struct ClientExamplesServer: Sendable {
    let url: String
    let close: @Sendable () async -> Void
    /// Sends `notifications/resources/updated` for `resource://example` to its subscribers.
    let touchExample: @Sendable () -> Void
    /// How many "long-running-analysis" calls were cancelled.
    let cancelledCalls: @Sendable () -> Int
    /// Logs at `level` ("info", "warning", ...) to every session.
    let log: @Sendable (String, String) async -> Void

    static func start() async throws -> ClientExamplesServer {
        let server = try Server(name: "examples", version: "1.0.0", options: ServerOptions(enableLogging: true))
        try server.registerTool("image-generator", inputSchema: [
            "type": "object", "properties": ["prompt": ["type": "string"], "width": ["type": "integer"]],
        ]) { args, _ in
            .text("Generated \(args["width"]?.intValue ?? 0)px: \(args["prompt"]?.stringValue ?? "")")
        }
        try server.registerTool("long-running-tool") { args, ctx in
            try await ctx.reportProgress(1, total: 2, message: "half")
            try await ctx.reportProgress(2, total: 2, message: "all")
            return .text("done with \(args["input"]?.stringValue ?? "")")
        }
        try server.registerResource("resource://example", name: "example", mimeType: "text/plain") { _, _ in
            "example contents"
        }
        try server.registerPrompt("customer-service", description: "Customer service", arguments: [
            PromptArgument("customerName", required: true), PromptArgument("orderNumber"), PromptArgument("issue"),
        ]) { args, _ in
            PromptResult(description: "Customer service for \(args["customerName"] ?? "")", messages: [
                .user("\(args["orderNumber"] ?? ""): \(args["issue"] ?? "")"),
            ])
        }
        try server.registerPrompt("code_review", arguments: [PromptArgument("language")]) { _, _ in "Review" }
        try server.registerCompletion(prompt: "code_review", argument: "language") { req, _ in
            ["python", "perl", "php", "swift"].filter { $0.hasPrefix(req.value) }
        }
        try server.registerResourceTemplate("file:///{path}", name: "files") { uri, _, _ in .text(uri) }
        try server.registerCompletion(resourceTemplate: "file:///{path}", argument: "path") { req, _ in
            ["/usr/bin", "/usr/lib", "/usr/local", "/etc"].filter { $0.hasPrefix(req.value) }
        }
        try server.registerTool("ask-model") { args, ctx in
            let answer = try await ctx.sample([
                "messages": [["role": "user", "content": ["type": "text", "text": args["question"] ?? ""]]],
                "systemPrompt": "Be brief", "maxTokens": 50, "temperature": 0.5,
            ])
            return .text("\(answer["model"]?.stringValue ?? "?") said: \(answer["content"]?["text"]?.stringValue ?? "?")")
        }
        try server.registerTool("list-roots") { _, ctx in
            .text(try await ctx.listRoots().map { "\($0.name ?? "-")=\($0.uri)" }.joined(separator: ", "))
        }
        try server.registerTool("weather") { args, _ in
            let city = args["city"]?.stringValue ?? ""
            return ToolResult(content: [.text("\(city): 21.5")],
                              structuredContent: ["city": .string(city), "temperature": 21.5],
                              meta: ["source": "test"])
        }
        let cancelled = Counter()
        try server.registerTool("long-running-analysis") { _, ctx in
            do {
                try await Task.sleep(for: .seconds(20))
            } catch {
                cancelled.add()
                throw error
            }
            return "finished"
        }
        let http = try await server.startHTTP()
        return ClientExamplesServer(
            url: http.url,
            close: { try? await http.close() },
            touchExample: { server.notifyResourceUpdated("resource://example") },
            cancelledCalls: { cancelled.value },
            log: { level, message in
                await server.log(LogLevel(rawValue: level) ?? .info, ["message": .string(message)], logger: "examples")
            })
    }
}

/// A count shared across tasks.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
