// ArgumentDecoder: decodes a tool's arguments into its `Decodable` type from the parsed `Value`,
// without Foundation's `JSONDecoder`, which cost about 2 µs of a Swift tool call's 6 in the
// pipelined profile (bench/results/swift-pipelined-profile.md).
//
// It is a fast path that must answer exactly what `JSONDecoder` (default options) answers, so
// it gives up instead of guessing: on anything `JSONDecoder` reads differently from a `Value`
// (a number it would have to re-read from its text, `Data`, `URL` and `Decimal`, which
// `JSONDecoder` special-cases, `superDecoder`), and on every error it throws, even one the
// type's `init(from:)` catches. Then the caller decodes the text again with `JSONDecoder`, so
// values and error messages are `JSONDecoder`'s; only the common, successful case is faster.
// (A type whose `init(from:)` has side effects sees them twice when the fast path gives up.)

import Foundation

enum ArgumentDecoder {
    /// `value` decoded as `T`, or nil when the fast path gave up (decode with `JSONDecoder`).
    static func decode<T: Decodable>(_ type: T.Type, from value: Value) -> T? {
        let run = FastDecoding()
        do {
            let decoded = try run.decode(T.self, from: value, at: [])
            return run.gaveUp ? nil : decoded
        } catch {
            return nil
        }
    }
}

/// One fast decoding: records whether it gave up anywhere (an error a type caught included).
private final class FastDecoding {
    var gaveUp = false

    /// Marks this decoding as given up; throw the result.
    func giveUp() -> GaveUp {
        gaveUp = true
        return GaveUp()
    }

    func decode<T: Decodable>(_ type: T.Type, from value: Value, at path: [CodingKey]) throws -> T {
        // The types JSONDecoder reads its own way: decoded through their `init(from:)` here,
        // they would answer differently (or not at all).
        if T.self == Data.self || T.self == URL.self || T.self == Decimal.self { throw giveUp() }
        if T.self == Value.self {
            guard Self.sameAsDecoded(value) else { throw giveUp() }
            return value as! T
        }
        return try T(from: ValueDecoder(value, path, self))
    }

    /// Whether `value` is what `Value.init(from:)` makes of it under `JSONDecoder`: that tries
    /// `Int` before `Double`, so an integral number written with a fraction or an exponent
    /// would be an `.int` there and is a `.double` here.
    private static func sameAsDecoded(_ value: Value) -> Bool {
        switch value {
        case .double(let d): return d.rounded() != d
        case .array(let a): return a.allSatisfy(sameAsDecoded)
        case .object(let o): return o.values.allSatisfy(sameAsDecoded)
        default: return true
        }
    }

    func bool(_ v: Value) throws -> Bool {
        guard case .bool(let b) = v else { throw giveUp() }
        return b
    }

    func string(_ v: Value) throws -> String {
        guard case .string(let s) = v else { throw giveUp() }
        return s
    }

    /// An integer written as one (`JSONDecoder` re-reads other numbers from their text).
    func integer<I: FixedWidthInteger>(_ v: Value) throws -> I {
        guard case .int(let i) = v, let n = I(exactly: i) else { throw giveUp() }
        return n
    }

    /// Both parse the same text with correct rounding, so the same `Double`.
    func double(_ v: Value) throws -> Double {
        switch v {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: throw giveUp()
        }
    }

    /// Only a `Float` the `Double` holds exactly (rounding twice could differ from
    /// `JSONDecoder`'s one rounding of the text).
    func float(_ v: Value) throws -> Float {
        guard let f = Float(exactly: try double(v)) else { throw giveUp() }
        return f
    }
}

/// Thrown when the fast path gives up (never reaches the user: the caller decodes again).
private struct GaveUp: Error {}

/// A `Decoder` (and its single-value container) over one `Value`.
private struct ValueDecoder: Decoder, SingleValueDecodingContainer {
    let value: Value
    let codingPath: [CodingKey]
    let run: FastDecoding
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ value: Value, _ path: [CodingKey], _ run: FastDecoding) {
        self.value = value
        self.codingPath = path
        self.run = run
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let o) = value else { throw run.giveUp() }
        return KeyedDecodingContainer(ObjectContainer<Key>(o, codingPath, run))
    }

    func unkeyedContainer() throws -> UnkeyedDecodingContainer {
        guard case .array(let a) = value else { throw run.giveUp() }
        return ArrayContainer(a, codingPath, run)
    }

    func singleValueContainer() throws -> SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { value.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try run.bool(value) }
    func decode(_ type: String.Type) throws -> String { try run.string(value) }
    func decode(_ type: Double.Type) throws -> Double { try run.double(value) }
    func decode(_ type: Float.Type) throws -> Float { try run.float(value) }
    func decode(_ type: Int.Type) throws -> Int { try run.integer(value) }
    func decode(_ type: Int8.Type) throws -> Int8 { try run.integer(value) }
    func decode(_ type: Int16.Type) throws -> Int16 { try run.integer(value) }
    func decode(_ type: Int32.Type) throws -> Int32 { try run.integer(value) }
    func decode(_ type: Int64.Type) throws -> Int64 { try run.integer(value) }
    func decode(_ type: UInt.Type) throws -> UInt { try run.integer(value) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try run.integer(value) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try run.integer(value) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try run.integer(value) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try run.integer(value) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try run.decode(T.self, from: value, at: codingPath) }
}

/// The keyed container over an object's members.
private struct ObjectContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: Value]
    let codingPath: [CodingKey]
    let run: FastDecoding

    init(_ members: [String: Value], _ path: [CodingKey], _ run: FastDecoding) {
        self.members = members
        self.codingPath = path
        self.run = run
    }

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    /// The member `key`; a missing one gives up (`JSONDecoder` throws `keyNotFound`).
    private func member(_ key: Key) throws -> Value {
        guard let v = members[key.stringValue] else { throw run.giveUp() }
        return v
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key).isNull }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try run.bool(member(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try run.string(member(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try run.double(member(key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try run.float(member(key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try run.integer(member(key)) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try run.integer(member(key)) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try run.integer(member(key)) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try run.integer(member(key)) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try run.integer(member(key)) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try run.integer(member(key)) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try run.integer(member(key)) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try run.integer(member(key)) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try run.integer(member(key)) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try run.integer(member(key)) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try run.decode(T.self, from: member(key), at: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        guard case .object(let o) = try member(key) else { throw run.giveUp() }
        return KeyedDecodingContainer(ObjectContainer<NestedKey>(o, codingPath + [key], run))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> UnkeyedDecodingContainer {
        guard case .array(let a) = try member(key) else { throw run.giveUp() }
        return ArrayContainer(a, codingPath + [key], run)
    }

    func superDecoder() throws -> Decoder { throw run.giveUp() }
    func superDecoder(forKey key: Key) throws -> Decoder { throw run.giveUp() }
}

/// The unkeyed container over an array's elements.
private struct ArrayContainer: UnkeyedDecodingContainer {
    let elements: [Value]
    let codingPath: [CodingKey]
    let run: FastDecoding
    var currentIndex = 0

    init(_ elements: [Value], _ path: [CodingKey], _ run: FastDecoding) {
        self.elements = elements
        self.codingPath = path
        self.run = run
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// The element at the current index (a decode moves past it only when it succeeds).
    private func current() throws -> Value {
        guard currentIndex < elements.count else { throw run.giveUp() }
        return elements[currentIndex]
    }

    private mutating func next<T>(_ read: (Value) throws -> T) throws -> T {
        let v = try read(current())
        currentIndex += 1
        return v
    }

    mutating func decodeNil() throws -> Bool {
        guard try current().isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(run.bool) }
    mutating func decode(_ type: String.Type) throws -> String { try next(run.string) }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(run.double) }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(run.float) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(run.integer) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(run.integer) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(run.integer) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(run.integer) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(run.integer) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(run.integer) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(run.integer) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(run.integer) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(run.integer) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(run.integer) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (path, run) = (codingPath + [IndexKey(currentIndex)], run)
        return try next { try run.decode(T.self, from: $0, at: path) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let (path, run) = (codingPath + [IndexKey(currentIndex)], run)
        return try next { v in
            guard case .object(let o) = v else { throw run.giveUp() }
            return KeyedDecodingContainer(ObjectContainer<NestedKey>(o, path, run))
        }
    }

    mutating func nestedUnkeyedContainer() throws -> UnkeyedDecodingContainer {
        let (path, run) = (codingPath + [IndexKey(currentIndex)], run)
        return try next { v in
            guard case .array(let a) = v else { throw run.giveUp() }
            return ArrayContainer(a, path, run)
        }
    }

    mutating func superDecoder() throws -> Decoder { throw run.giveUp() }
}

/// The coding key of an array element (its index).
private struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { return nil }
    init(intValue: Int) { self.intValue = intValue }
}
