// A stdio MCP server built from others: a weather server mounted under `weather` (live), a notes
// server imported under `notes` (copied once), a tool made from another by a transform, and an
// authorization layer that hides the `*admin_*` tools from callers without the `admin` scope
// (over stdio there is no token, so they stay hidden). The same scenario as
// examples/rust/src/composition_server.rs, examples/python/composition_server.py and
// bindings-node/examples/composition_server.mts; tests/examples/check.mjs runs all four with
// the official TypeScript SDK client and checks each answer.
//
//   CompositionServer [--transport stdio|http] [--port N]

import ExampleSupport
import FerroMCP
import Foundation

let command = ServerCommand.parse("CompositionServer")

/// Registers `forecast(city, units, days?)`: the days' highs and lows as structured content.
func addForecast(_ server: Server) throws {
    try server.registerTool("forecast", description: "The forecast for a city.", inputSchema: [
        "type": "object",
        "properties": [
            "city": ["type": "string"],
            "days": ["type": "integer", "minimum": 1],
            "units": ["type": "string", "enum": ["metric", "imperial"]],
        ],
        "required": ["city", "units"],
    ]) { args, _ in
        let days = args["days"]?.intValue ?? 1
        let list: [Value] = (0..<days).map { d in
            ["day": .int(d), "high": .int(20 + d), "low": .int(10 + d), "units": args["units"] ?? .null]
        }
        return ToolResult(content: [.text("forecast ready")],
                          structuredContent: ["city": args["city"] ?? .null, "days": .array(list)])
    }
}

/// The weather server: `forecast` and a resource `weather://stations`.
func weather() throws -> Server {
    let server = try Server(name: "weather", version: "1.0.0")
    try addForecast(server)
    try server.registerResource("weather://stations", name: "stations") { _, _ in "Oslo, Lima" }
    return server
}

/// `add(text)` and `admin_purge()`.
func notes() throws -> Server {
    let server = try Server(name: "notes", version: "1.0.0")
    try server.registerTool("add", inputSchema: [
        "type": "object", "properties": ["text": ["type": "string"]], "required": ["text"],
    ]) { args, _ in .text("noted: \"\(args["text"]?.stringValue ?? "")\"") }
    try server.registerTool("admin_purge") { _, _ in .text("purged") }
    return server
}

do {
    let server = try Server(name: "composed", version: "1.0.0")
    // Added before the mount, so it sees the mounted and imported items too.
    try server.use(Authorization([(.tool, "*admin_*", ["admin"])]))
    try server.mount("weather", weather())         // weather_forecast, weather://weather/stations
    try server.importServer("notes", notes())      // notes_add, notes_admin_purge (hidden)
    // A tool made from `forecast`: metric only, three days at most, the highs alone. The
    // original is registered here only to be transformed, then removed (the transform keeps
    // its handler).
    try addForecast(server)
    try server.transformTool(
        "forecast", name: "highs", description: "Daily highs in degrees Celsius for a city.",
        arguments: [
            "city": ArgTransform(name: "place"),
            "units": ArgTransform(default: "metric", hide: true),
            "days": ArgTransform(default: 3, constraints: ["maximum": 3]),
        ],
        transformOutput: { out in
            ["highs": .array((out["days"]?.arrayValue ?? []).map { $0["high"] ?? .null })]
        },
        outputSchema: [
            "type": "object",
            "properties": ["highs": ["type": "array", "items": ["type": "integer"]]],
            "required": ["highs"],
        ])
    server.removeTool("forecast")
    try await command.serve(server, label: "composition-server (swift)")
} catch {
    logLine("CompositionServer: \(message(of: error))")
    exit(1)
}
