// HandlerCallTests: where a server handler runs (HandlerCalls): by default on Swift's global
// executor; with the opt-in private runtime hooks (PrivateRuntimeHooks; tests/run-swift.sh runs
// this class a second time with FERROMCP_SWIFT_PRIVATE_RUNTIME_HOOKS=1) on the engine's thread
// until it first suspends, then on the global executor; either way a handler that keeps
// yielding or waits on another call does not hold the engine up.

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
    /// With the private runtime hooks (`PrivateRuntimeHooks`, opt-in: tests/run-swift.sh runs
    /// this class again with FERROMCP_SWIFT_PRIVATE_RUNTIME_HOOKS=1), a handler starts on the
    /// engine's thread and leaves it at its first suspension; without them (the default) it
    /// starts on Swift's global executor, never on the engine's thread. The engine's thread is
    /// where the timing hook runs (on the task that served the request).
    func testAHandlerRunsOnTheEngineThreadUntilItSuspends() async throws {
        let hooks = PrivateRuntimeHooks.isActive
        let expected = ProcessInfo.processInfo.environment[PrivateRuntimeHooks.environmentVariable] == "1"
        XCTAssertEqual(hooks, expected, "the hooks are on exactly when asked for")
        let server = try Server(name: "threads", version: "1.0.0")
        let engineThreads = T.Box<Set<String>>([])
        try server.use(.timing { event in
            if event.method == "tools/call" { engineThreads.update { $0.insert(threadID()) } }
        })
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
        await client.close()
        XCTAssertEqual(engineThreads.value.count, 1, "one engine thread: \(engineThreads.value)")
        if hooks {
            XCTAssertEqual(starts, engineThreads.value, "every handler starts on the engine thread")
        } else {
            XCTAssertTrue(starts.isDisjoint(with: engineThreads.value), "no handler runs on the engine thread")
        }
        XCTAssertFalse(engineThreads.value.contains(threads[1]), "after a suspension a handler runs off the engine thread")
    }

    func testWorkAHandlerHandsOffDoesNotRunOnTheEngineThread() async throws {
        let server = try Server(name: "handoff", version: "1.0.0")
        let engineThreads = T.Box<Set<String>>([])  // where the timing hook runs
        try server.use(.timing { event in
            if event.method == "tools/call" { engineThreads.update { $0.insert(threadID()) } }
        })
        let handedOff = T.Signal<String>()
        try server.registerTool("handOff") { _, _ in
            Task.detached { handedOff.send(threadID()) }
            Task { handedOff.send(threadID()) }
            return .text(threadID())
        }
        let client = try await Client.connect(to: server)
        try await Task.sleep(for: .milliseconds(10))
        let handler = try await client.callTool("handOff").text
        let first = try await handedOff.next(within: 10, "the first task the handler started")
        let second = try await handedOff.next(within: 10, "the second task the handler started")
        await client.close()
        let engine = try XCTUnwrap(engineThreads.value.first)
        XCTAssertEqual(engineThreads.value.count, 1)
        // With the private runtime hooks the handler itself ran on the engine thread.
        XCTAssertEqual(handler == engine, PrivateRuntimeHooks.isActive)
        XCTAssertNotEqual(first, engine, "a task the handler starts runs off the engine thread")
        XCTAssertNotEqual(second, engine, "a task the handler starts runs off the engine thread")
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
