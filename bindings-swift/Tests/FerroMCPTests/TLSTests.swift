// TLSTests: `HTTPOptions(tls: TLSOptions(...))`, the server itself serving `https://` (rustls in
// the engine). The PKI is made by tests/tls/make-test-pki.sh (the `openssl` command, which the
// Swift root lacks), run by tests/run-swift.sh before `swift test`, which passes its directory
// as FERROMCP_TEST_PKI. Foundation's URLSession on this Linux root (libcurl with Debian's fixed
// CA bundle) cannot trust a private CA (the Swift client can: TLSClientTests, with
// `Client.http(url:rootCertificates:)`). So these tests check what Swift adds (the options' keys,
// the server starting on https:// and speaking only TLS, the errors); calls over https with the
// test CA, the client certificate as `ctx.auth` and the handshake refusals are the same engine path
// tested from Rust (core/tests/integration/http_tls.rs), Python (tests/test_tls.py, with the
// official client) and Node (test/tls.test.mjs, with the official client).

@testable import FerroMCP
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

private typealias T = ServerTesting

final class TLSTests: XCTestCase {
    private func pki() throws -> String {
        guard let dir = ProcessInfo.processInfo.environment["FERROMCP_TEST_PKI"], !dir.isEmpty else {
            throw XCTSkip("FERROMCP_TEST_PKI is not set (tests/run-swift.sh makes it with tests/tls/make-test-pki.sh)")
        }
        return dir
    }

    private func whoamiServer() throws -> Server {
        let server = try Server(name: "tls-test", version: "1.0.0")
        try server.registerTool("whoami") { _, ctx in
            .text(ctx.auth?.subject ?? "anonymous")
        }
        return server
    }

    private func options(_ tls: TLSOptions) -> HTTPOptions {
        HTTPOptions(jsonResponse: true, stateless: true, tls: tls)
    }

    /// One JSON-RPC POST over URLSession: the HTTP status and the answer, or the error.
    private func post(_ url: String, _ body: Value) async -> Result<(Int, Value), Error> {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "POST"
        request.httpBody = Data(body.jsonText.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json, text/event-stream", forHTTPHeaderField: "Accept")
        request.setValue("2025-11-25", forHTTPHeaderField: "MCP-Protocol-Version")
        do {
            let (data, status): (Data, Int) = try await withCheckedThrowingContinuation { k in
                URLSession.shared.dataTask(with: request) { data, response, error in
                    if let error { return k.resume(throwing: error) }
                    k.resume(returning: (data ?? Data(), (response as? HTTPURLResponse)?.statusCode ?? 0))
                }.resume()
            }
            return .success((status, try Value(json: String(decoding: data, as: UTF8.self))))
        } catch {
            return .failure(error)
        }
    }

    private let callWhoami: Value = ["jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                     "params": ["name": "whoami", "arguments": [:]]]

    func testTLSOptionsBecomeTheEnginesTLSKeys() {
        let tls = TLSOptions(certificate: .file("/c.pem"), privateKey: .pem("KEY"), clientCA: .pem("CA"),
                             clientCertificateRequired: false, reloadInterval: .milliseconds(1500))
        XCTAssertEqual(HTTPOptions(tls: tls).value["tls"], [
            "certPath": "/c.pem", "keyPem": "KEY", "clientCaPem": "CA",
            "clientCertRequired": false, "reloadIntervalMs": 1500,
        ])
        XCTAssertNil(HTTPOptions().value["tls"])
    }

    func testAServerWithTLSServesHttpsAndOnlyTLS() async throws {
        let dir = try pki()
        let read = { (name: String) in try String(contentsOfFile: "\(dir)/\(name)", encoding: .utf8) }
        let server = try whoamiServer()
        for tls in [
            TLSOptions(certificate: .file("\(dir)/server.pem"), privateKey: .file("\(dir)/server.key")),
            TLSOptions(certificate: .pem(try read("server.pem")), privateKey: .pem(try read("server.key")),
                       clientCA: .pem(try read("ca.pem")), clientCertificateRequired: false),
        ] {
            let http = try await server.startHTTP(options: options(tls))
            XCTAssertEqual(http.url, "https://127.0.0.1:\(http.port)/mcp")
            // plain HTTP to the TLS port fails the handshake at its first byte: no HTTP answer
            let plain = await post(http.url.replacingOccurrences(of: "https:", with: "http:"), callWhoami)
            if case .success(let (code, answer)) = plain { XCTFail("plain HTTP was answered \(code): \(answer)") }
            try await http.close()
        }
        // the same server without tls answers plain HTTP (what the check above relies on)
        let http = try await server.startHTTP(options: HTTPOptions(jsonResponse: true, stateless: true))
        let (status, answer) = try await post(http.url, callWhoami).get()
        XCTAssertEqual(status, 200)
        XCTAssertEqual(answer["result"]?["content"]?[0]?["text"], "anonymous")
        try await http.close()
    }

    func testTLSOptionsThatDoNotLoadAreAnErrorAtStart() async throws {
        let dir = try pki()
        let server = try whoamiServer()
        let good = TLSOptions(certificate: .file("\(dir)/server.pem"), privateKey: .file("\(dir)/server.key"))
        var missing = good
        missing.certificate = .file("\(dir)/no-such.pem")
        let notLoaded = await T.mcpError { _ = try await server.startHTTP(options: self.options(missing)) }
        XCTAssertEqual(notLoaded?.code, McpError.Code.internalError.rawValue)
        XCTAssertTrue(notLoaded?.message.contains("cannot read \(dir)/no-such.pem") == true, "\(String(describing: notLoaded))")
        var mismatched = good
        mismatched.privateKey = .file("\(dir)/alice.key")
        let mismatch = await T.mcpError { _ = try await server.startHTTP(options: self.options(mismatched)) }
        XCTAssertTrue(mismatch?.message.contains("alice.key: keys may not be consistent") == true, "\(String(describing: mismatch))")
        var noCA = good
        noCA.clientCertificateRequired = true
        let combination = await T.mcpError { _ = try await server.startHTTP(options: self.options(noCA)) }
        XCTAssertEqual(combination?.code, McpError.Code.invalidParams.rawValue)
        XCTAssertTrue(combination?.message.contains("clientCertRequired needs clientCaPath") == true, "\(String(describing: combination))")
        XCTAssertThrowsError(try server.httpHandler(options: options(good))) { error in
            XCTAssertTrue("\(error)".contains("tls belongs to the server that owns the connections"), "\(error)")
        }
    }
}
