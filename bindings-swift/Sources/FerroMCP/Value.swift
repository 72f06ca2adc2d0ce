// Value: a JSON value, the currency of MCP messages (arguments, schemas, results, `_meta`).
//
// The engine hands JSON across the FFI as text; this type is what the facade decodes it into
// and encodes it from. `decode(_:)` and `init(encoding:)` bridge to `Codable` types.

import Foundation

/// A JSON value.
public enum Value: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` / `false`.
    case bool(Bool)
    /// A number without fraction or exponent that fits in `Int`.
    case int(Int)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([Value])
    /// An object.
    case object([String: Value])
}

extension Value {
    /// Whether this is `null`.
    public var isNull: Bool { if case .null = self { true } else { false } }
    /// The string, if this is a string.
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    /// The boolean, if this is a boolean.
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    /// The integer, if this is an integer (or a double with no fraction).
    public var intValue: Int? {
        switch self {
        case .int(let i): i
        case .double(let d) where d.rounded() == d && abs(d) < 9.0e15: Int(d)
        default: nil
        }
    }
    /// The number, if this is a number.
    public var doubleValue: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }
    /// The elements, if this is an array.
    public var arrayValue: [Value]? { if case .array(let a) = self { a } else { nil } }
    /// The members, if this is an object.
    public var objectValue: [String: Value]? { if case .object(let o) = self { o } else { nil } }

    /// The member `key` of an object (nil for a missing key or a non-object).
    public subscript(key: String) -> Value? {
        get { objectValue?[key] }
        set {
            guard case .object(var o) = self else { return }
            o[key] = newValue
            self = .object(o)
        }
    }

    /// The element at `index` of an array (nil when out of range or not an array).
    public subscript(index: Int) -> Value? {
        guard case .array(let a) = self, a.indices.contains(index) else { return nil }
        return a[index]
    }
}

// MARK: - Literals
//
// No `ExpressibleByNilLiteral`: with it, `nil` in a `Value?` context could mean `.null` or "absent",
// and `x ?? nil`, `cond ? nil : v` silently pick `.null`. Write `.null` for JSON null.

extension Value: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
extension Value: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int) { self = .int(value) }
}
extension Value: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .double(value) }
}
extension Value: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}
extension Value: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: Value...) { self = .array(elements) }
}
extension Value: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, Value)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

// MARK: - Codable

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
            self = .string(s)
        } else if let a = try? c.decode([Value].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: Value].self))
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
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }
}

extension Value {
    /// The value of an `Encodable` (e.g. a `Codable` struct as structured content).
    public init<T: Encodable>(encoding value: T) throws {
        if let v = value as? Value {
            self = v
            return
        }
        let data = try JSONEncoder().encode(value)
        self = try Value(json: data)
    }

    /// Decodes this value as `T` (e.g. tool arguments into a `Codable` struct).
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        if let v = self as? T { return v }
        return try JSONDecoder().decode(T.self, from: Data(jsonText.utf8))
    }
}

// MARK: - JSON text

extension Value {
    /// Parses JSON text.
    public init(json text: String) throws {
        // In place: a native string's UTF-8 is contiguous (no copy into an array per parse).
        var text = text
        self = try text.withUTF8 { try JSONTextParser.parse($0) }
    }

    /// Parses JSON bytes.
    public init(json data: Data) throws {
        self = try data.withUnsafeBytes { try JSONTextParser.parse($0.bindMemory(to: UInt8.self)) }
    }

    /// Compact JSON text (object keys sorted, so equal values print the same).
    public var jsonText: String {
        var out = ""
        out.reserveCapacity(64)
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d):
            if d.isFinite {
                if d.rounded() == d && abs(d) < 1e15 { out += String(Int(d)) } else { out += "\(d)" }
            } else {
                out += "null"
            }
        case .string(let s): Value.writeString(s, to: &out)
        case .array(let a):
            out += "["
            for (i, v) in a.enumerated() {
                if i > 0 { out += "," }
                v.write(to: &out)
            }
            out += "]"
        case .object(let o):
            out += "{"
            for (i, k) in o.keys.sorted().enumerated() {
                if i > 0 { out += "," }
                Value.writeString(k, to: &out)
                out += ":"
                o[k]!.write(to: &out)
            }
            out += "}"
        }
    }

    private static func writeString(_ s: String, to out: inout String) {
        out += "\""
        // Most strings need no escape: append them whole.
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            out += s
            out += "\""
            return
        }
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20:
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(u)
            }
        }
        out += "\""
    }
}

extension Value: CustomStringConvertible {
    public var description: String { jsonText }
}

/// A small, strict JSON parser (RFC 8259) producing `Value`; faster than going through
/// `JSONSerialization` for the short texts the engine hands over.
struct JSONTextParser {
    /// The text's bytes, borrowed for the parse (see `parse`).
    private let b: UnsafeBufferPointer<UInt8>
    private var i = 0
    private var depth = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { b = bytes }

    /// Parses one JSON document from `bytes`, which only need to live for the call.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws -> Value {
        var parser = JSONTextParser(bytes)
        return try parser.parseDocument()
    }

    struct SyntaxError: Error, CustomStringConvertible {
        let offset: Int
        let reason: String
        var description: String { "invalid JSON at byte \(offset): \(reason)" }
    }

    private mutating func parseDocument() throws -> Value {
        let v = try parseValue()
        skipSpace()
        guard i == b.count else { throw SyntaxError(offset: i, reason: "trailing characters") }
        return v
    }

    private mutating func skipSpace() {
        while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
    }

    private mutating func expect(_ word: String, _ v: Value) throws -> Value {
        let w = Array(word.utf8)
        guard i + w.count <= b.count, Array(b[i..<i + w.count]) == w else {
            throw SyntaxError(offset: i, reason: "expected \(word)")
        }
        i += w.count
        return v
    }

    private mutating func parseValue() throws -> Value {
        skipSpace()
        guard i < b.count else { throw SyntaxError(offset: i, reason: "unexpected end") }
        switch b[i] {
        case UInt8(ascii: "n"): return try expect("null", .null)
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "["):
            depth += 1
            guard depth <= 512 else { throw SyntaxError(offset: i, reason: "nested too deeply") }
            defer { depth -= 1 }
            i += 1
            var items: [Value] = []
            skipSpace()
            if i < b.count, b[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            while true {
                items.append(try parseValue())
                skipSpace()
                guard i < b.count else { throw SyntaxError(offset: i, reason: "unterminated array") }
                if b[i] == UInt8(ascii: ",") { i += 1; continue }
                if b[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
                throw SyntaxError(offset: i, reason: "expected , or ]")
            }
        case UInt8(ascii: "{"):
            depth += 1
            guard depth <= 512 else { throw SyntaxError(offset: i, reason: "nested too deeply") }
            defer { depth -= 1 }
            i += 1
            var members: [String: Value] = [:]
            skipSpace()
            if i < b.count, b[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
            while true {
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: "\"") else {
                    throw SyntaxError(offset: i, reason: "expected a member name")
                }
                let key = try parseString()
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: ":") else { throw SyntaxError(offset: i, reason: "expected :") }
                i += 1
                members[key] = try parseValue()
                skipSpace()
                guard i < b.count else { throw SyntaxError(offset: i, reason: "unterminated object") }
                if b[i] == UInt8(ascii: ",") { i += 1; continue }
                if b[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
                throw SyntaxError(offset: i, reason: "expected , or }")
            }
        default:
            return try parseNumber()
        }
    }

    private mutating func parseNumber() throws -> Value {
        let start = i
        var isInt = true
        if i < b.count, b[i] == UInt8(ascii: "-") { i += 1 }
        while i < b.count {
            let c = b[i]
            if c >= 0x30 && c <= 0x39 { i += 1; continue }
            if c == UInt8(ascii: ".") || c == UInt8(ascii: "e") || c == UInt8(ascii: "E")
                || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") {
                isInt = false
                i += 1
                continue
            }
            break
        }
        guard i > start, let text = String(bytes: b[start..<i], encoding: .utf8) else {
            throw SyntaxError(offset: start, reason: "unexpected character")
        }
        if isInt, let n = Int(text) { return .int(n) }
        guard let d = Double(text), d.isFinite else { throw SyntaxError(offset: start, reason: "bad number \(text)") }
        return .double(d)
    }

    private mutating func parseString() throws -> String {
        i += 1  // opening quote
        let start = i
        // Fast path: no escapes.
        while i < b.count, b[i] != UInt8(ascii: "\""), b[i] != UInt8(ascii: "\\") {
            guard b[i] >= 0x20 else { throw SyntaxError(offset: i, reason: "control character in string") }
            i += 1
        }
        guard i < b.count else { throw SyntaxError(offset: start, reason: "unterminated string") }
        if b[i] == UInt8(ascii: "\"") {
            defer { i += 1 }
            return String(decoding: b[start..<i], as: UTF8.self)
        }
        var bytes = Array(b[start..<i])
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\"") {
                i += 1
                return String(decoding: bytes, as: UTF8.self)
            }
            if c == UInt8(ascii: "\\") {
                i += 1
                guard i < b.count else { break }
                let e = b[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""): bytes.append(0x22)
                case UInt8(ascii: "\\"): bytes.append(0x5C)
                case UInt8(ascii: "/"): bytes.append(0x2F)
                case UInt8(ascii: "b"): bytes.append(0x08)
                case UInt8(ascii: "f"): bytes.append(0x0C)
                case UInt8(ascii: "n"): bytes.append(0x0A)
                case UInt8(ascii: "r"): bytes.append(0x0D)
                case UInt8(ascii: "t"): bytes.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if scalar >= 0xD800 && scalar < 0xDC00 {
                        guard i + 1 < b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u") else {
                            throw SyntaxError(offset: i, reason: "lone surrogate")
                        }
                        i += 2
                        let low = try hex4()
                        guard low >= 0xDC00 && low < 0xE000 else { throw SyntaxError(offset: i, reason: "bad surrogate pair") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw SyntaxError(offset: i, reason: "bad \\u escape") }
                    bytes.append(contentsOf: Array(String(Character(u)).utf8))
                default:
                    throw SyntaxError(offset: i - 1, reason: "bad escape")
                }
                continue
            }
            guard c >= 0x20 else { throw SyntaxError(offset: i, reason: "control character in string") }
            bytes.append(c)
            i += 1
        }
        throw SyntaxError(offset: start, reason: "unterminated string")
    }

    private mutating func hex4() throws -> UInt32 {
        guard i + 4 <= b.count else { throw SyntaxError(offset: i, reason: "short \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = b[i]
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x41...0x46: d = UInt32(c - 0x41 + 10)
            case 0x61...0x66: d = UInt32(c - 0x61 + 10)
            default: throw SyntaxError(offset: i, reason: "bad hex digit")
            }
            v = v * 16 + d
            i += 1
        }
        return v
    }
}
