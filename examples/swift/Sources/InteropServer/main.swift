// The interop server on FerroMCP's Swift API: exactly the surface of tests/interop/SURFACE.md
// (tools echo, add, progress, log, fail; resource mem://greeting; template mem://items/{id};
// prompt greet), like examples/node/interop_server.mjs and examples/python/interop_server.py.
//
//   InteropServer [--transport stdio|http] [--port N]

import ExampleSupport
import FerroMCP
import Foundation

let command = ServerCommand.parse("InteropServer")
let server = try Server(name: "interop-swift-ferromcp-server", version: "1.0.0")
let levels: [Value] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]

/// The arguments of each tool, decoded from the validated JSON.
struct EchoArguments: Decodable, Sendable { var text: String }
struct AddArguments: Decodable, Sendable { var a: Double; var b: Double }
struct ProgressArguments: Decodable, Sendable { var steps: Int? }
struct LogArguments: Decodable, Sendable { var message: String?; var level: String? }

/// What `fail` throws: a plain Swift error, which a tool answers as an `isError` result.
struct IntentionalFailure: LocalizedError, CustomStringConvertible {
    var description: String { "intentional failure" }
    var errorDescription: String? { description }
}

try server.registerTool("echo", description: "Echoes the text back", inputSchema: [
    "type": "object", "properties": ["text": ["type": "string"]], "required": ["text"],
], arguments: EchoArguments.self) { args, _ in
    .text(args.text)
}
try server.registerTool("add", description: "Adds two numbers", inputSchema: [
    "type": "object", "properties": ["a": ["type": "number"], "b": ["type": "number"]], "required": ["a", "b"],
], arguments: AddArguments.self) { args, _ in
    .text(Value.double(args.a + args.b).jsonText)  // a JSON number in shortest form: 2.5, 3
}
try server.registerTool("progress", description: "Reports progress steps", inputSchema: [
    "type": "object", "properties": ["steps": ["type": "integer", "minimum": 0, "default": 3]],
], arguments: ProgressArguments.self) { args, ctx in
    let steps = args.steps ?? 3
    if steps > 0 {
        for i in 1...steps {
            try await ctx.reportProgress(Double(i), total: Double(steps), message: "step \(i) of \(steps)")
            try await Task.sleep(for: .milliseconds(10))
        }
    }
    return "done"
}
try server.registerTool("log", description: "Sends one log message", inputSchema: [
    "type": "object",
    "properties": [
        "message": ["type": "string", "default": "hello from log"],
        "level": ["type": "string", "enum": .array(levels), "default": "info"],
    ],
], arguments: LogArguments.self) { args, ctx in
    let level = LogLevel(rawValue: args.level ?? "info") ?? .info
    try await ctx.log(level, .string(args.message ?? "hello from log"), logger: "interop")
    return "logged"
}
try server.registerTool("fail", description: "Always fails with a tool error",
                        inputSchema: ["type": "object", "properties": [:]]) { _, _ in
    throw IntentionalFailure()
}
try server.registerResource("mem://greeting", name: "greeting", mimeType: "text/plain") { _, _ in
    "hello"
}
try server.registerResourceTemplate("mem://items/{id}", name: "item", mimeType: "text/plain") { _, variables, _ in
    .text("item \(variables["id"] ?? "")")
}
try server.registerPrompt("greet", description: "Greets someone",
                          arguments: [PromptArgument("name", required: true)]) { args, _ in
    PromptResult(stringLiteral: "Hello, \(args["name"] ?? "")!")
}

try await command.serve(server, label: "interop-server (swift)")
