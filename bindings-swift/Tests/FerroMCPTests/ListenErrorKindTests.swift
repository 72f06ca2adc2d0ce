// ListenErrorKindTests: a subscription's end keeps the engine's kind of the error
// (`ferromcp_embed::error_json`), so a server's own -32000 ending subscriptions/listen is the
// general McpError with code -32000, not a closed connection (which has the same code).

import FerroMCP
import Foundation
import XCTest

final class ListenErrorKindTests: XCTestCase {
    /// The package's ListenStdioServer executable, which SwiftPM builds next to the tests.
    private func listenStdioServer() throws -> String {
        let dirs = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL,
            Bundle(for: ListenErrorKindTests.self).bundleURL.deletingLastPathComponent(),
        ]
        for dir in dirs {
            let path = dir.appendingPathComponent("ListenStdioServer").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw McpError(.internalError, "ListenStdioServer not found in \(dirs.map(\.path))")
    }

    /// `sub.next()`, or nil after `seconds` (the subscription is then cancelled by `next`'s task).
    private func next(_ sub: Subscription, within seconds: Double) async -> ServerNotification? {
        await withTaskGroup(of: ServerNotification?.self) { group in
            let task = Task { await sub.next() }
            group.addTask { await task.value }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = await group.next() ?? nil
            task.cancel()
            group.cancelAll()
            return first
        }
    }

    func testAServersOwnMinus32000EndingASubscriptionIsNotAClosedConnection() async throws {
        let path = try listenStdioServer()
        var options = ClientOptions()
        options.protocolMode = .auto
        let client = try await Client.stdio(command: path, arguments: ["--error-tool"], options: options)
        XCTAssertEqual(client.protocolVersion, "2026-07-28")
        let sub = try await client.listen(ListenFilter(toolsListChanged: true))
        let stopped = try await client.callTool("stop")
        XCTAssertEqual(stopped.text, "stopping")
        let last = await next(sub, within: 10)
        XCTAssertNil(last)
        XCTAssertTrue(sub.isEnded)
        XCTAssertNil(sub.result)
        let error = try XCTUnwrap(sub.error)
        XCTAssertEqual(error.code, -32000)
        XCTAssertEqual(error.message, "the server ends this subscription itself")
        XCTAssertEqual(error.data, ["why": "maintenance"])
        XCTAssertFalse(error.isTransportError, "a server's own -32000 is not a closed connection")
        await client.close()
    }
}
