// DirectToolCall: a `CallTool` handler's params and result moved between the engine's values and
// this module's types directly, where that gives what the JSON text round trip of `Bridge` gives
// (an `encode` and a `decode` each way per call). Every case it is not sure of (a number that is
// not an integer, annotations, non-text content, structured content, a result's `_meta`) takes
// the round trip as before, so what a handler sees and what the client gets do not change. A
// request's `_meta` takes the shortcut when its members do: every 2026-07-28 request carries one
// (the protocol version and client info), so a shortcut that left `_meta` to the round trip
// never ran on that revision.
//
// A kept twin of `Bridge`'s round trip (the rule: a pinning test and a timed gain of at least
// 10 % on a row users meet). Pinned by `DirectToolCallTests` (the shortcut's params and results
// equal the round trip's for each shape it takes; the shapes it leaves are checked to take the
// round trip). Timed in bench/results/swift-sdk-form-handler.md, the swift-sdk form's row against
// its baseline build in one run: pipelined stdio 33.3k -> 59.7k calls/s (server CPU per call
// 41.8 -> 12.1 us), HTTP 1 client 5.43k -> 12.1k calls/s; with a request's `_meta` taken too,
// the 2026-07-28 per-request row 12.5k -> 21.6k calls/s at 1 client, 35.4k -> 75.4k at 32.

import FerroMCP
import Foundation

extension Bridge {
    /// A tool call's `arguments` as `CallTool.Parameters.arguments` decodes them from the JSON
    /// text: `.some(nil)` for JSON null, `.some(dict)` for an object; nil (take the round trip)
    /// for anything else or any value `compatValue` leaves to it.
    static func compatArguments(_ arguments: EngineValue) -> [String: Value]?? {
        switch arguments {
        case .null: return .some(nil)
        case .object(let o): return compatObject(o).map { .some($0) }
        default: return nil
        }
    }

    /// A request's `_meta` as `CallTool.Parameters._meta` decodes it from the JSON text:
    /// `.some(nil)` when the request has none, `.some(metadata)` for an object whose members
    /// `compatValue` takes; nil (take the round trip) for anything else.
    static func compatMeta(_ meta: EngineValue?) -> Metadata?? {
        guard let meta else { return .some(nil) }
        guard case .object(let o) = meta, let fields = compatObject(o) else { return nil }
        var metadata = Metadata()
        metadata.fields = fields
        return .some(metadata)
    }

    /// `v` as `Value`'s `Decodable` reads its JSON text (a string that is a base64 `data:` URL
    /// becomes `.data`); nil for a double, whose text `Value` may read back as an integer.
    static func compatValue(_ v: EngineValue) -> Value? {
        switch v {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .double: return nil
        case .string(let s):
            if let (mime, data) = DataURL.parse(s) { return .data(mimeType: mime, data) }
            return .string(s)
        case .array(let a):
            return try? .array(a.map { e in
                guard let c = compatValue(e) else { throw RoundTrip() }
                return c
            })
        case .object(let o): return compatObject(o).map(Value.object)
        }
    }

    /// An object's members as `compatValue` maps them; nil when one of them takes the round trip.
    /// `mapValues` keeps the keys' hash table as it is: no key is hashed again, and the new
    /// dictionary is allocated once at its size (building it key by key hashed each key once
    /// or twice, and `reserveCapacity` is an unspecialized call into the runtime library).
    private static func compatObject(_ o: [String: EngineValue]) -> [String: Value]? {
        try? o.mapValues { v in
            guard let c = compatValue(v) else { throw RoundTrip() }
            return c
        }
    }

    /// Thrown out of a `map` / `mapValues` by a member that takes the round trip.
    private struct RoundTrip: Error {}

    /// `result` as the engine's tool result, as `Server.toolResult(Bridge.engine(result))` makes
    /// it, when every block is plain text (no annotations, no `_meta`) and there is neither
    /// `structuredContent` nor `_meta`; else nil (take the round trip).
    static func directToolResult(_ result: CallTool.Result) -> ToolResult? {
        // `case .none`, not `== nil`: `Value` is itself `ExpressibleByNilLiteral`.
        guard case .none = result.structuredContent, case .none = result._meta else { return nil }
        var content: [FerroMCP.Content] = []
        content.reserveCapacity(result.content.count)
        for block in result.content {
            guard case .text(let text, let annotations, let meta) = block, case .none = annotations, case .none = meta
            else { return nil }
            content.append(.text(text))
        }
        return ToolResult(content: content, isError: result.isError ?? false)
    }
}
