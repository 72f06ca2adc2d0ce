import XCTest
@testable import FerroMCP

final class ValueTests: XCTestCase {
    func testRoundTrip() throws {
        let v: Value = ["a": 1, "b": [true, .null, 2.5, "x\"y\n"], "c": ["d": "é😀"]]
        XCTAssertEqual(try Value(json: v.jsonText), v)
        XCTAssertEqual(v.jsonText, #"{"a":1,"b":[true,null,2.5,"x\"y\n"],"c":{"d":"é😀"}}"#)
    }

    func testEscapesAndErrors() throws {
        XCTAssertEqual(try Value(json: #""\u00e9\ud83d\ude00\/""#), "é😀/")
        XCTAssertThrowsError(try Value(json: "{\"a\":}"))
        XCTAssertThrowsError(try Value(json: "[1,]"))
        XCTAssertThrowsError(try Value(json: "1 2"))
    }

    func testErrorCodesComeFromTheEngine() {
        XCTAssertEqual(McpError.Code.invalidParams.rawValue, -32602)
        XCTAssertEqual(McpError.Code.methodNotFound.rawValue, -32601)
        XCTAssertTrue(McpError(.connectionClosed, "gone").isTransportError)
        XCTAssertFalse(McpError(.invalidParams, "bad").isTransportError)
    }
}
