// JWTTests: a server protected by the built-in JWT verifier (`ProtectedResource(..., jwt:)`,
// the test-only RSA key's JWKS given inline) accepts a good RS256 token and hands its claims to
// ctx.auth, and refuses a tampered and an expired one (401). The tokens are fixtures signed with
// that key (core/tests/fixtures/jwt-rsa-test-tokens.json): Foundation on Linux cannot sign RSA.

@testable import FerroMCP
import Foundation
import XCTest

private typealias T = ServerTesting

final class JWTTests: XCTestCase {
    private func fixture(_ name: String) throws -> Value {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../core/tests/fixtures").standardized
        return try Value(json: Data(contentsOf: dir.appendingPathComponent(name)))
    }

    func testJWTProtectedServerAcceptsAGoodTokenAndRefusesBadOnes() async throws {
        let key = try fixture("jwt-rsa-test-key.json")
        let tokens = try fixture("jwt-rsa-test-tokens.json")
        let jwks: Value = ["keys": [["kty": "RSA", "kid": key["kid"] ?? .null, "n": key["n"] ?? .null,
                                     "e": key["e"] ?? .null]]]
        let probe = try await Server(name: "probe", version: "1").startHTTP()
        let port = probe.port
        try await probe.close()
        let resource = "http://127.0.0.1:\(port)/mcp"
        let auth = ProtectedResource(
            resource: resource, authorizationServers: ["http://as.example"], requiredScopes: ["mcp"],
            jwt: JWTVerifier(jwks: jwks, audience: "http://mcp.example/mcp"))
        let server = try Server(name: "jwt-protected", version: "1.0.0")
        try server.registerTool("whoami") { _, ctx in
            guard let a = ctx.auth else { return .text("anonymous") }
            return .text("\(a.subject ?? "-")|\(a.scopes.joined(separator: " "))|\(a.claims?["tenant"]?.stringValue ?? "-")")
        }
        let http = try await server.startHTTP(port: port, auth: auth)

        let good = tokens["good"]?.stringValue ?? ""
        let client = try await Client.http(url: resource, headers: ["Authorization": "Bearer \(good)"])
        let r = try await client.callTool("whoami")
        XCTAssertEqual(r.text, "alice|mcp extra|t1")
        await client.close()

        // The payload changed after signing (sub: admin), and a token that expired in 2023.
        var parts = good.split(separator: ".").map(String.init)
        let forged = Data(#"{"iss":"http://as.example","sub":"admin","aud":"http://mcp.example/mcp","scope":"mcp","exp":4102444800}"#.utf8)
        parts[1] = forged.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let tampered = parts.joined(separator: ".")
        for (name, token) in [("tampered", tampered), ("expired", tokens["expired"]?.stringValue ?? "")] {
            let e = await T.mcpError {
                try await Client.http(url: resource, headers: ["Authorization": "Bearer \(token)"], legacyFallback: false)
            }
            XCTAssertEqual(e?.data?["httpStatus"]?.doubleValue, 401, "\(name): \(String(describing: e))")
        }
        try await http.close()

        // Bad verifier settings are refused when the server starts.
        let bad = ProtectedResource(resource: resource, authorizationServers: ["http://as.example"],
                                    jwt: JWTVerifier(jwks: jwks, algorithms: ["HS256"]))
        let e = await T.mcpError { try await Server(name: "x", version: "1").startHTTP(auth: bad) }
        XCTAssertEqual(e?.code, McpError.Code.invalidParams.rawValue, "\(String(describing: e))")
    }
}
