// ArgumentDecoderTests: the fast path that decodes a tool's arguments from the parsed Value
// answers what JSONDecoder answers (values and errors), takes the common types itself, and
// gives up (to JSONDecoder) on what JSONDecoder reads its own way.

@testable import FerroMCP
import Foundation
import XCTest

private enum Color: String, Codable, Equatable { case red, green }

private struct Inner: Codable, Equatable {
    let name: String
    let tags: [String]
}

private struct Everything: Codable, Equatable {
    let s: String
    let i: Int
    let i8: Int8
    let u16: UInt16
    let u64: UInt64
    let d: Double
    let f: Float
    let b: Bool
    let opt: Int?
    let absent: String?
    let null: String?
    let color: Color
    let inner: Inner
    let list: [Inner]
    let matrix: [[Int]]
    let map: [String: Int]
    let byNumber: [Int: String]
    let any: Value
    let when: Date
}

/// Catches a failed decode and tries another type, as some hand-written `init(from:)` do.
private struct Either: Decodable, Equatable {
    let number: Int?
    let text: String?
    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let n = try? c.decode(Int.self) {
            (number, text) = (n, nil)
        } else {
            (number, text) = (nil, try c.decode(String.self))
        }
    }
}

private struct EitherHolder: Decodable, Equatable { let e: Either }
private struct Blob: Codable, Equatable { let data: Data }
private struct Link: Codable, Equatable { let url: URL }
private struct Money: Codable, Equatable { let amount: Decimal }
private struct Count: Codable, Equatable { let n: Int }
private struct Ratio: Codable, Equatable { let r: Float }
private struct Big: Codable, Equatable { let n: UInt64 }
private struct Loose: Codable, Equatable { let v: Value }

/// A decoded value, or where and why decoding failed.
private enum Outcome<T: Equatable>: Equatable {
    case success(T)
    case failure(String)
}

final class ArgumentDecoderTests: XCTestCase {
    /// What JSONDecoder makes of `text` (the value, or where and why it failed).
    private func reference<T: Decodable & Equatable>(_ text: String, _ type: T.Type) -> Outcome<T> {
        do {
            return .success(try JSONDecoder().decode(T.self, from: Data(text.utf8)))
        } catch {
            let (path, message) = decodingProblem(error)
            return .failure("\(path) \(message)")
        }
    }

    /// What the fast path makes of `text` (nil: it gave up).
    private func fast<T: Decodable>(_ text: String, _ type: T.Type) -> T? {
        ArgumentDecoder.decode(T.self, from: try! Value(json: text))
    }

    /// What a tool's arguments decode to (the fast path or JSONDecoder), as `reference`.
    private func decoded<T: Decodable & Equatable>(_ text: String, _ type: T.Type) -> Outcome<T> {
        do {
            return .success(try Server.decodeArguments(text, as: T.self, tool: "t"))
        } catch let e as ArgumentsDidNotDecode {
            return .failure("\(e.path) \(e.problem)")
        } catch {
            return .failure("not ArgumentsDidNotDecode: \(error)")
        }
    }

    private let everything = """
        {"s":"h\\u00e9llo \\"q\\"","i":-42,"i8":7,"u16":65535,"u64":18446744073709551,"d":2.5,"f":0.5,
         "b":true,"opt":3,"null":null,"color":"green","inner":{"name":"n","tags":["a","b"]},
         "list":[{"name":"x","tags":[]}],"matrix":[[1,2],[3]],"map":{"a":1,"b":2},
         "byNumber":{"1":"one","20":"twenty"},"any":{"k":[1,2.5,"s",null,true,{"z":false}]},
         "when":12.25}
        """

    func testTheCommonTypesDecodeOnTheFastPathAsJSONDecoderDecodesThem() throws {
        let expected = try JSONDecoder().decode(Everything.self, from: Data(everything.utf8))
        XCTAssertEqual(fast(everything, Everything.self), expected)
        XCTAssertEqual(try Server.decodeArguments(everything, as: Everything.self, tool: "t"), expected)
        XCTAssertEqual(fast(#"{"e":5}"#, EitherHolder.self), EitherHolder(e: Either(from: 5)))
    }

    func testWhatJSONDecoderReadsItsOwnWayGoesToJSONDecoder() throws {
        let cases: [(String, () -> Bool)] = [
            // JSONDecoder's own strategies for Data (base64), URL (a string) and Decimal (the text).
            (#"{"data":"aGk="}"#, { self.fast(#"{"data":"aGk="}"#, Blob.self) == nil }),
            (#"{"url":"https://x.test/a"}"#, { self.fast(#"{"url":"https://x.test/a"}"#, Link.self) == nil }),
            (#"{"amount":0.1}"#, { self.fast(#"{"amount":0.1}"#, Money.self) == nil }),
            // Numbers JSONDecoder re-reads from their text.
            (#"{"n":1.0}"#, { self.fast(#"{"n":1.0}"#, Count.self) == nil }),
            (#"{"r":0.1}"#, { self.fast(#"{"r":0.1}"#, Ratio.self) == nil }),
            (#"{"n":18446744073709551615}"#, { self.fast(#"{"n":18446744073709551615}"#, Big.self) == nil }),
            (#"{"v":2.0}"#, { self.fast(#"{"v":2.0}"#, Loose.self) == nil }),
            // A failure the type catches: the whole decoding goes to JSONDecoder.
            (#"{"e":"five"}"#, { self.fast(#"{"e":"five"}"#, EitherHolder.self) == nil }),
        ]
        for (text, gaveUp) in cases { XCTAssertTrue(gaveUp(), "the fast path should give up on \(text)") }
        XCTAssertEqual(decoded(#"{"data":"aGk="}"#, Blob.self), reference(#"{"data":"aGk="}"#, Blob.self))
        XCTAssertEqual(decoded(#"{"url":"https://x.test/a"}"#, Link.self), reference(#"{"url":"https://x.test/a"}"#, Link.self))
        XCTAssertEqual(decoded(#"{"amount":0.1}"#, Money.self), reference(#"{"amount":0.1}"#, Money.self))
        XCTAssertEqual(decoded(#"{"n":1.0}"#, Count.self), reference(#"{"n":1.0}"#, Count.self))
        XCTAssertEqual(decoded(#"{"r":0.1}"#, Ratio.self), reference(#"{"r":0.1}"#, Ratio.self))
        XCTAssertEqual(decoded(#"{"n":18446744073709551615}"#, Big.self), reference(#"{"n":18446744073709551615}"#, Big.self))
        XCTAssertEqual(decoded(#"{"v":2.0}"#, Loose.self), reference(#"{"v":2.0}"#, Loose.self))
        XCTAssertEqual(decoded(#"{"e":"five"}"#, EitherHolder.self), reference(#"{"e":"five"}"#, EitherHolder.self))
    }

    func testFailuresAreJSONDecodersFailures() {
        let texts = [
            #"{"n":"1"}"#, #"{}"#, #"{"n":null}"#, #"{"n":1.5}"#, #"{"n":9223372036854775808}"#, #"[1]"#,
        ]
        for text in texts {
            guard case .failure = reference(text, Count.self) else { return XCTFail("\(text) should not decode") }
            XCTAssertNil(fast(text, Count.self), text)
            XCTAssertEqual(decoded(text, Count.self), reference(text, Count.self), text)
        }
        XCTAssertEqual(decoded(#"{"s":1}"#, Everything.self), reference(#"{"s":1}"#, Everything.self))
        XCTAssertEqual(decoded(#"{"e":[]}"#, EitherHolder.self), reference(#"{"e":[]}"#, EitherHolder.self))
    }
}

private extension Either {
    init(from n: Int) { (number, text) = (n, nil) }
}
