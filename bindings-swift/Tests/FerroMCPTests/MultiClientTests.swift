// MultiClientTests: MultiClient.fromConfig over an `mcpServers` configuration, as Python's
// test_multi_client.py and Node's multi_client.test.mjs check theirs: two servers (a Swift server
// over Streamable HTTP, with a header from the configuration, and the repository's Rust
// everything-server over stdio, FERROMCP_TEST_SERVER) seen as one, names namespaced by server;
// one server keeps its names; a server that cannot start is named; configuration errors (read
// by the engine) name the key at fault.

@testable import FerroMCP
import Foundation
import XCTest

private typealias T = ServerTesting

final class MultiClientTests: XCTestCase {
    /// The everything server's binary (run-swift.sh always sets FERROMCP_TEST_SERVER).
    private func everythingServer() throws -> String {
        guard let path = ProcessInfo.processInfo.environment["FERROMCP_TEST_SERVER"], !path.isEmpty else {
            throw XCTSkip("FERROMCP_TEST_SERVER is not set: point it at target/debug/everything-server")
        }
        return path
    }

    /// A Swift server over Streamable HTTP: a tool answering the `X-Who` header, a resource and
    /// a prompt. Closed when the test ends.
    private func webServer() async throws -> HTTPServer {
        let server = try Server(name: "web", version: "1.0.0")
        try server.registerTool("whoami") { _, ctx in
            ToolResult(content: [.text(ctx.httpHeader("X-Who") ?? "nobody")])
        }
        try server.registerResource("note://x", name: "note") { uri, _ in .text("note at \(uri)") }
        try server.registerPrompt("greet") { _, _ in "hello" }
        let http = try await server.startHTTP()
        addTeardownBlock { try? await http.close() }
        return http
    }

    func testToolsResourcesAndPromptsOfTwoServersAreNamespaced() async throws {
        let everything = try everythingServer()
        let web = try await webServer()
        let config: Value = ["mcpServers": [
            "web": ["url": .string(web.url), "headers": ["X-Who": "configured"]],
            "cli": ["command": .string(everything), "args": ["--transport", "stdio"]],
            "off": ["command": "/nonexistent/x", "disabled": true],
        ]]
        let multi = try await MultiClient.fromConfig(config)
        do {
            XCTAssertEqual(multi.names, ["cli", "web"])
            let tools = try await multi.listTools().map(\.name)
            XCTAssertTrue(tools.contains("web_whoami"), "\(tools)")
            XCTAssertTrue(tools.contains("cli_test_simple_text"), "\(tools)")
            XCTAssertFalse(tools.contains("whoami"), "\(tools)")
            let whoami = try await multi.callTool("web_whoami")
            XCTAssertEqual(whoami.text, "configured")
            let simple = try await multi.callTool("cli_test_simple_text")
            XCTAssertEqual(simple.text, "This is a simple text response for testing.")

            let uris = try await multi.listResources().map(\.uri)
            XCTAssertTrue(uris.contains("web+note://x"), "\(uris)")
            XCTAssertTrue(uris.contains("cli+test://static-text"), "\(uris)")
            let read = try await multi.readResource("web+note://x")
            XCTAssertEqual(read.first?.uri, "web+note://x")
            XCTAssertEqual(read.first?.text, "note at note://x")

            let prompts = try await multi.listPrompts().map(\.name)
            XCTAssertTrue(prompts.contains("web_greet"), "\(prompts)")
            XCTAssertTrue(prompts.contains("cli_test_prompt_with_arguments"), "\(prompts)")
            let got = try await multi.getPrompt("cli_test_prompt_with_arguments", arguments: ["arg1": "x", "arg2": "y"])
            XCTAssertEqual(got.messages.first?.content.text, "Prompt with arguments: arg1='x', arg2='y'")

            XCTAssertEqual(try multi.client("web").serverInfo?["name"]?.stringValue, "web")
            let unknown = await T.mcpError { try await multi.callTool("zzz_echo") }
            XCTAssertEqual(unknown?.code, McpError.Code.invalidParams.rawValue)
            XCTAssertTrue(unknown?.message.contains("names no server") == true, "\(String(describing: unknown))")
            let bare = await T.mcpError { try await multi.readResource("note://x") }
            XCTAssertTrue(bare?.message.contains("namespaced URIs") == true, "\(String(describing: bare))")
        } catch {
            await multi.close()
            throw error
        }
        await multi.close()
    }

    func testOneServerKeepsItsNamesFromAFileOrJSONText() async throws {
        let web = try await webServer()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ferromcp-multi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("mcp.json")
        // VS Code's shape; a name that is no namespace is fine with one server.
        let text = #"{"servers": {"only_one": {"type": "http", "url": "\#(web.url)"}}}"#
        try text.write(to: file, atomically: true, encoding: .utf8)
        for multi in [try await MultiClient.fromConfig(path: file.path), try await MultiClient.fromConfig(json: text)] {
            XCTAssertEqual(multi.entries.first?.namePrefix, "")
            let tools = try await multi.listTools()
            XCTAssertEqual(tools.map(\.name), ["whoami"])
            let whoami = try await multi.callTool("whoami")
            XCTAssertEqual(whoami.text, "nobody")
            let read = try await multi.readResource("note://x")
            XCTAssertEqual(read.first?.uri, "note://x")
            await multi.close()
        }
    }

    func testAServerThatCannotStartIsNamed() async throws {
        let web = try await webServer()
        let config: Value = ["mcpServers": ["good": ["url": .string(web.url)], "bad": ["command": "/nonexistent/x"]]]
        let error = await T.mcpError { try await MultiClient.fromConfig(config) }
        XCTAssertTrue(error?.message.hasPrefix("server \"bad\" could not be connected: ") == true,
                      "\(String(describing: error))")
        XCTAssertEqual(error?.isTransportError, true)
    }

    func testConfigurationErrorsNameTheKey() throws {
        let cases: [(Value, String)] = [
            (["mcpServers": ["a": ["command": "x", "url": "http://h/mcp"]]], "mcpServers.a: has both \"command\" and \"url\""),
            (["mcpServers": ["a": ["command": "x", "args": ["-v", 2]]]], "mcpServers.a.args[1]: must be a string"),
            (["mcpServers": ["a": ["url": "ftp://h/mcp"]]], "mcpServers.a.url: \"ftp://h/mcp\" is not an http:// or https:// URL"),
            (["mcpServers": ["a": ["url": "http://h/mcp", "type": "websocket"]]], "mcpServers.a.type: unknown transport \"websocket\""),
            (["mcpServers": ["a": ["url": "http://h/mcp", "env": [:]]]], "mcpServers.a.env: applies to started servers"),
            (["mcpServers": ["a": ["command": "x", "headers": [:]]]], "mcpServers.a.headers: applies to URL servers"),
            (["mcpServers": ["a": ["command": "x", "env": ["K": ["v"]]]]], "mcpServers.a.env.K: must be a string"),
            (["mcpServers": ["a": ["command": "x", "cwd": 1]]], "mcpServers.a.cwd: must be a string"),
            (["mcpServers": ["a": [:]]], "mcpServers.a: needs \"command\""),
            (["mcpServers": ["a": ["command": "x"], "b_c": ["command": "y"]]], "mcpServers.b_c: the server name \"b_c\" is used as a namespace"),
            (["mcpServers": [:]], "mcpServers: no enabled server"),
            (["mcpServers": ["a": ["command": "x", "disabled": true]]], "mcpServers: no enabled server"),
            (["mcpServers": ["a": ["command": "x"]], "servers": [:]], "both \"mcpServers\" and \"servers\" are present"),
            (["mcpServers": ["a": 1]], "mcpServers.a: a server entry must be an object"),
            ([1], "the configuration must be a JSON object"),
        ]
        for (config, message) in cases {
            XCTAssertThrowsError(try MultiClient.parseConfig(config), message) { error in
                let text = (error as? ConfigError)?.description ?? "not a ConfigError: \(error)"
                XCTAssertTrue(text.hasPrefix(message), "\(text) does not start with \(message)")
            }
        }
        XCTAssertThrowsError(try MultiClient.parseConfig("/nonexistent/mcp.json")) { error in
            XCTAssertTrue((error as? ConfigError)?.message.hasPrefix("cannot read /nonexistent/mcp.json") == true, "\(error)")
        }
        XCTAssertThrowsError(try MultiClient.parseConfig(#"{"mcpServers": "#)) { error in
            XCTAssertTrue((error as? ConfigError)?.message.hasPrefix("not valid JSON") == true, "\(error)")
        }

        let entries = try MultiClient.parseConfig(["mcpServers": [
            "files": ["command": "npx", "args": ["-y", "srv"], "env": ["PORT": 8080], "cwd": "/srv", "autoApprove": []],
            "web": ["url": "https://h/mcp", "headers": ["Authorization": "Bearer t"]],
            "old": ["type": "sse", "url": "http://h/sse"],
        ]])
        XCTAssertEqual(entries.map(\.name), ["files", "old", "web"])
        let files = entries[0], old = entries[1], web = entries[2]
        XCTAssertEqual(files.transport, .stdio)
        XCTAssertEqual(files.command, "npx")
        XCTAssertEqual(files.arguments, ["-y", "srv"])
        XCTAssertEqual(files.environment, ["PORT": "8080"])
        XCTAssertEqual(files.currentDirectory, "/srv")
        XCTAssertEqual([files.namePrefix, files.uriPrefix], ["files_", "files+"])
        XCTAssertEqual(old.transport, .sse)
        XCTAssertEqual(web.transport, .http)
        XCTAssertEqual(web.url, "https://h/mcp")
        XCTAssertEqual(web.headers, ["Authorization": "Bearer t"])
    }
}
