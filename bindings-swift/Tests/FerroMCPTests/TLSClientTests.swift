// TLSClientTests: `Client.http(url:rootCertificates:)`, the Swift client trusting a private CA
// for https:// (the engine's client TLS, rustls, beside Mozilla's roots), against a ferromcp
// server serving https:// with a certificate of that CA. The PKI is made by
// tests/tls/make-test-pki.sh, run by tests/run-swift.sh, which passes its directory as
// FERROMCP_TEST_PKI (the same scenarios as bindings-node/test/tls_client.test.mjs and
// bindings-python/tests/test_https.py).

@testable import FerroMCP
import Foundation
import XCTest

private typealias T = ServerTesting

final class TLSClientTests: XCTestCase {
    private func pki() throws -> String {
        guard let dir = ProcessInfo.processInfo.environment["FERROMCP_TEST_PKI"], !dir.isEmpty else {
            throw XCTSkip("FERROMCP_TEST_PKI is not set (tests/run-swift.sh makes it with tests/tls/make-test-pki.sh)")
        }
        return dir
    }

    /// A server serving https:// with the test CA's certificate for 127.0.0.1, and its PKI.
    private func httpsServer() async throws -> (HTTPServer, String) {
        let dir = try pki()
        let server = try Server(name: "tls-client-test", version: "1.0.0")
        try server.registerTool("hello") { _, _ in .text("hello over https") }
        let tls = TLSOptions(certificate: .file("\(dir)/server.pem"), privateKey: .file("\(dir)/server.key"))
        let http = try await server.startHTTP(options: HTTPOptions(tls: tls))
        XCTAssertTrue(http.url.hasPrefix("https://"), http.url)
        return (http, dir)
    }

    func testAClientTrustingThePrivateCACallsAToolOverHttps() async throws {
        let (http, dir) = try await httpsServer()
        let text = try String(contentsOfFile: "\(dir)/ca.pem", encoding: .utf8)
        for roots: [PEMSource] in [[.file("\(dir)/ca.pem")], [.file("\(dir)/other-ca.pem"), .pem(text)]] {
            let client = try await Client.http(url: http.url, rootCertificates: roots)
            let r = try await client.callTool("hello")
            XCTAssertEqual(r.text, "hello over https")
            await client.close()
        }
        try await http.close()
    }

    func testWithoutThePrivateCAOrWithAnotherCATheServerIsRefused() async throws {
        let (http, dir) = try await httpsServer()
        let plain = await T.mcpError { try await Client.http(url: http.url) }
        XCTAssertEqual(plain?.isTransportError, true, "\(String(describing: plain))")
        XCTAssertTrue(plain?.message.contains("certificate") == true || plain?.message.contains("UnknownIssuer") == true,
                      "\(String(describing: plain))")
        let other = await T.mcpError { try await Client.http(url: http.url, rootCertificates: [.file("\(dir)/other-ca.pem")]) }
        XCTAssertEqual(other?.isTransportError, true, "\(String(describing: other))")
        try await http.close()
    }

    func testARootThatIsNotACertificateOrAFileThatCannotBeReadIsAnError() async throws {
        let (http, dir) = try await httpsServer()
        let notPEM = await T.mcpError { try await Client.http(url: http.url, rootCertificates: [.pem("not a certificate")]) }
        XCTAssertTrue(notPEM?.message.lowercased().contains("certificate") == true, "\(String(describing: notPEM))")
        let missing = await T.mcpError {
            try await Client.http(url: http.url, rootCertificates: [.file("\(dir)/no-such.pem")])
        }
        XCTAssertEqual(missing?.code, McpError.Code.invalidParams.rawValue)
        XCTAssertTrue(missing?.message.contains("no-such.pem") == true, "\(String(describing: missing))")
        try await http.close()
    }
}
