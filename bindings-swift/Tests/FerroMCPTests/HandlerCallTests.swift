// HandlerCallTests: where a server handler runs (HandlerCalls): on the engine's thread until it
// first suspends, on Swift's global executor after that; a handler that keeps yielding or
// waits on another call does not hold the engine up.

import FerroMCP
import Foundation
import XCTest

private typealias T = ServerTesting

/// The calling thread, as text. (Not its name: Swift's pool threads started from the engine's
/// thread inherit its name "ferromcp-worker" on Linux.)
private func threadID() -> String {
    String(describing: pthread_self())
}

final class HandlerCallTests: XCTestCase {
    func testAHandlerRunsOnTheEngineThreadUntilItSuspends() async throws {
        let server = try Server(name: "threads", version: "1.0.0")
        try server.registerTool("where") { _, _ in .text(threadID()) }
        try server.registerTool("whereAfterSleeping") { _, _ in
            let before = threadID()
            try await Task.sleep(for: .milliseconds(5))
            return .text("\(before) \(threadID())")
        }
        let client = try await Client.connect(to: server)

        // The engine has one thread (FERROMCP_SWIFT_WORKERS unset), and a call that reaches it
        // while it is idle starts there (the pauses let it go idle between calls).
        var starts = Set<String>()
        for _ in 0..<5 {
            try await Task.sleep(for: .milliseconds(10))
            starts.insert(try await client.callTool("where").text)
        }
        try await Task.sleep(for: .milliseconds(10))
        let resumed = try await client.callTool("whereAfterSleeping")
        let threads = resumed.text.split(separator: " ").map(String.init)
        XCTAssertEqual(threads.count, 2)
        starts.insert(threads[0])
        XCTAssertEqual(starts.count, 1, "every handler starts on the engine thread")
        XCTAssertNotEqual(threads[1], threads[0], "after a suspension a handler runs off the engine thread")
        await client.close()
    }

    func testWorkAHandlerHandsOffDoesNotRunOnTheEngineThread() async throws {
        let server = try Server(name: "handoff", version: "1.0.0")
        let handedOff = T.Signal<String>()
        try server.registerTool("handOff") { _, _ in
            Task.detached { handedOff.send(threadID()) }
            Task { handedOff.send(threadID()) }
            return .text(threadID())
        }
        let client = try await Client.connect(to: server)
        try await Task.sleep(for: .milliseconds(10))
        let engine = try await client.callTool("handOff").text
        let first = try await handedOff.next(within: 10, "the first task the handler started")
        let second = try await handedOff.next(within: 10, "the second task the handler started")
        XCTAssertNotEqual(first, engine, "a task the handler starts runs off the engine thread")
        XCTAssertNotEqual(second, engine, "a task the handler starts runs off the engine thread")
        await client.close()
    }

    func testHandlersWaitingOnEachOtherBothAnswer() async throws {
        let server = try Server(name: "pair", version: "1.0.0")
        let gate = T.Signal<String>()
        try server.registerTool("waiter") { _, _ in
            .text("got \(try await gate.next(within: 10, "the sender"))")
        }
        try server.registerTool("sender") { _, _ in
            gate.send("hello")
            return "sent"
        }
        let client = try await Client.connect(to: server)

        async let waited = client.callTool("waiter")
        try await Task.sleep(for: .milliseconds(20))
        let sent = try await client.callTool("sender")
        XCTAssertEqual(sent.text, "sent")
        let got = try await waited
        XCTAssertEqual(got.text, "got hello")
        await client.close()
    }

    func testAHandlerThatKeepsYieldingDoesNotHoldTheEngine() async throws {
        let server = try Server(name: "yield", version: "1.0.0")
        let started = T.Signal<Void>()
        let stopped = T.Signal<Bool>()
        try server.registerTool("spin") { _, _ in
            started.send(())
            while !Task.isCancelled { await Task.yield() }
            stopped.send(Task.isCancelled)
            return "stopped"
        }
        try server.registerTool("quick") { _, _ in "still serving" }
        let client = try await Client.connect(to: server)

        let spin = Task { try await client.callTool("spin") }
        try await started.next(within: 10, "the spinning tool to start")
        let quick = try await T.deadline(10, "another call while one spins") {
            try await client.callTool("quick")
        }
        XCTAssertEqual(quick.text, "still serving")
        spin.cancel()
        let cancelled = try await stopped.next(within: 10, "the spinning tool to see its cancellation")
        XCTAssertTrue(cancelled)
        await client.close()
    }
}
