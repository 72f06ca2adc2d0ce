// TrustedProxiesTests: `.rateLimit(by: [.clientAddress], addressHeader:, trustedProxies:)`: the
// forwarding header is believed only on connections from a trusted proxy, and its rightmost
// address that is not a trusted proxy is the client. Over HTTP (startHTTP) from 127.0.0.1 with
// X-Forwarded-For; the same scenario as bindings-python/tests/test_trusted_proxies.py and
// core's tests/integration/client_address.rs.

@testable import FerroMCP
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

final class TrustedProxiesTests: XCTestCase {
    private static let initialize = Data(#"""
    {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
    """#.utf8)

    /// The status of an initialize POST from this host with `X-Forwarded-For: forwarded`.
    private func status(_ url: String, _ forwarded: String) async throws -> Int {
        var req = URLRequest(url: URL(string: url)!)
        req.httpMethod = "POST"
        req.setValue("application/json", forHTTPHeaderField: "Content-Type")
        req.setValue("application/json, text/event-stream", forHTTPHeaderField: "Accept")
        req.setValue(forwarded, forHTTPHeaderField: "X-Forwarded-For")
        req.httpBody = Self.initialize
        return try await withCheckedThrowingContinuation { k in
            URLSession.shared.dataTask(with: req) { _, response, error in
                if let error { return k.resume(throwing: error) }
                k.resume(returning: (response as? HTTPURLResponse)?.statusCode ?? -1)
            }.resume()
        }
    }

    private func limited(_ trusted: [String]) throws -> Server {
        let server = try Server(name: "proxied", version: "1")
        try server.use(.rateLimit(
            limit: 2, window: .seconds(60), by: [.clientAddress],
            addressHeader: "x-forwarded-for", trustedProxies: trusted
        ))
        return server
    }

    func testTheForwardingHeaderIsReadOnlyFromTrustedProxies() async throws {
        // 127.0.0.1 is not a trusted proxy: every request is the peer's, whatever the header says.
        let untrusted = try await limited(["10.0.0.0/8"]).startHTTP(options: HTTPOptions(jsonResponse: true))
        var statuses: [Int] = []
        for forwarded in ["198.51.100.1", "198.51.100.2", "198.51.100.3"] {
            statuses.append(try await status(untrusted.url, forwarded))
        }
        XCTAssertEqual(statuses, [200, 200, 429])
        try await untrusted.close()
        // 127.0.0.1 trusted: each forwarded client has its own bucket, and an entry the client
        // wrote left of its own address does not move it to another bucket.
        let trusted = try await limited(["127.0.0.1", "10.0.0.0/8"]).startHTTP(options: HTTPOptions(jsonResponse: true))
        statuses = []
        for forwarded in ["198.51.100.1", "198.51.100.1, 10.0.0.9", "6.6.6.6, 198.51.100.1", "198.51.100.2"] {
            statuses.append(try await status(trusted.url, forwarded))
        }
        XCTAssertEqual(statuses, [200, 200, 429, 200])
        try await trusted.close()
    }

    func testATrustedProxyThatIsNotARangeIsRefused() throws {
        XCTAssertThrowsError(try limited(["10.0.0.0/33"])) { error in
            XCTAssertTrue("\(error)".contains("10.0.0.0/33"), "\(error)")
        }
    }
}
