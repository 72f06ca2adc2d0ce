// Value: the official swift-sdk's JSON value (`MCP.Value`), so code written against it compiles
// here unchanged: the same cases (`.data` is a `data:` URL on the wire), literals, accessors and
// `Value(codable)`. It crosses to the engine as JSON text (`Bridge.swift`).

import Foundation

/// A JSON value, as the official swift-sdk's `Value`.
public enum Value: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    /// Binary data, written as a `data:` URL (`data:<mimeType>;base64,<data>`).
    case data(mimeType: String? = nil, Data)
    case array([Value])
    case object([String: Value])

    /// Encodes any `Codable` value (through JSON).
    public init<T: Codable>(_ value: T) throws {
        if let v = value as? Value {
            self = v
        } else {
            self = try JSONDecoder().decode(Value.self, from: JSONEncoder().encode(value))
        }
    }

    public var isNull: Bool { if case .null = self { true } else { false } }
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var intValue: Int? { if case .int(let i) = self { i } else { nil } }
    public var doubleValue: Double? { if case .double(let d) = self { d } else { nil } }
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var dataValue: (mimeType: String?, Data)? {
        if case .data(let m, let d) = self { (m, d) } else { nil }
    }
    public var arrayValue: [Value]? { if case .array(let a) = self { a } else { nil } }
    public var objectValue: [String: Value]? { if case .object(let o) = self { o } else { nil } }
}

extension Value: Codable {
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int.self) {
            self = .int(i)
        } else if let d = try? c.decode(Double.self) {
            self = .double(d)
        } else if let s = try? c.decode(String.self) {
            if let (mime, data) = DataURL.parse(s) { self = .data(mimeType: mime, data) } else { self = .string(s) }
        } else if let a = try? c.decode([Value].self) {
            self = .array(a)
        } else if let o = try? c.decode([String: Value].self) {
            self = .object(o)
        } else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "not a JSON value")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .int(let i): try c.encode(i)
        case .double(let d): try c.encode(d)
        case .string(let s): try c.encode(s)
        case .data(let mime, let data): try c.encode(DataURL.make(mime, data))
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }
}

extension Value: CustomStringConvertible {
    /// The value as JSON text.
    public var description: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).flatMap { String(data: $0, encoding: .utf8) } ?? "null"
    }
}

extension Value: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByStringInterpolation
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: Value...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, Value)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(stringInterpolation: DefaultStringInterpolation) {
        self = .string(String(stringInterpolation: stringInterpolation))
    }
}

extension Bool {
    /// `value` as a `Bool`; with `strict: false` also `0`/`1` and `"true"`/`"false"`.
    public init?(_ value: Value, strict: Bool = true) {
        switch value {
        case .bool(let b): self = b
        case .int(let i) where !strict && (i == 0 || i == 1): self = i == 1
        case .string(let s) where !strict && (s == "true" || s == "false"): self = s == "true"
        default: return nil
        }
    }
}

extension Int {
    /// `value` as an `Int`; with `strict: false` also whole `Double`s and numeric strings.
    public init?(_ value: Value, strict: Bool = true) {
        switch value {
        case .int(let i): self = i
        case .double(let d) where !strict && d.rounded() == d && abs(d) < 9.2e18: self = Int(d)
        case .string(let s) where !strict: guard let i = Int(s) else { return nil }; self = i
        default: return nil
        }
    }
}

extension Double {
    /// `value` as a `Double`; with `strict: false` also `Int`s and numeric strings.
    public init?(_ value: Value, strict: Bool = true) {
        switch value {
        case .double(let d): self = d
        case .int(let i) where !strict: self = Double(i)
        case .string(let s) where !strict: guard let d = Double(s) else { return nil }; self = d
        default: return nil
        }
    }
}

extension String {
    /// `value` as a `String`; with `strict: false` also numbers and booleans in words.
    public init?(_ value: Value, strict: Bool = true) {
        switch value {
        case .string(let s): self = s
        case .int(let i) where !strict: self = String(i)
        case .double(let d) where !strict: self = String(d)
        case .bool(let b) where !strict: self = String(b)
        default: return nil
        }
    }
}

/// `data:` URLs (RFC 2397), base64 only, as `Value.data` is written.
enum DataURL {
    static func make(_ mimeType: String?, _ data: Data) -> String {
        "data:\(mimeType ?? "text/plain");base64,\(data.base64EncodedString())"
    }

    static func parse(_ s: String) -> (String?, Data)? {
        // The bytes first: `hasPrefix` compares Characters (canonical equivalence), which costs
        // far more per string than the bytes; a string that does not start with the bytes of
        // "data:" cannot start with its Characters either (ASCII has one encoding).
        guard s.utf8.starts(with: "data:".utf8) else { return nil }
        guard s.hasPrefix("data:"), let comma = s.firstIndex(of: ",") else { return nil }
        let head = s[s.index(s.startIndex, offsetBy: 5)..<comma]
        guard head.hasSuffix(";base64"), let data = Data(base64Encoded: String(s[s.index(after: comma)...])) else {
            return nil
        }
        let mime = head.dropLast(7)
        return (mime.isEmpty ? nil : String(mime), data)
    }
}
