// One replica of an MCP server signed into through the OAuth proxy of the Swift binding's own
// listener (`server.startHTTP(options: HTTPOptions(redisURL:, oauthProxy: OAuthProxyOptions(...)))`),
// for tests/oauth/oidc_proxy.test.mjs (run by tests/run-oauth-proxy.sh): the same command line
// and tool as the Rust replica (core/examples/oauth_proxy_replica.rs) and the Python and Node
// ones (tests/oauth/replica.py, tests/oauth/replica.mjs), so that the one deployed test signs
// the TypeScript SDK in through three of these:
//
//   OAuthProxyReplica --port N --issuer URL --redis-url URL --upstream-issuer URL
//       --client-id ID --client-secret SECRET [--access-token-ttl SECONDS]
//       [--document-ca PEM_FILE]
//
// The proxy's records and the MCP sessions go to the server's `redisURL`; the upstream is found
// by OpenID discovery (`.oidc(issuer:...)`); `--document-ca` lets client metadata documents be
// fetched from this machine over TLS trusting that CA (tests only). Tool `whoami`: the caller's
// identity as the handler sees it (`ctx.auth`). Serves until killed.

import ExampleSupport
import FerroMCP
import Foundation

func usage(_ problem: String) -> Never {
    logLine("""
        OAuthProxyReplica: \(problem)
        usage: OAuthProxyReplica --port N --issuer URL --redis-url URL --upstream-issuer URL \
        --client-id ID --client-secret SECRET [--access-token-ttl SECONDS] [--document-ca PEM_FILE]
        """)
    exit(2)
}

/// The options given, by name (`--port` ...); exits 2 on an unknown one or a missing value.
func parseArguments() -> [String: String] {
    let names: Set = ["--port", "--issuer", "--redis-url", "--upstream-issuer", "--client-id",
                      "--client-secret", "--access-token-ttl", "--document-ca"]
    var given: [String: String] = [:]
    var args = CommandLine.arguments.dropFirst()
    while let name = args.popFirst() {
        guard names.contains(name) else { usage("unknown argument \(name)") }
        guard let value = args.popFirst() else { usage("\(name) needs a value") }
        given[name] = value
    }
    return given
}

let given = parseArguments()
let required = { (name: String) -> String in
    guard let v = given[name] else { usage("\(name) is required") }
    return v
}
guard let port = Int(required("--port")), (0...65535).contains(port) else { usage("bad --port") }
let issuer = required("--issuer")
let redisURL = required("--redis-url")
var accessTTL: Duration?
if let ttl = given["--access-token-ttl"] {
    guard let s = Int(ttl), s > 0 else { usage("bad --access-token-ttl \(ttl)") }
    accessTTL = .seconds(s)
}
var documents: ClientIDDocumentOptions?
if let path = given["--document-ca"] {
    guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else { usage("cannot read \(path)") }
    documents = ClientIDDocumentOptions(allowPrivateAddresses: true, rootCertificates: [pem])
}
guard let front = URL(string: issuer), let frontHost = front.host else { usage("bad --issuer \(issuer)") }
let frontAuthority = front.port.map { "\(frontHost):\($0)" } ?? frontHost

let server = try Server(name: "oauth-proxy-replica", version: "1.0")
try server.registerTool("whoami", description: "The caller's identity, as the proxy's token gives it") { _, ctx in
    let auth = ctx.auth
    let who: Value = [
        "subject": auth?.subject.map(Value.string) ?? .null,
        "clientId": auth?.clientId.map(Value.string) ?? .null,
        "scopes": auth.map { .array($0.scopes.map(Value.string)) } ?? .null,
        "audience": auth.map { .array($0.audience.map(Value.string)) } ?? .null,
        "upstreamToken": .bool(auth?.claims?["upstream_access_token"]?.stringValue != nil),
    ]
    return .text(who.jsonText)
}

do {
    let http = try await server.startHTTP(
        host: "127.0.0.1", port: port,
        options: HTTPOptions(
            allowedHosts: [frontAuthority],
            redisURL: redisURL,
            oauthProxy: OAuthProxyOptions(
                issuerURL: issuer, resourceURL: "\(issuer)/mcp",
                upstream: .oidc(issuer: required("--upstream-issuer"), clientID: required("--client-id"),
                                clientSecret: given["--client-secret"]),
                scopesSupported: ["mcp:tools"], accessTokenTTL: accessTTL,
                clientIDDocuments: documents)))
    logLine("OAuthProxyReplica: listening on port \(http.port)")
    await http.wait()
} catch {
    logLine("OAuthProxyReplica: \(message(of: error))")
    exit(1)
}
