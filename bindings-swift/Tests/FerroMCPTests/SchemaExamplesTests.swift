// The Swift wire types against the MCP spec's own example messages: every example whose type
// has a Swift counterpart is read into that type and written back from the type's fields, and
// the JSON must come out equal (key order aside, whole numbers compared as numbers). A field the
// spec adds or renames that the Swift type does not read makes its examples fail here, as does an
// example the type cannot read. The fields a Swift type leaves out on purpose are listed in
// `omitted`, each with its reason. A new example type in the spec fails the test until it is
// given a counterpart here or named in `noCounterpart`.
//
// The examples: `../shared/spec/schema/<revision>/examples/<Type>/*.json` beside the repository
// (as CI lays it; FERROMCP_SPEC_DIR names another spec directory). 2026-07-28 has them;
// 2025-11-25 ships none (its schema.json only), so there is nothing to read for it.

import Foundation
import XCTest
@testable import FerroMCP

/// What a Swift type leaves out of an example when written back: a path (`key`, `key.sub`,
/// `items[].key`), and, when only one value is left out, that value (a default not written).
struct Omitted: Sendable {
    let path: String
    let onlyValue: Value?
    let reason: String
    init(_ path: String, only value: Value? = nil, _ reason: String) {
        self.path = path
        self.onlyValue = value
        self.reason = reason
    }
}

/// A spec type with a Swift counterpart: how an example is read into it and written back.
struct Counterpart: Sendable {
    let swiftType: String
    let roundTrip: @Sendable (Value) throws -> Value
    let omitted: [Omitted]
}

/// `resultType` is the 2026-07-28 envelope's word on the result ("complete" or an input round),
/// which the engine reads and writes; the Swift result types describe the result itself.
private let resultType = Omitted("resultType", "the engine's per-request envelope, not part of the Swift result")
/// `ttlMs` / `cacheScope`: cache hints the engine writes from `ServerOptions.cacheHints` and the
/// client's cache reads; the Swift list types carry the items.
private let cacheHints = [
    Omitted("ttlMs", "a cache hint the engine writes (ServerOptions.cacheHints); not on the Swift list types"),
    Omitted("cacheScope", "a cache hint the engine writes (ServerOptions.cacheHints); not on the Swift list types"),
]

func object(_ pairs: [(String, Value?)]) -> Value {
    var o: [String: Value] = [:]
    for (k, v) in pairs { if let v { o[k] = v } }
    return .object(o)
}

func writeTool(_ t: Tool) -> Value {
    object([("name", .string(t.name)), ("title", t.title.map(Value.string)),
            ("description", t.description.map(Value.string)), ("inputSchema", t.inputSchema),
            ("outputSchema", t.outputSchema), ("annotations", t.annotations?.value),
            ("icons", t.icons.map(Value.array)), ("execution", t.execution), ("_meta", t.meta)])
}

func writeResource(_ r: Resource) -> Value {
    object([("uri", .string(r.uri)), ("name", .string(r.name)), ("title", r.title.map(Value.string)),
            ("description", r.description.map(Value.string)), ("mimeType", r.mimeType.map(Value.string)),
            ("size", r.size.map(Value.int)), ("annotations", r.annotations),
            ("icons", r.icons.map(Value.array)), ("_meta", r.meta)])
}

func writeTemplate(_ r: ResourceTemplate) -> Value {
    object([("uriTemplate", .string(r.uriTemplate)), ("name", .string(r.name)),
            ("title", r.title.map(Value.string)), ("description", r.description.map(Value.string)),
            ("mimeType", r.mimeType.map(Value.string)), ("annotations", r.annotations),
            ("icons", r.icons.map(Value.array)), ("_meta", r.meta)])
}

func writePrompt(_ p: Prompt) -> Value {
    object([("name", .string(p.name)), ("title", p.title.map(Value.string)),
            ("description", p.description.map(Value.string)),
            ("arguments", p.arguments.isEmpty ? nil : .array(p.arguments.map(\.value))),
            ("icons", p.icons.map(Value.array)), ("_meta", p.meta)])
}

private let listResultOmissions = [resultType] + cacheHints

/// Every spec type with a Swift counterpart, by the example directory's name (SchemaFieldsTests
/// checks the same counterparts against schema.json).
let counterparts: [String: Counterpart] = {
    let content = Counterpart(swiftType: "Content", roundTrip: { try Content($0).value }, omitted: [])
    let contents = Counterpart(swiftType: "ResourceContents", roundTrip: { try ResourceContents($0).value },
                               omitted: [])
    return [
        "TextContent": content,
        "ImageContent": content,
        "AudioContent": content,
        "EmbeddedResource": content,
        "ResourceLink": content,
        "TextResourceContents": contents,
        "BlobResourceContents": contents,
        "CallToolResult": Counterpart(
            swiftType: "CallToolResult -> ToolResult",
            roundTrip: { v in
                let r = try CallToolResult(v)
                return ToolResult(content: r.content, structuredContent: r.structuredContent,
                                  isError: r.isError, meta: r.meta).value
            },
            omitted: [resultType,
                      Omitted("isError", only: false, "false is the default; ToolResult writes isError only when true")]),
        "GetPromptResult": Counterpart(
            swiftType: "GetPromptResult -> PromptResult",
            roundTrip: { v in
                let r = try GetPromptResult(v)
                return PromptResult(description: r.description, messages: r.messages, meta: r.meta).value
            },
            omitted: [resultType]),
        "Tool": Counterpart(swiftType: "Tool", roundTrip: { try writeTool(Tool($0)) }, omitted: []),
        "Resource": Counterpart(swiftType: "Resource", roundTrip: { try writeResource(Resource($0)) }, omitted: []),
        "ListToolsResult": Counterpart(
            swiftType: "ListToolsResult",
            roundTrip: { v in
                let r = try ListToolsResult(v)
                return object([("tools", .array(r.tools.map(writeTool))), ("nextCursor", r.nextCursor.map(Value.string)),
                               ("_meta", r.meta)])
            },
            omitted: listResultOmissions),
        "ListResourcesResult": Counterpart(
            swiftType: "ListResourcesResult",
            roundTrip: { v in
                let r = try ListResourcesResult(v)
                return object([("resources", .array(r.resources.map(writeResource))),
                               ("nextCursor", r.nextCursor.map(Value.string)), ("_meta", r.meta)])
            },
            omitted: listResultOmissions),
        "ListResourceTemplatesResult": Counterpart(
            swiftType: "ListResourceTemplatesResult",
            roundTrip: { v in
                let r = try ListResourceTemplatesResult(v)
                return object([("resourceTemplates", .array(r.resourceTemplates.map(writeTemplate))),
                               ("nextCursor", r.nextCursor.map(Value.string)), ("_meta", r.meta)])
            },
            omitted: listResultOmissions),
        "ListPromptsResult": Counterpart(
            swiftType: "ListPromptsResult",
            roundTrip: { v in
                let r = try ListPromptsResult(v)
                return object([("prompts", .array(r.prompts.map(writePrompt))),
                               ("nextCursor", r.nextCursor.map(Value.string)), ("_meta", r.meta)])
            },
            omitted: listResultOmissions),
        "CompleteResult": Counterpart(
            swiftType: "Completion",
            roundTrip: { v in
                let c = try Completion(v)
                return object([("completion", object([("values", .array(c.values.map(Value.string))),
                                                      ("total", c.total.map(Value.int)),
                                                      ("hasMore", c.hasMore.map(Value.bool))])),
                               ("_meta", c.meta)])
            },
            omitted: [resultType]),
        "CompleteRequestParams": Counterpart(
            swiftType: "CompletionRequest",
            roundTrip: { v in
                let r = CompletionRequest(v)
                return object([("argument", ["name": .string(r.argumentName), "value": .string(r.value)]),
                               ("context", r.context.isEmpty ? nil
                                    : ["arguments": .object(r.context.mapValues(Value.string))])])
            },
            omitted: [Omitted("ref", "a completion handler is registered per prompt or template, so it knows the ref"),
                      Omitted("_meta", "the request's envelope (protocol version, client), read by the engine")]),
        "ElicitResult": Counterpart(swiftType: "ElicitResult", roundTrip: { try ElicitResult($0).value }, omitted: []),
        "Root": Counterpart(swiftType: "Root", roundTrip: { try Root($0).value }, omitted: []),
        "ListRootsResult": Counterpart(
            swiftType: "[Root]",
            roundTrip: { v in
                guard let roots = v["roots"]?.arrayValue else { throw McpError(.internalError, "no roots") }
                return ["roots": .array(try roots.map { try Root($0).value })]
            },
            omitted: []),
        "ProgressNotificationParams": Counterpart(
            swiftType: "ProgressUpdate",
            roundTrip: { v in
                let p = ProgressUpdate(v)
                return object([("progress", .double(p.progress)), ("total", p.total.map(Value.double)),
                               ("message", p.message.map(Value.string)), ("_meta", p.meta)])
            },
            omitted: [Omitted("progressToken", "the engine routes the update to the request's onProgress; the token stays with it")]),
        "LoggingMessageNotificationParams": Counterpart(
            swiftType: "LogMessage",
            roundTrip: { v in
                guard let m = ServerNotification(method: ServerNotification.Method.logMessage, params: v).logMessage
                else { throw McpError(.internalError, "not a log message: \(v)") }
                return object([("level", .string(m.level.rawValue)), ("logger", m.logger.map(Value.string)),
                               ("data", m.data), ("_meta", m.meta)])
            },
            omitted: []),
    ]
}()

/// Example types with no Swift type of their own, and why: the engine reads and writes them, or
/// the Swift API passes them as `Value`.
private let noCounterpart: [String: String] = {
    var m: [String: String] = [:]
    let envelopes = ["CallToolRequest", "CallToolResultResponse", "CancelledNotification", "CompleteRequest",
                     "CompleteResultResponse", "CreateMessageRequest", "DiscoverRequest", "DiscoverResultResponse",
                     "ElicitRequest", "GetPromptRequest", "GetPromptResultResponse", "ListPromptsRequest",
                     "ListPromptsResultResponse", "ListResourceTemplatesRequest", "ListResourceTemplatesResultResponse",
                     "ListResourcesRequest", "ListResourcesResultResponse", "ListRootsRequest", "ListToolsRequest",
                     "ListToolsResultResponse", "LoggingMessageNotification", "ProgressNotification",
                     "PromptListChangedNotification", "ReadResourceRequest", "ReadResourceResultResponse",
                     "ResourceListChangedNotification", "ResourceUpdatedNotification",
                     "SubscriptionsAcknowledgedNotification", "SubscriptionsListenRequest",
                     "SubscriptionsListenResultResponse", "ToolListChangedNotification"]
    for e in envelopes { m[e] = "a JSON-RPC message: the engine frames and reads it (its result/params have their own check)" }
    let errors = ["HeaderMismatchError", "InternalError", "InvalidParamsError", "MethodNotFoundError",
                  "MissingRequiredClientCapabilityError", "ParseError", "UnsupportedProtocolVersionError"]
    for e in errors { m[e] = "a JSON-RPC error answer: the engine reads it into McpError(code, message, data)" }
    let params = ["CallToolRequestParams", "GetPromptRequestParams", "PaginatedRequestParams",
                  "CancelledNotificationParams", "ResourceUpdatedNotificationParams"]
    for p in params { m[p] = "request or notification params the engine reads; handlers get their parts as arguments" }
    let asValue = ["CreateMessageRequestParams", "CreateMessageResult", "SamplingMessage", "ModelPreferences",
                   "ToolUseContent", "ToolResultContent", "ElicitRequestFormParams", "ElicitRequestURLParams",
                   "BooleanSchema", "NumberSchema", "StringSchema", "TitledMultiSelectEnumSchema",
                   "TitledSingleSelectEnumSchema", "UntitledMultiSelectEnumSchema", "UntitledSingleSelectEnumSchema",
                   "ClientCapabilities", "ServerCapabilities", "InputRequests", "InputResponses",
                   "InputRequiredResult"]
    for a in asValue { m[a] = "passed through the Swift API as Value (sampling and elicitation params, schemas, capabilities, input rounds)" }
    m["ReadResourceResult"] = "a resource handler answers ResourceResult (.text / .data / .contents), which the engine shapes; contents are checked as ResourceContents"
    m["DiscoverResult"] = "server/discover is answered by the engine from the server's registrations and options"
    m["SubscriptionsListenResult"] = "subscriptions/listen is answered by the engine"
    return m
}()

final class SchemaExamplesTests: XCTestCase {
    /// The 2026-07-28 examples: in `../shared/spec` beside the repository, or FERROMCP_SPEC_DIR.
    /// Missing, the test fails (CI always has them).
    private func examplesDir() throws -> URL {
        let dir = SpecFiles.root.appendingPathComponent("schema/2026-07-28/examples")
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir.path, isDirectory: &isDir), isDir.boolValue else {
            throw McpError(.internalError, "no spec examples at \(dir.path) (\(SpecFiles.lookedFor))")
        }
        return dir
    }

    func testEverySpecExampleWithASwiftCounterpartRoundTrips() throws {
        let examples = try examplesDir()
        let fm = FileManager.default
        let types = try fm.contentsOfDirectory(atPath: examples.path).sorted()
        XCTAssertGreaterThan(types.count, 0, "no example types under \(examples.path)")
        var checked = 0
        var checkedTypes = Set<String>()
        for type in types {
            let dir = examples.appendingPathComponent(type)
            let files = try fm.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") }.sorted()
            guard let counterpart = counterparts[type] else {
                XCTAssertNotNil(noCounterpart[type],
                                "spec example type \(type) is new: give it a Swift counterpart in SchemaExamplesTests or name it in noCounterpart with the reason")
                continue
            }
            XCTAssertFalse(files.isEmpty, "\(type): no example files")
            for file in files {
                let name = "2026-07-28/examples/\(type)/\(file)"
                let example = try Value(json: Data(contentsOf: dir.appendingPathComponent(file)))
                let written: Value
                do {
                    written = try counterpart.roundTrip(example)
                } catch {
                    XCTFail("\(name): \(counterpart.swiftType) cannot read it: \(error)")
                    continue
                }
                let expected = canonical(removing(counterpart.omitted, from: example))
                XCTAssertEqual(canonical(written), expected,
                               "\(name) read into \(counterpart.swiftType) and written back differs:\n  wrote    \(canonical(written).jsonText)\n  expected \(expected.jsonText)")
                checked += 1
                checkedTypes.insert(type)
            }
        }
        // Every counterpart met at least one example, so none of them is checked against nothing.
        XCTAssertEqual(Set(counterparts.keys).subtracting(checkedTypes), [],
                       "Swift counterparts with no example in the spec")
        // The lists stay true: a listed type the spec no longer has examples of is stale.
        XCTAssertEqual(Set(noCounterpart.keys).subtracting(types), [], "noCounterpart names types the spec has no examples of")
        // A floor: the 2026-07-28 examples of the types above numbered 35 when this was written.
        XCTAssertGreaterThanOrEqual(checked, 35, "fewer examples checked than the spec held")
    }

    /// Each omission must still be one: an omitted path no example has is a stale entry.
    func testEveryOmissionIsUsedByAnExample() throws {
        let examples = try examplesDir()
        let fm = FileManager.default
        for (type, counterpart) in counterparts {
            let dir = examples.appendingPathComponent(type)
            let files = try fm.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") }
            let values = try files.map { try Value(json: Data(contentsOf: dir.appendingPathComponent($0))) }
            for o in counterpart.omitted {
                XCTAssertTrue(values.contains { removing([o], from: $0) != $0 },
                              "\(type): omitted \(o.path) (\(o.reason)) appears in no example: remove it from the list")
            }
        }
    }
}

/// `value` without the omitted paths (`a`, `a.b`, `a[].b`).
func removing(_ omitted: [Omitted], from value: Value) -> Value {
    var v = value
    for o in omitted { v = remove(path: o.path.split(separator: ".").map(String.init)[...], only: o.onlyValue, in: v) }
    return v
}

func remove(path: ArraySlice<String>, only: Value?, in value: Value) -> Value {
    guard let head = path.first, case .object(var o) = value else { return value }
    let rest = path.dropFirst()
    if head.hasSuffix("[]") {
        let key = String(head.dropLast(2))
        if case .array(let items)? = o[key] {
            o[key] = .array(items.map { remove(path: rest, only: only, in: $0) })
        }
    } else if rest.isEmpty {
        if let current = o[head], only == nil || canonical(current) == canonical(only!) { o[head] = nil }
    } else if let inner = o[head] {
        o[head] = remove(path: rest, only: only, in: inner)
    }
    return .object(o)
}

/// Whole numbers as `.int`, so `50` read as a Double and written back compares equal to `50`.
func canonical(_ value: Value) -> Value {
    switch value {
    case .double(let d) where d.rounded() == d && abs(d) < 9.0e15: return .int(Int(d))
    case .array(let a): return .array(a.map(canonical))
    case .object(let o): return .object(o.mapValues(canonical))
    default: return value
    }
}
