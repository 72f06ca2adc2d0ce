// The "everything" server on FerroMCP's Swift API: the surface the official MCP conformance suite
// drives (tests/conformance/SCENARIOS.md), the same as examples/node/everything_server.mjs,
// examples/python/everything_server.py and examples/rust/src/everything_server.rs.
//
//   EverythingServer [--transport stdio|http] [--port N]
//
// HTTP serves Streamable HTTP at http://127.0.0.1:N/mcp (stateful sessions, SSE responses,
// `retry: 5000` on priming events). Logs go to stderr only.

import ExampleSupport
import FerroMCP
import Foundation

let command = ServerCommand.parse("EverythingServer")
let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")!
let wav = Data(base64Encoded: "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=")!
let logger = "conformance-test-server"
let noArguments: Value = ["type": "object", "properties": [:]]

let server = try Server(name: "mcp-conformance-test-server", version: "1.0.0")

/// A text result (a tool error when `isError`).
func text(_ t: String, isError: Bool = false) -> ToolResult {
    ToolResult(content: [.text(t)], isError: isError)
}

/// Whether the client declared `capability` at initialize.
func clientHas(_ ctx: RequestContext, _ capability: String) -> Bool {
    ctx.clientCapabilities?[capability] != nil
}

/// A tool with a fixed input schema whose handler builds its result by hand.
func tool(_ name: String, _ description: String, schema: Value = noArguments,
          _ handler: @escaping @Sendable (Value, RequestContext) async throws -> ToolResult) throws {
    try server.registerTool(name, description: description, inputSchema: schema, handler: handler)
}

/// One-string-argument schema (`{name: string}`, required).
func requiredString(_ name: String, _ description: String) -> Value {
    ["type": "object", "properties": [name: ["type": "string", "description": .string(description)]], "required": [.string(name)]]
}

// ---- tools ----------------------------------------------------------------------------------
try tool("test_simple_text", "Returns a simple text response") { _, _ in
    text("This is a simple text response for testing.")
}
try tool("test_image_content", "Returns an image") { _, _ in
    ToolResult(content: [.image(data: png, mimeType: "image/png")])
}
try tool("test_audio_content", "Returns an audio clip") { _, _ in
    ToolResult(content: [.audio(data: wav, mimeType: "audio/wav")])
}
try tool("test_embedded_resource", "Returns an embedded resource") { _, _ in
    ToolResult(content: [.resource(.text("This is an embedded resource content.", uri: "test://embedded-resource", mimeType: "text/plain"))])
}
try tool("test_multiple_content_types", "Returns text, an image and a resource") { _, _ in
    let json: Value = ["test": "data", "value": 123]
    return ToolResult(content: [
        .text("Multiple content types test:"),
        .image(data: png, mimeType: "image/png"),
        .resource(.text(json.jsonText, uri: "test://mixed-content-resource", mimeType: "application/json")),
    ])
}
try tool("test_tool_with_logging", "Sends three log messages while running") { _, ctx in
    let messages = ["Tool execution started", "Tool processing data", "Tool execution completed"]
    for (i, m) in messages.enumerated() {
        if i > 0 { try await Task.sleep(for: .milliseconds(50)) }
        try await ctx.log(.info, .string(m), logger: logger)
    }
    return text("Tool with logging executed successfully")
}
try tool("test_error_handling", "Always fails with a tool error") { _, _ in
    text("This tool intentionally returns an error for testing", isError: true)
}
try tool("test_tool_with_progress", "Reports progress 0, 50, 100") { _, ctx in
    for (i, p) in [0.0, 50, 100].enumerated() {
        if i > 0 { try await Task.sleep(for: .milliseconds(50)) }
        try await ctx.reportProgress(p, total: 100, message: "Completed step \(Int(p)) of 100")
    }
    switch ctx.progressToken {
    case nil, .null?: return text("no progress token")
    case .string(let s)?: return text(s)
    case let token?: return text(token.jsonText)
    }
}
try tool("test_sampling", "Asks the client's LLM to answer a prompt",
         schema: requiredString("prompt", "The prompt to send to the LLM")) { args, ctx in
    guard clientHas(ctx, "sampling") else { return text("the client does not support sampling", isError: true) }
    do {
        let prompt = args["prompt"]?.stringValue ?? ""
        let r = try await ctx.sample([
            "messages": [["role": "user", "content": ["type": "text", "text": .string(prompt)]]],
            "maxTokens": 100,
        ])
        let items = r["content"]?.arrayValue ?? [r["content"] ?? [:]]
        return text("LLM response: " + items.map { $0["text"]?.stringValue ?? "" }.joined())
    } catch {
        return text("Sampling failed: \(message(of: error))", isError: true)
    }
}

/// Asks the client to fill in a form and reports its answer as text.
func elicitForm(_ ctx: RequestContext, _ message: String, _ schema: Value, _ label: String) async -> ToolResult {
    guard clientHas(ctx, "elicitation") else { return text("the client does not support elicitation", isError: true) }
    do {
        let r = try await ctx.elicit(message: message, requestedSchema: schema)
        return text("\(label): action=\(r.action.rawValue), content=\((r.content ?? [:]).jsonText)")
    } catch {
        return text("Elicitation failed: \(ExampleSupport.message(of: error))", isError: true)
    }
}

try tool("test_elicitation", "Asks the user for a username and an email address",
         schema: requiredString("message", "The message to show the user")) { args, ctx in
    await elicitForm(ctx, args["message"]?.stringValue ?? "", [
        "type": "object",
        "properties": [
            "username": ["type": "string", "description": "User's response"],
            "email": ["type": "string", "description": "User's email address"],
        ],
        "required": ["username", "email"],
    ], "User response")
}
try tool("test_elicitation_sep1034_defaults", "Elicits a form whose fields carry default values (SEP-1034)") { _, ctx in
    await elicitForm(ctx, "Please review and update the form fields with defaults", [
        "type": "object",
        "properties": [
            "name": ["type": "string", "description": "User name", "default": "John Doe"],
            "age": ["type": "integer", "description": "User age", "default": 30],
            "score": ["type": "number", "description": "User score", "default": 95.5],
            "status": ["type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"],
            "verified": ["type": "boolean", "description": "Verification status", "default": true],
        ],
        "required": [],
    ], "Elicitation completed")
}

/// `[{const, title}]` for titled enum options.
func titled(_ pairs: [(String, String)]) -> Value {
    .array(pairs.map { ["const": .string($0.0), "title": .string($0.1)] })
}

try tool("test_elicitation_sep1330_enums", "Elicits every enum variant of SEP-1330") { _, ctx in
    let options: Value = ["option1", "option2", "option3"]
    return await elicitForm(ctx, "Please select options from the enum fields", [
        "type": "object",
        "properties": [
            "untitledSingle": ["type": "string", "description": "Select one option", "enum": options],
            "titledSingle": [
                "type": "string", "description": "Select one option with titles",
                "oneOf": titled([("value1", "First Option"), ("value2", "Second Option"), ("value3", "Third Option")]),
            ],
            "legacyEnum": [
                "type": "string", "description": "Select one option (legacy)",
                "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"],
            ],
            "untitledMulti": [
                "type": "array", "description": "Select multiple options", "minItems": 1, "maxItems": 3,
                "items": ["type": "string", "enum": options],
            ],
            "titledMulti": [
                "type": "array", "description": "Select multiple options with titles", "minItems": 1, "maxItems": 3,
                "items": ["anyOf": titled([("value1", "First Choice"), ("value2", "Second Choice"), ("value3", "Third Choice")])],
            ],
        ],
        "required": [],
    ], "Elicitation completed")
}
try tool("json_schema_2020_12_tool", "A tool whose input schema uses JSON Schema 2020-12 features ($defs, $ref)", schema: [
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": ["address": ["type": "object", "properties": ["street": ["type": "string"], "city": ["type": "string"]]]],
    "properties": ["name": ["type": "string"], "address": ["$ref": "#/$defs/address"]],
    "additionalProperties": false,
]) { args, _ in
    text("JSON Schema 2020-12 tool called with: \(args.jsonText)")
}
try tool("test_reconnection", "Checks that the client reconnects after the server closes the request's stream (SEP-1699)") { _, ctx in
    _ = ctx.closeSSEStream()
    try await Task.sleep(for: .milliseconds(100))
    return text("Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.")
}

// ---- resources ------------------------------------------------------------------------------
try server.registerResource("test://static-text", name: "static-text", title: "Static Text Resource",
                            description: "A static text resource for testing", mimeType: "text/plain") { _, _ in
    "This is the content of the static text resource."
}
try server.registerResource("test://static-binary", name: "static-binary", title: "Static Binary Resource",
                            description: "A static binary resource (image) for testing", mimeType: "image/png") { _, _ in
    .data(png)
}
try server.registerResource("test://watched-resource", name: "watched-resource", title: "Watched Resource",
                            description: "A resource that auto-updates every 3 seconds", mimeType: "text/plain") { _, _ in
    "Watched resource content"
}
try server.registerResourceTemplate("test://template/{id}/data", name: "template", title: "Resource Template",
                                    description: "A resource template with parameter substitution",
                                    mimeType: "application/json") { _, variables, _ in
    let id = variables["id"] ?? ""
    let data: Value = ["id": .string(id), "templateTest": true, "data": .string("Data for ID: \(id)")]
    return .text(data.jsonText)
}

// ---- prompts --------------------------------------------------------------------------------
try server.registerPrompt("test_simple_prompt", title: "Simple Test Prompt",
                          description: "A simple prompt without arguments") { _, _ in
    "This is a simple prompt for testing."
}
try server.registerPrompt("test_prompt_with_arguments", title: "Prompt With Arguments",
                          description: "A prompt with required arguments",
                          arguments: [PromptArgument("arg1", description: "First test argument", required: true),
                                      PromptArgument("arg2", description: "Second test argument", required: true)]) { args, _ in
    PromptResult(stringLiteral: "Prompt with arguments: arg1='\(args["arg1"] ?? "")', arg2='\(args["arg2"] ?? "")'")
}
try server.registerPrompt("test_prompt_with_embedded_resource", title: "Prompt With Embedded Resource",
                          description: "A prompt that includes an embedded resource",
                          arguments: [PromptArgument("resourceUri", description: "URI of the resource to embed", required: true)]) { args, _ in
    PromptResult(messages: [
        PromptMessage(role: .user, content: .resource(.text("Embedded resource content for testing.",
                                                            uri: args["resourceUri"] ?? "", mimeType: "text/plain"))),
        PromptMessage(role: .user, content: .text("Please process the embedded resource above.")),
    ])
}
try server.registerPrompt("test_prompt_with_image", title: "Prompt With Image",
                          description: "A prompt that includes image content") { _, _ in
    PromptResult(messages: [
        PromptMessage(role: .user, content: .image(data: png, mimeType: "image/png")),
        PromptMessage(role: .user, content: .text("Please analyze the image above.")),
    ])
}

// ---- completion -----------------------------------------------------------------------------
let suggestions = ["test", "testValue1", "testValue2", "example"]
for argument in ["arg1", "arg2"] {
    try server.registerCompletion(prompt: "test_prompt_with_arguments", argument: argument) { request, _ in
        suggestions.filter { $0.hasPrefix(request.value) }
    }
}

// Tells subscribers that test://watched-resource changed, every 3 seconds.
Task.detached {
    while true {
        try? await Task.sleep(for: .seconds(3))
        server.notifyResourceUpdated("test://watched-resource")
    }
}

try await command
    .serve(server, label: "everything-server (swift)", options: HTTPOptions(retryInterval: .seconds(5)))
