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

// Serves the tasks extension io.modelcontextprotocol/tasks to 2026-07-28 clients (the
// tasks-* scenarios' fixtures are at the end of the tools).
let server = try Server(name: "mcp-conformance-test-server", version: "1.0.0",
                        options: ServerOptions(tasksExtension: true))

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
    "$defs": ["address": ["$anchor": "addressDef", "type": "object",
                          "properties": ["street": ["type": "string"], "city": ["type": "string"]]]],
    "properties": [
        "name": ["type": "string"],
        "address": ["$ref": "#/$defs/address"],
        "contactMethod": ["type": "string", "enum": ["phone", "email"]],
        "phone": ["type": "string"],
        "email": ["type": "string"],
    ],
    "allOf": [["anyOf": [["required": ["phone"]], ["required": ["email"]]]]],
    "if": ["properties": ["contactMethod": ["const": "phone"]], "required": ["contactMethod"]],
    "then": ["required": ["phone"]],
    "else": ["required": ["email"]],
    "additionalProperties": false,
]) { args, _ in
    text("JSON Schema 2020-12 tool called with: \(args.jsonText)")
}
try tool("test_reconnection", "Checks that the client reconnects after the server closes the request's stream (SEP-1699)") { _, ctx in
    _ = ctx.closeSSEStream()
    try await Task.sleep(for: .milliseconds(100))
    return text("Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.")
}

// ---- 2026-07-28: diagnostics of server-stateless ----------------------------------------------
func registerTriggerTool() throws {
    try tool("test_trigger_tool_change", "Registers itself again (a tools list change)") { _, _ in
        server.removeTool("test_trigger_tool_change")
        try registerTriggerTool()
        return text("Tool list changed")
    }
}
try registerTriggerTool()
try tool("test_trigger_prompt_change", "Registers test_simple_prompt again (a prompts list change)") { _, _ in
    server.removePrompt("test_simple_prompt")
    try registerSimplePrompt()
    return text("Prompt list changed")
}
// sendRequest, not sample: the engine answers -32021 when the request's client capabilities
// lack sampling (2026-07-28).
try tool("test_missing_capability", "Asks for sampling whether or not the client declared it") { _, ctx in
    _ = try await ctx.sendRequest(method: "sampling/createMessage", params: [
        "messages": [["role": "user", "content": ["type": "text", "text": "hi"]]], "maxTokens": 10,
    ])
    return text("Sampling succeeded")
}
try tool("test_header_param", "Echoes its region, which clients mirror into the Mcp-Param-Region header",
         schema: ["type": "object", "properties": ["region": ["type": "string", "x-mcp-header": "Region"]]]) { args, _ in
    text("region: \(args["region"]?.stringValue ?? "")")
}
try tool("test_logging_tool", "Sends a log message (delivered only when the request asked for a level)") { _, ctx in
    try await ctx.log(.info, "test_logging_tool ran", logger: logger)
    return text("Logging tool executed")
}

// ---- 2026-07-28: multi round-trip requests (input_required) ----------------------------------
func elicitInput(_ message: String, _ property: String, _ kind: String) -> Value {
    ["method": "elicitation/create", "params": [
        "message": .string(message),
        "requestedSchema": ["type": "object", "properties": [property: ["type": .string(kind)]], "required": [.string(property)]],
    ]]
}

func samplingInput(_ prompt: String, _ maxTokens: Int) -> Value {
    ["method": "sampling/createMessage", "params": [
        "messages": [["role": "user", "content": ["type": "text", "text": .string(prompt)]]], "maxTokens": .int(maxTokens),
    ]]
}

let rootsInput: Value = ["method": "roots/list", "params": [:]]

/// The content of an accepted elicitation answer to `key`, if this retry carries one.
func accepted(_ ctx: RequestContext, _ key: String) -> Value? {
    guard let answer = ctx.inputResponse(key), answer["action"]?.stringValue == "accept" else { return nil }
    return answer["content"] ?? [:]
}

// ctx.input serves both eras: input_required (2026-07-28) or a request to the client.
try tool("test_input_required_result_elicitation", "Asks for the user's name, then greets") { _, ctx in
    let answers = try await ctx.input(["user_name": elicitInput("What is your name?", "name", "string")])
    return text("Hello, \(answers["user_name"]?["content"]?["name"]?.stringValue ?? "stranger")!")
}
try tool("test_input_required_result_sampling", "Asks the client's LLM a question, then reports it") { _, ctx in
    let answers = try await ctx.input(["capital_question": samplingInput("What is the capital of France?", 100)])
    return text("LLM response: \(answers["capital_question"]?["content"]?["text"]?.stringValue ?? "")")
}
try tool("test_input_required_result_list_roots", "Asks for the client's roots, then lists them") { _, ctx in
    let answers = try await ctx.input(["client_roots": rootsInput])
    let uris = (answers["client_roots"]?["roots"]?.arrayValue ?? []).compactMap { $0["uri"]?.stringValue }
    return text("Client roots: \(uris.joined(separator: ", "))")
}

/// Round 1 asks for a confirmation with state; round 2 finds the state intact (the engine
/// refuses an altered one before the tool runs).
func confirmWithState(_ ctx: RequestContext) throws -> ToolResult {
    guard ctx.inputResponse("confirm") != nil else {
        throw McpError.inputRequired(["confirm": elicitInput("Please confirm", "ok", "boolean")], state: ["nonce": "state-ok"])
    }
    guard ctx.requestState?["nonce"]?.stringValue == "state-ok" else {
        throw McpError(.invalidParams, "requestState is missing")
    }
    return text("state-ok: confirmation received with valid requestState")
}
try tool("test_input_required_result_request_state", "Asks for a confirmation with requestState") { _, ctx in
    try confirmWithState(ctx)
}
try tool("test_input_required_result_tampered_state", "The same; a tampered requestState is refused") { _, ctx in
    try confirmWithState(ctx)
}
try tool("test_input_required_result_multiple_inputs", "Asks for three inputs in one round") { _, ctx in
    if ["user_name", "greeting", "client_roots"].allSatisfy({ ctx.inputResponse($0) != nil }) {
        return text("Received all inputs: user_name, greeting, client_roots")
    }
    throw McpError.inputRequired([
        "user_name": elicitInput("What is your name?", "name", "string"),
        "greeting": samplingInput("Generate a greeting", 50),
        "client_roots": rootsInput,
    ], state: ["round": 1])
}
try tool("test_input_required_result_multi_round", "Two questions in two rounds, state carried") { _, ctx in
    let step = ctx.requestState?["step"]?.intValue ?? 0
    if step == 1, let name = accepted(ctx, "step1")?["name"]?.stringValue {
        throw McpError.inputRequired(["step2": elicitInput("Step 2: What is your favorite color?", "color", "string")],
                                     state: ["step": 2, "name": .string(name)])
    }
    if step == 2, let color = accepted(ctx, "step2")?["color"]?.stringValue {
        return text("\(ctx.requestState?["name"]?.stringValue ?? "?") likes \(color)")
    }
    throw McpError.inputRequired(["step1": elicitInput("Step 1: What is your name?", "name", "string")], state: ["step": 1])
}
try tool("test_input_required_result_capabilities", "Asks only for what the client can answer") { _, ctx in
    if ctx.inputResponse("llm") != nil || ctx.inputResponse("user") != nil { return text("Received the input") }
    var wanted: [String: Value] = [:]
    if clientHas(ctx, "sampling") { wanted["llm"] = samplingInput("Say hello", 20) }
    if clientHas(ctx, "elicitation") { wanted["user"] = elicitInput("Your name?", "name", "string") }
    if wanted.isEmpty { return text("The client declared no capability to ask with") }
    throw McpError.inputRequired(wanted)
}
try tool("test_streaming_elicitation", "Elicits through ctx.elicit (input_required in 2026-07-28)") { _, ctx in
    let answer = try await ctx.elicit(elicitInput("Your name?", "name", "string")["params"] ?? [:])
    return text("Elicitation answered: \(answer.action.rawValue)")
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
func registerSimplePrompt() throws {
    try server.registerPrompt("test_simple_prompt", title: "Simple Test Prompt",
                              description: "A simple prompt without arguments") { _, _ in
        "This is a simple prompt for testing."
    }
}
try registerSimplePrompt()
try server.registerPrompt("test_input_required_result_prompt",
                          description: "Asks for context (input_required) before it is built") { _, ctx in
    guard let answer = accepted(ctx, "user_context") else {
        throw McpError.inputRequired(["user_context": elicitInput("What context should the prompt use?", "context", "string")])
    }
    return PromptResult(stringLiteral: "Context: \(answer["context"]?.stringValue ?? "")")
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

// ---- 2026-07-28: the tasks extension's fixtures (tasks-* scenarios) ---------------------------
/// A tool whose calls become tasks when the request declares the tasks extension.
func taskTool(_ name: String, _ description: String, _ support: TaskSupport, schema: Value = noArguments,
              _ handler: @escaping @Sendable (Value, RequestContext) async throws -> ToolResult) throws {
    try server.registerTool(name, description: description, inputSchema: schema, taskSupport: support,
                            handler: handler)
}

/// Sleeps `seconds`, or fails as cancelled when the call (or its task) is cancelled first.
func sleepOrCancel(_ ctx: RequestContext, _ seconds: Double) async throws {
    let end = ContinuousClock.now + .milliseconds(Int((min(max(seconds, 0), 3600) * 1000).rounded()))
    while ContinuousClock.now < end {
        if ctx.isCancelled { throw McpError(.requestCancelled, "cancelled") }
        try await Task.sleep(for: min(.milliseconds(50), end - ContinuousClock.now))
    }
}

/// An elicitation input request asking for a `name` and a `confirm` flag.
func ask(_ message: String) -> Value {
    ["method": "elicitation/create", "params": [
        "mode": "form", "message": .string(message),
        "requestedSchema": ["type": "object", "properties": ["name": ["type": "string"], "confirm": ["type": "boolean"]]],
    ]]
}

/// What an elicitation answer says: the accepted `name`, else `confirmed` / `declined`.
func answerText(_ answer: Value?) -> String {
    guard let answer, answer["action"]?.stringValue == "accept" else { return "declined" }
    return answer["content"]?["name"]?.stringValue ?? "confirmed"
}

try tool("greet", "Greets by name (never a task)", schema: ["type": "object", "properties": ["name": ["type": "string"]]]) { args, _ in
    text("Hello, \(args["name"]?.stringValue ?? "World")!")
}
try taskTool("slow_compute", "Sleeps `seconds` seconds, then reports", .optional,
             schema: ["type": "object", "properties": ["seconds": ["type": "number", "minimum": 0], "label": ["type": "string"]]]) { args, ctx in
    let seconds = args["seconds"]?.doubleValue ?? 1
    try await sleepOrCancel(ctx, seconds)
    return text("\(args["label"]?.stringValue ?? "job"): computed after \(seconds) s")
}
try taskTool("failing_job", "Always ends with a tool execution error after a moment", .required) { _, ctx in
    try await sleepOrCancel(ctx, 0.5)
    return text("failing_job failed, as it always does", isError: true)
}
// An McpError ends the task `failed` with that JSON-RPC error (any other error would be a tool
// execution error, `completed` with isError).
try taskTool("protocol_error_job", "Always ends with a JSON-RPC error after a moment", .optional) { _, ctx in
    try await sleepOrCancel(ctx, 0.2)
    throw McpError(.internalError, "protocol_error_job failed with a protocol error on purpose")
}
try taskTool("confirm_delete", "Asks the user to confirm, then deletes `filename` (pretend)", .optional,
             schema: ["type": "object", "properties": ["filename": ["type": "string"]]]) { args, ctx in
    let file = args["filename"]?.stringValue ?? "file"
    let answers = try await ctx.input(["confirm": ask("Delete \(file)?")])
    return text(answers["confirm"]?["action"]?.stringValue == "accept" ? "Deleted \(file)" : "Kept \(file)")
}
try taskTool("multi_input", "Asks two questions at once, then reports both answers", .optional) { _, ctx in
    let answers = try await ctx.input(["first": ask("First value?"), "second": ask("Second value?")])
    return text("Got \(answerText(answers["first"])) and \(answerText(answers["second"]))")
}
// Answering input_required at once keeps the input round ahead of the task; the retry carrying
// the answer becomes the task.
try taskTool("test_tool_with_task", "Asks for the user's name, then completes as a task", .required) { _, ctx in
    guard let answer = ctx.inputResponse("user_name") else {
        throw McpError.inputRequired(["user_name": elicitInput("What is your name?", "name", "string")])
    }
    return text("Hello, \(answerText(answer))!")
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
