// ClientStdioTests: the Client over stdio against a real server process (the repository's
// conformance "everything" server; FERROMCP_TEST_SERVER names its binary, e.g.
// target/debug/everything-server from `cargo build -p ferromcp-examples`), the end of its
// process tree on close(), and transport errors (spawn failure, a server that exits or dies).

import Foundation
import XCTest
@testable import FerroMCP
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

final class ClientStdioTests: XCTestCase {
    /// The everything server's binary, or a skip saying how to provide it.
    private func everythingServer() throws -> String {
        guard let path = ProcessInfo.processInfo.environment["FERROMCP_TEST_SERVER"], !path.isEmpty else {
            throw XCTSkip("""
                FERROMCP_TEST_SERVER is not set: point it at an MCP "everything" server binary \
                (e.g. `cargo build -p ferromcp-examples --bin everything-server`, then \
                FERROMCP_TEST_SERVER=$PWD/target/debug/everything-server) to run the stdio tests
                """)
        }
        guard FileManager.default.isExecutableFile(atPath: path) else {
            XCTFail("FERROMCP_TEST_SERVER=\(path) is not an executable file")
            throw XCTSkip("no server binary")
        }
        return path
    }

    private func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ferromcp-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return dir
    }

    /// A server on stdio (a shell script) answering `tools/call` with a 5 MB text.
    private static let bigResultServer = #"""
        while IFS= read -r line; do
          id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
          [ -z "$id" ] && continue
          case "$line" in
            *'"initialize"'*)
              v=$(printf '%s' "$line" | sed -n 's/.*"protocolVersion":"\([^"]*\)".*/\1/p')
              printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"%s","capabilities":{"tools":{}},"serverInfo":{"name":"big","version":"1"}}}\n' "$id" "$v" ;;
            *)
              printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"' "$id"
              head -c 5000000 /dev/zero | tr '\0' x
              printf '"}]}}\n' ;;
          esac
        done
        """#

    func testMaxMessageSizeReachesTheStdioTransport() async throws {
        let client = try await Client.stdio(
            command: "/bin/sh", arguments: ["-c", Self.bigResultServer],
            options: .init(maxMessageSize: 16 * 1024 * 1024))
        let result = try await client.callTool("big")
        XCTAssertEqual(result.content.first?.text?.count, 5_000_000)
        await client.close()
    }

    func testTypedCallsOverStdio() async throws {
        let server = try everythingServer()
        let client = try await Client.stdio(command: server, options: .init(
            sampling: { params, _ in
                let q = params["messages"]?[0]?["content"]?["text"]?.stringValue ?? ""
                return ["role": "assistant", "content": ["type": "text", "text": .string("echo \(q)")], "model": "m"]
            },
            elicitation: { _, _ in ElicitResult(action: .accept, content: ["username": "ada", "email": "ada@example.com"]) }))
        let seen = NotificationLog(client)

        XCTAssertNotNil(client.serverInfo?["name"]?.stringValue)
        try await client.ping()
        let tools = try await client.listAllTools()
        XCTAssertTrue(tools.contains { $0.name == "test_simple_text" }, "\(tools.map(\.name))")

        let simple = try await client.callTool("test_simple_text")
        XCTAssertEqual(simple.text, "This is a simple text response for testing.")
        let image = try await client.callTool("test_image_content")
        guard case .image(let data, "image/png", _, _)? = image.content.first else {
            return XCTFail("expected an image, got \(image.raw)")
        }
        XCTAssertFalse(data.isEmpty)
        let failing = try await client.callTool("test_error_handling")
        XCTAssertTrue(failing.isError)

        let updates = Locked<[ProgressUpdate]>([])
        _ = try await client.callTool("test_tool_with_progress",
                                      options: .init(onProgress: { p in updates.withLock { $0.append(p) } }))
        try await eventually { updates.value.count == 3 }
        XCTAssertEqual(updates.value.map(\.progress), [0, 50, 100])

        let sampled = try await client.callTool("test_sampling", arguments: ["prompt": "hi"])
        XCTAssertEqual(sampled.text, "LLM response: echo hi")
        let elicited = try await client.callTool("test_elicitation", arguments: ["message": "who?"])
        XCTAssertTrue(elicited.text.contains("action=accept"), elicited.text)
        XCTAssertTrue(elicited.text.contains("ada@example.com"), elicited.text)

        try await client.setLoggingLevel(.debug)
        _ = try await client.callTool("test_tool_with_logging")
        try await seen.wait(count: 3, of: ServerNotification.Method.logMessage)

        let text = try await client.readResource("test://static-text")
        XCTAssertEqual(text.first?.uri, "test://static-text")
        XCTAssertNotNil(text.first?.text)
        let templates = try await client.listAllResourceTemplates()
        XCTAssertEqual(templates.first?.uriTemplate, "test://template/{id}/data")
        let prompts = try await client.listAllPrompts()
        XCTAssertFalse(prompts.isEmpty)

        await client.close()
        try await eventually { seen.finished }
    }

    func testCloseEndsTheServerProcessTree() async throws {
        let server = try everythingServer()
        let dir = try temporaryDirectory()
        let pidFile = dir.appendingPathComponent("server.pid").path
        // The shell starts a grandchild (`sleep`), writes both pids, then becomes the server.
        let script = #"sleep 300 </dev/null >/dev/null 2>&1 & echo $! > "$0.grandchild"; echo $$ > "$0"; exec "$1""#
        let client = try await Client.stdio(command: "/bin/sh", arguments: ["-c", script, pidFile, server],
                                            environment: ["FERROMCP_TEST": "1"], currentDirectory: dir.path)
        try await client.ping()
        let pid = try readPid(pidFile)
        let grandchild = try readPid(pidFile + ".grandchild")
        XCTAssertFalse(processIsGone(pid))
        XCTAssertFalse(processIsGone(grandchild))

        await client.close()
        try await eventually(timeout: .seconds(15), "the server to exit") { processIsGone(pid) }
        try await eventually(timeout: .seconds(15), "its child to exit") { processIsGone(grandchild) }
    }

    func testReleasingTheClientEndsTheServer() async throws {
        let server = try everythingServer()
        let dir = try temporaryDirectory()
        let pidFile = dir.appendingPathComponent("server.pid").path
        var client: Client? = try await Client.stdio(command: "/bin/sh",
                                                     arguments: ["-c", #"echo $$ > "$0"; exec "$1""#, pidFile, server])
        let seen = NotificationLog(client!)
        try await client!.ping()
        let pid = try readPid(pidFile)
        XCTAssertFalse(processIsGone(pid))
        client = nil
        try await eventually(timeout: .seconds(15), "the server to exit") { processIsGone(pid) }
        try await eventually { seen.finished }
    }

    func testEnvironmentAndWorkingDirectoryReachTheChild() async throws {
        let server = try everythingServer()
        let dir = try temporaryDirectory()
        let script = #"echo "$GREETING" > seen-env; pwd > seen-cwd; grep SigIgn /proc/$$/status > seen-sigign; exec "$0""#
        let client = try await Client.stdio(command: "/bin/sh", arguments: ["-c", script, server],
                                            environment: ["GREETING": "hello from swift"],
                                            currentDirectory: dir.path)
        try await client.ping()
        await client.close()
        let env = try String(contentsOf: dir.appendingPathComponent("seen-env"), encoding: .utf8)
        XCTAssertEqual(env.trimmingCharacters(in: .newlines), "hello from swift")
        let cwd = try String(contentsOf: dir.appendingPathComponent("seen-cwd"), encoding: .utf8)
        XCTAssertEqual(URL(fileURLWithPath: cwd.trimmingCharacters(in: .newlines)).resolvingSymlinksInPath().path,
                       dir.resolvingSymlinksInPath().path)
        // The client ignores SIGPIPE in this process (see Client.stdio); the child must not
        // inherit that.
        let sigign = try String(contentsOf: dir.appendingPathComponent("seen-sigign"), encoding: .utf8)
        let mask = try XCTUnwrap(UInt64(sigign.split(separator: "\t").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "", radix: 16), sigign)
        XCTAssertEqual(mask & (1 << (UInt64(SIGPIPE) - 1)), 0, "SIGPIPE is ignored in the server: \(sigign)")
    }

    func testServerDyingIsATransportError() async throws {
        let server = try everythingServer()
        let dir = try temporaryDirectory()
        let pidFile = dir.appendingPathComponent("server.pid").path
        let client = try await Client.stdio(command: "/bin/sh", arguments: ["-c", #"echo $$ > "$0"; exec "$1""#, pidFile, server])
        let seen = NotificationLog(client)
        try await client.ping()
        let pid = try readPid(pidFile)
        XCTAssertEqual(kill(pid, SIGKILL), 0)
        // A call already under way when the server died, or any later one, fails.
        let failure = Locked<McpError?>(nil)
        try await eventually(timeout: .seconds(10), "a call to fail") {
            do {
                try await client.ping()
                return false
            } catch {
                failure.set(error as? McpError ?? McpError(.internalError, "not an McpError: \(error)"))
                return true
            }
        }
        let e = try XCTUnwrap(failure.value)
        XCTAssertTrue(e.isTransportError, "\(e)")
        await assertTransportError { _ = try await client.listTools() }
        await client.close()
        try await eventually { seen.finished }
    }

    // These need no server binary.

    func testSpawnFailureIsATransportError() async throws {
        let start = ContinuousClock.now
        do {
            _ = try await Client.stdio(command: "/nonexistent/mcp-server", arguments: ["--flag"])
            XCTFail("spawning a missing program must fail")
        } catch let e as McpError {
            XCTAssertTrue(e.isTransportError, "\(e)")
            XCTAssertTrue(e.message.contains("/nonexistent/mcp-server"), e.message)
        }
        do {
            _ = try await Client.stdio(command: "/bin/sh", currentDirectory: "/nonexistent-directory")
            XCTFail("a missing working directory must fail")
        } catch let e as McpError {
            XCTAssertTrue(e.isTransportError, "\(e)")
        }
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(10))
    }

    func testServerExitingBeforeInitializeIsATransportError() async throws {
        for script in ["exit 3", "echo 'this is not JSON-RPC'; exit 0", "cat >/dev/null & exec 1>&-; wait"] {
            let start = ContinuousClock.now
            do {
                _ = try await Client.stdio(command: "/bin/sh", arguments: ["-c", script],
                                           options: .init(requestTimeout: .seconds(20)))
                XCTFail("\(script): a server that exits cannot initialize")
            } catch let e as McpError {
                XCTAssertTrue(e.isTransportError, "\(script): \(e)")
            }
            XCTAssertLessThan(ContinuousClock.now - start, .seconds(15), script)
        }
    }
}

/// Asserts that `body` throws an `McpError` that is a transport error.
func assertTransportError(file: StaticString = #filePath, line: UInt = #line, _ body: () async throws -> Void) async {
    do {
        try await body()
        XCTFail("expected a transport error, got success", file: file, line: line)
    } catch let e as McpError {
        XCTAssertTrue(e.isTransportError, "\(e)", file: file, line: line)
    } catch {
        XCTFail("expected a transport error, got \(error)", file: file, line: line)
    }
}

/// Reads a pid written by a test's shell wrapper.
private func readPid(_ path: String) throws -> pid_t {
    let text = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    return try XCTUnwrap(pid_t(text), "pid file \(path): \(text)")
}

/// Whether process `pid` has ended (gone, or a zombie waiting for a parent that is not us).
func processIsGone(_ pid: pid_t) -> Bool {
    if kill(pid, 0) != 0 { return errno == ESRCH }
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")")
    else { return false }
    return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
}
