// ServerTestSupport: what the Server* tests wait with: one-shot-or-more signals a handler sends
// and a test awaits with a deadline, a locked box for values handlers record, and the deadline
// itself. Namespaced (ServerTesting) so other test files can have helpers of the same names.

import FerroMCP
import Foundation
import XCTest

enum ServerTesting {
    /// A wait that took longer than its deadline.
    struct TimedOut: Error, CustomStringConvertible {
        let what: String
        var description: String { "timed out waiting for \(what)" }
    }

    /// Runs `body`, failing with `TimedOut` after `seconds` (the body is then cancelled).
    static func deadline<T: Sendable>(
        _ seconds: Double = 10, _ what: String,
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return nil
            }
            defer { group.cancelAll() }
            guard case .some(.some(let value)) = try await group.next() else {
                throw TimedOut(what: what)
            }
            return value
        }
    }

    /// Values sent from handlers, awaited in order by the test.
    final class Signal<T: Sendable>: Sendable {
        private let stream: AsyncStream<T>
        private let continuation: AsyncStream<T>.Continuation

        init() {
            (stream, continuation) = AsyncStream.makeStream()
        }

        func send(_ value: T) {
            continuation.yield(value)
        }

        /// The next value sent, waiting at most `seconds`.
        func next(within seconds: Double = 10, _ what: String = "a signal") async throws -> T {
            let stream = self.stream
            return try await deadline(seconds, what) {
                var it = stream.makeAsyncIterator()
                guard let value = await it.next() else { throw TimedOut(what: what) }
                return value
            }
        }
    }

    /// A value behind a lock, for handlers to record into.
    final class Box<T: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: T

        init(_ value: T) {
            stored = value
        }

        var value: T {
            lock.lock()
            defer { lock.unlock() }
            return stored
        }

        func update(_ body: (inout T) -> Void) {
            lock.lock()
            defer { lock.unlock() }
            body(&stored)
        }
    }

    /// The next notification with `method` on `client`'s stream, waiting at most 10 s.
    static func notification(_ client: Client, _ method: String) async throws -> ServerNotification {
        let stream = client.notifications
        return try await deadline(10, method) {
            for await n in stream where n.method == method { return n }
            throw TimedOut(what: "\(method) (the stream ended)")
        }
    }

    /// The `McpError` `body` throws (failing the test if it throws something else or nothing).
    static func mcpError(
        _ body: () async throws -> some Any, file: StaticString = #filePath, line: UInt = #line
    ) async -> McpError? {
        do {
            _ = try await body()
            XCTFail("expected an McpError, got a result", file: file, line: line)
        } catch let e as McpError {
            return e
        } catch {
            XCTFail("expected an McpError, got \(error)", file: file, line: line)
        }
        return nil
    }
}
