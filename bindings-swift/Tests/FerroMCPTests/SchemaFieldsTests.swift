// The Swift wire types against the MCP schema itself, not only its examples: for every schema
// definition a Swift type stands for (SchemaExamplesTests' `counterparts`, plus the types no
// example reaches, `schemaCounterparts` below), a value with *every* property the schema gives
// it is generated from `../shared/spec/schema/<revision>/schema.json` (the first branch of each
// union), read into the Swift type and written back, in 2025-11-25 (which ships no examples) and
// 2026-07-28. A field the Swift type does not carry, or reads under another name, is missing from
// what is written and fails here, naming its path; so does a field written that the schema does
// not have. The fields a Swift type leaves out on purpose are the counterpart's `omitted` and, for
// the fields no example has, `schemaOmitted` below, each with its reason; an entry naming a field
// the generated value does not have (the schema dropped it) fails too.

import Foundation
import XCTest
@testable import FerroMCP

private let revisions = ["2025-11-25", "2026-07-28"]

/// Swift types no spec example reaches, checked against the schema only.
private let schemaCounterparts: [String: Counterpart] = [
    "ResourceTemplate": Counterpart(swiftType: "ResourceTemplate", roundTrip: { try writeTemplate(ResourceTemplate($0)) },
                                    omitted: []),
    "Prompt": Counterpart(swiftType: "Prompt", roundTrip: { try writePrompt(Prompt($0)) }, omitted: []),
    "PromptArgument": Counterpart(
        swiftType: "PromptArgument (read by Prompt)",
        roundTrip: { v in
            guard let a = try Prompt(["name": "p", "arguments": [v]]).arguments.first else {
                throw McpError(.internalError, "no argument read")
            }
            return a.value
        },
        omitted: []),
    "PromptMessage": Counterpart(
        swiftType: "PromptMessage (read by GetPromptResult)",
        roundTrip: { v in
            guard let m = try GetPromptResult(["messages": [v]]).messages.first else {
                throw McpError(.internalError, "no message read")
            }
            return m.value
        },
        omitted: []),
    "ToolAnnotations": Counterpart(swiftType: "ToolAnnotations", roundTrip: { ToolAnnotations(reading: $0).value },
                                   omitted: []),
    // 2025-11-25 only: the tasks became an extension in 2026-07-28 (not in its schema).
    "Task": Counterpart(
        swiftType: "McpTask",
        roundTrip: { v in
            let t = try McpTask(v)
            return object([("taskId", .string(t.taskId)), ("status", .string(t.status.rawValue)),
                           ("statusMessage", t.statusMessage.map(Value.string)),
                           ("createdAt", .string(t.createdAt)), ("lastUpdatedAt", .string(t.lastUpdatedAt)),
                           ("ttl", t.ttl.map(Value.int)), ("pollInterval", t.pollInterval.map(Value.int))])
        },
        omitted: []),
]

/// Per revision, what a Swift type leaves out of a value with every field (paths as in
/// `Omitted`), beyond its counterpart's own `omitted`.
private let schemaOmitted: [String: [String: [Omitted]]] = [
    "2025-11-25": ["ListRootsResult": [Omitted("_meta", "the roots handler answers [Root]; the engine writes the result")]],
]

// MARK: - Values generated from the schema

/// `schema` with `$ref` followed and `allOf` merged (properties and required).
private func resolve(_ schema: Value, _ defs: [String: Value]) -> Value {
    var s = schema
    while let ref = s["$ref"]?.stringValue, let name = ref.split(separator: "/").last, let def = defs[String(name)] {
        s = def
    }
    if let parts = s["allOf"]?.arrayValue {
        var props: [String: Value] = [:]
        var required: [Value] = []
        for part in parts {
            let p = resolve(part, defs)
            for (k, v) in p["properties"]?.objectValue ?? [:] { props[k] = v }
            required += p["required"]?.arrayValue ?? []
        }
        return ["type": "object", "properties": .object(props), "required": .array(required)]
    }
    return s
}

/// A value of `schema` with every property present (the first branch of each union).
func fullValue(_ schema: Value, _ defs: [String: Value], depth: Int = 0) -> Value {
    let s = resolve(schema, defs)
    if let c = s["const"] { return c }
    if let e = s["enum"]?.arrayValue?.first { return e }
    if let first = s["anyOf"]?.arrayValue?.first { return fullValue(first, defs, depth: depth + 1) }
    var kind = s["type"]?.stringValue
    if let kinds = s["type"]?.arrayValue { kind = kinds.compactMap(\.stringValue).first { $0 != "null" } }
    if kind == "object" || s["properties"] != nil {
        guard let props = s["properties"]?.objectValue, !props.isEmpty else { return ["key": "value"] }
        if depth > 6 {
            return .object(Dictionary(uniqueKeysWithValues: (s["required"]?.arrayValue ?? []).compactMap(\.stringValue)
                .map { ($0, Value.string("deep")) }))
        }
        return .object(props.mapValues { fullValue($0, defs, depth: depth + 1) })
    }
    switch kind ?? "" {
    case "array": return [fullValue(s["items"] ?? [:], defs, depth: depth + 1)]
    case "string":
        switch s["format"]?.stringValue {
        case "uri": return "https://example.com/a"
        case "byte": return "aGVsbG8="
        case "date-time": return "2025-01-01T00:00:00Z"
        default: return "text"
        }
    case "integer": return 3
    case "number": return .double(1.5)
    case "boolean": return true
    default: return "any"
    }
}

/// Where `written` and `expected` differ, as paths: `missing x` (expected, not written),
/// `unexpected x` (written, not expected), `differs x` (both, other values).
func differences(written: Value, expected: Value, at path: String = "") -> [String] {
    let here = path.isEmpty ? "(the value)" : path
    switch (written, expected) {
    case (.object(let w), .object(let e)):
        var out: [String] = []
        for k in Set(w.keys).union(e.keys).sorted() {
            let p = path.isEmpty ? k : "\(path).\(k)"
            switch (w[k], e[k]) {
            case (nil, .some): out.append("missing \(p)")
            case (.some, nil): out.append("unexpected \(p)")
            case (.some(let a), .some(let b)): out += differences(written: a, expected: b, at: p)
            default: break
            }
        }
        return out
    case (.array(let w), .array(let e)) where w.count == e.count:
        return zip(w, e).flatMap { differences(written: $0, expected: $1, at: "\(path)[]") }
    default:
        return canonical(written) == canonical(expected) ? [] : ["differs \(here): wrote \(written.jsonText), expected \(expected.jsonText)"]
    }
}

final class SchemaFieldsTests: XCTestCase {
    private func schemaDefs(_ revision: String) throws -> [String: Value] {
        let file = SpecFiles.root.appendingPathComponent("schema/\(revision)/schema.json")
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw McpError(.internalError, "no MCP schema at \(file.path) (\(SpecFiles.lookedFor))")
        }
        guard let defs = try Value(json: data)["$defs"]?.objectValue else {
            throw McpError(.internalError, "\(file.path) has no $defs")
        }
        return defs
    }

    func testAValueWithEverySchemaFieldRoundTripsThroughItsSwiftType() throws {
        let all = counterparts.merging(schemaCounterparts) { a, _ in a }
        XCTAssertEqual(Set(counterparts.keys).intersection(schemaCounterparts.keys), [],
                       "a type in both tables: keep it in SchemaExamplesTests' counterparts only")
        var checked = Set<String>()
        var checks = 0
        for revision in revisions {
            let defs = try schemaDefs(revision)
            let omittedHere = schemaOmitted[revision] ?? [:]
            for (type, counterpart) in all.sorted(by: { $0.key < $1.key }) {
                guard let def = defs[type] else {
                    XCTAssertNil(omittedHere[type], "\(revision) has no \(type): remove it from schemaOmitted")
                    continue
                }
                let value = fullValue(def, defs)
                let omitted = counterpart.omitted + (omittedHere[type] ?? [])
                for o in omittedHere[type] ?? [] {
                    XCTAssertNotEqual(removing([o], from: value), value,
                                      "\(revision) \(type): schemaOmitted names \(o.path) (\(o.reason)), which the schema does not have: remove it")
                }
                let written: Value
                do {
                    written = try counterpart.roundTrip(value)
                } catch {
                    XCTFail("\(revision) \(type): \(counterpart.swiftType) cannot read \(value.jsonText): \(error)")
                    continue
                }
                let expected = canonical(removing(omitted, from: value))
                let diff = differences(written: canonical(written), expected: expected)
                XCTAssertEqual(diff, [], """
                    \(revision) \(type) read into \(counterpart.swiftType) and written back: \(diff.joined(separator: "; "))
                      read  \(value.jsonText)
                      wrote \(canonical(written).jsonText)
                    (a field the Swift type lacks or misnames; if on purpose, list it in schemaOmitted with the reason)
                    """)
                checked.insert(type)
                checks += 1
            }
        }
        XCTAssertEqual(Set(all.keys).subtracting(checked), [], "Swift counterparts that neither revision's schema defines")
        // 28 types in 2025-11-25, 27 in 2026-07-28 (no Task) when this was written.
        XCTAssertGreaterThanOrEqual(checks, 55, "fewer definitions checked than the schemas held")
    }

    /// The generator and the comparison themselves: a field renamed or dropped by a reader is
    /// seen (so the test above cannot pass by comparing nothing).
    func testAMisnamedOrDroppedFieldIsSeen() throws {
        let defs = try schemaDefs("2025-11-25")
        let value = fullValue(defs["Resource"]!, defs)
        XCTAssertEqual(Set(value.objectValue?.keys.map { $0 } ?? []),
                       ["uri", "name", "title", "description", "mimeType", "size", "annotations", "icons", "_meta"])
        var renamed = try writeResource(Resource(value))
        renamed["mimeType"] = nil
        renamed["mimetype"] = "text"
        XCTAssertEqual(differences(written: renamed, expected: value), ["missing mimeType", "unexpected mimetype"])
        var dropped = try writeResource(Resource(value))
        dropped["size"] = nil
        XCTAssertEqual(differences(written: dropped, expected: value), ["missing size"])
    }
}
