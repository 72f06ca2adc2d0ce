// HandlerCallTests: where a server handler runs (HandlerCalls): on the engine's thread until it
// first suspends, then on Swift's global executor. By default through a task executor
// preference (public API); with the opt-in private runtime hooks (PrivateRuntimeHooks;
// tests/run-swift.sh runs this class a second time with FERROMCP_SWIFT_PRIVATE_RUNTIME_HOOKS=1)
// through the global executor's enqueue hook. Either way a handler that suspends (a sleep, an
// actor, a continuation resumed elsewhere, a call back into the same engine), throws, is
// cancelled, keeps yielding or waits on another call answers, and does not hold the engine up.

import FerroMCP
import Foundation
import XCTest

private typealias T = ServerTesting

/// The calling thread, as text. (Not its name: Swift's pool threads started from the engine's
/// thread inherit its name "ferromcp-worker" on Linux.)
private func threadID() -> String {
    String(describing: pthread_self())
}

/// Whether handler calls can run on the engine's thread here: task executors (Linux, macOS 15,
/// iOS 18) or the opt-in hooks, unless FERROMCP_SWIFT_INLINE=0 starts every call on the global
/// executor.
private var inlineAvailable: Bool {
    if ProcessInfo.processInfo.environment["FERROMCP_SWIFT_INLINE"] == "0" { return false }
    if PrivateRuntimeHooks.isActive { return true }
    if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) { return true }
    return false
}

/// A server whose engine thread is known: the threads the timing hook ran on for `tools/call`
/// (on the task that served the request, i.e. the engine's thread).
private func watchedServer(_ name: String) throws -> (Server, T.Box<Set<String>>) {
    let server = try Server(name: name, version: "1.0.0")
    let engineThreads = T.Box<Set<String>>([])
    try server.use(.timing { event in
        if event.method == "tools/call" { engineThreads.update { $0.insert(threadID()) } }
    })
    return (server, engineThreads)
}

/// An actor a handler hops to.
private actor Tally {
    private var count = 0
    func bump() async -> Int {
        await Task.yield()
        count += 1
        return count
    }
}

private struct Boom: Error, CustomStringConvertible {
    var description: String { "boom" }
}

final class HandlerCallTests: XCTestCase {
    /// A handler starts on the engine's thread and leaves it at its first suspension: by
    /// default through the task executor (public API), with the private runtime hooks
    /// (`PrivateRuntimeHooks`, opt-in: tests/run-swift.sh runs this class again with
    /// FERROMCP_SWIFT_PRIVATE_RUNTIME_HOOKS=1) through the enqueue hook. The engine's thread is
    /// where the timing hook runs (on the task that served the request).
    func testAHandlerRunsOnTheEngineThreadUntilItSuspends() async throws {
        let hooks = PrivateRuntimeHooks.isActive
        let expected = ProcessInfo.processInfo.environment[PrivateRuntimeHooks.environmentVariable] == "1"
        XCTAssertEqual(hooks, expected, "the hooks are on exactly when asked for")
        let (server, engineThreads) = try watchedServer("threads")
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
        if inlineAvailable {
            XCTAssertEqual(starts, engineThreads.value, "every handler starts on the engine thread")
        } else {
            XCTAssertTrue(starts.isDisjoint(with: engineThreads.value), "no handler runs on the engine thread")
        }
        XCTAssertFalse(engineThreads.value.contains(threads[1]), "after a suspension a handler runs off the engine thread")
    }

    /// Tasks a handler starts (`Task`, `Task.detached`) and its child tasks (`async let`, which
    /// inherit a task executor preference) run off the engine's thread, while the handler
    /// itself started there.
    func testWorkAHandlerHandsOffDoesNotRunOnTheEngineThread() async throws {
        let (server, engineThreads) = try watchedServer("handoff")
        let handedOff = T.Signal<String>()
        try server.registerTool("handOff") { _, _ in
            Task.detached { handedOff.send(threadID()) }
            Task { handedOff.send(threadID()) }
            return .text(threadID())
        }
        try server.registerTool("child") { _, _ in
            let start = threadID()
            async let child = threadID()
            return .text("\(start) \(await child)")
        }
        let client = try await Client.connect(to: server)
        try await Task.sleep(for: .milliseconds(10))
        let handler = try await client.callTool("handOff").text
        let first = try await handedOff.next(within: 10, "the first task the handler started")
        let second = try await handedOff.next(within: 10, "the second task the handler started")
        try await Task.sleep(for: .milliseconds(10))
        let child = try await client.callTool("child").text.split(separator: " ").map(String.init)
        await client.close()
        let engine = try XCTUnwrap(engineThreads.value.first)
        XCTAssertEqual(engineThreads.value.count, 1)
        XCTAssertEqual(handler == engine, inlineAvailable, "the handler itself ran on the engine thread")
        XCTAssertNotEqual(first, engine, "a task the handler starts runs off the engine thread")
        XCTAssertNotEqual(second, engine, "a task the handler starts runs off the engine thread")
        XCTAssertEqual(child.count, 2)
        XCTAssertEqual(child.first == engine, inlineAvailable, "the handler itself ran on the engine thread")
        XCTAssertNotEqual(child.last, engine, "a child task runs off the engine thread")
    }

    /// Handlers that start on the engine's thread and then suspend in each way a handler can:
    /// a sleep, a hop to a busy actor, a continuation resumed on another thread, yields past the
    /// inline run's budget (16 jobs), and a call back into the same engine (whose answer needs
    /// the engine thread the handler started on). Each answers what it computed.
    func testHandlersThatSuspendAfterStartingInlineAnswer() async throws {
        let (server, engineThreads) = try watchedServer("suspends")
        let client = T.Box<Client?>(nil)
        let tally = Tally()
        try server.registerTool("sleep") { _, _ in
            let start = threadID()
            try await Task.sleep(for: .milliseconds(2))
            return .text("\(start) slept")
        }
        try server.registerTool("actor") { _, _ in
            let start = threadID()
            async let other = tally.bump()  // keeps the actor busy while the handler hops to it
            let mine = await tally.bump()
            let theirs = await other
            return .text("\(start) \(Set([mine, theirs]).count == 2 ? "counted" : "lost")")
        }
        try server.registerTool("continuation") { _, _ in
            let start = threadID()
            let value = await withCheckedContinuation { (c: CheckedContinuation<String, Never>) in
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(1)) { c.resume(returning: "resumed") }
            }
            return .text("\(start) \(value)")
        }
        try server.registerTool("yields") { _, _ in
            let start = threadID()
            for _ in 0..<40 { await Task.yield() }
            return .text("\(start) yielded")
        }
        try server.registerTool("inner") { _, _ in "inner" }
        try server.registerTool("nested") { _, _ in
            let start = threadID()
            guard let c = client.value else { throw Boom() }
            let inner = try await c.callTool("inner").text
            return .text("\(start) \(inner)")
        }
        let connected = try await Client.connect(to: server)
        client.update { $0 = connected }
        for (tool, answer) in [("sleep", "slept"), ("actor", "counted"), ("continuation", "resumed"),
                               ("yields", "yielded"), ("nested", "inner"), ("sleep", "slept")] {
            try await Task.sleep(for: .milliseconds(10))  // the engine goes idle: the call starts inline
            let text = try await T.deadline(10, tool) { try await connected.callTool(tool).text }
            let parts = text.split(separator: " ").map(String.init)
            XCTAssertEqual(parts.last, answer, tool)
            let engine = try XCTUnwrap(engineThreads.value.first)
            XCTAssertEqual(parts.first == engine, inlineAvailable, "\(tool) started on the engine thread")
        }
        XCTAssertEqual(engineThreads.value.count, 1)
        await connected.close()
    }

    /// What a handler throws, before or after its first suspension, answers as it does on any
    /// other path: a tool's failure as an `isError` result with its text, a prompt's `McpError`
    /// as that JSON-RPC error.
    func testHandlersThatThrowOnTheEngineThreadAnswerTheirError() async throws {
        let (server, engineThreads) = try watchedServer("throws")
        let started = T.Box<[String]>([])
        try server.registerTool("throwsAtOnce") { _, _ in
            started.update { $0.append(threadID()) }
            throw Boom()
        }
        try server.registerTool("throwsAfterSleeping") { _, _ in
            started.update { $0.append(threadID()) }
            try await Task.sleep(for: .milliseconds(2))
            throw McpError(.invalidParams, "late refusal")
        }
        try server.registerTool("ok") { _, _ in "fine" }
        try server.registerPrompt("refuses") { _, _ in throw McpError(.invalidParams, "no such prompt argument") }
        let client = try await Client.connect(to: server)

        try await Task.sleep(for: .milliseconds(10))
        let atOnce = try await client.callTool("throwsAtOnce")
        XCTAssertTrue(atOnce.isError)
        XCTAssertEqual(atOnce.text, "boom")
        try await Task.sleep(for: .milliseconds(10))
        let late = try await client.callTool("throwsAfterSleeping")
        XCTAssertTrue(late.isError)
        XCTAssertEqual(late.text, "late refusal")
        try await Task.sleep(for: .milliseconds(10))
        let e = await T.mcpError { try await client.getPrompt("refuses") }
        XCTAssertEqual(e?.code, McpError.Code.invalidParams.rawValue)
        XCTAssertEqual(e?.message, "no such prompt argument")
        let ok = try await client.callTool("ok")
        XCTAssertEqual(ok.text, "fine", "the engine still serves")
        await client.close()
        let engine = try XCTUnwrap(engineThreads.value.first)
        XCTAssertEqual(started.value.count, 2)
        for thread in started.value {
            XCTAssertEqual(thread == engine, inlineAvailable, "the throwing handler started on the engine thread")
        }
    }

    /// A call that started on the engine's thread and suspended is cancelled by the client: its
    /// task sees the cancellation (its sleep throws), and the engine goes on serving.
    func testCancellingACallThatStartedOnTheEngineThread() async throws {
        let (server, engineThreads) = try watchedServer("cancel")
        let started = T.Signal<String>()
        let ended = T.Signal<Bool>()
        try server.registerTool("sleepsLong") { _, _ in
            started.send(threadID())
            do {
                try await Task.sleep(for: .seconds(60))
                ended.send(false)
            } catch {
                ended.send(error is CancellationError)
            }
            return "woke"
        }
        try server.registerTool("quick") { _, _ in "still serving" }
        let client = try await Client.connect(to: server)

        try await Task.sleep(for: .milliseconds(10))
        let call = Task { try await client.callTool("sleepsLong") }
        let startThread = try await started.next(within: 10, "the long call to start")
        call.cancel()
        let cancelled = try await ended.next(within: 10, "the long call to see its cancellation")
        XCTAssertTrue(cancelled, "the handler's sleep was cancelled")
        let quick = try await T.deadline(10, "a call after the cancellation") { try await client.callTool("quick") }
        XCTAssertEqual(quick.text, "still serving")
        await client.close()
        let engine = try XCTUnwrap(engineThreads.value.first)
        XCTAssertEqual(startThread == engine, inlineAvailable, "the cancelled call started on the engine thread")
    }

    /// Many calls in flight at once, of handlers that answer at once, sleep, yield past the
    /// inline budget or throw: every one gets its own answer (the engine runs the ones that
    /// find it idle or quick inline, the rest on the global executor, and resumptions on either).
    func testManyCallsInFlightEachGetTheirAnswer() async throws {
        let server = try Server(name: "many", version: "1.0.0")
        try server.registerTool("echo", arguments: Value.self) { args, _ in
            .text(args["n"]?.intValue.map(String.init) ?? "?")
        }
        try server.registerTool("sleepy", arguments: Value.self) { args, _ in
            let n = args["n"]?.intValue ?? 0
            try await Task.sleep(for: .milliseconds(n % 3 + 1))
            return .text(String(n))
        }
        try server.registerTool("yields", arguments: Value.self) { args, _ in
            for _ in 0..<20 { await Task.yield() }
            return .text(args["n"]?.intValue.map(String.init) ?? "?")
        }
        try server.registerTool("throws", arguments: Value.self) { args, _ in
            throw McpError(.invalidParams, "refused \(args["n"]?.intValue ?? -1)")
        }
        let client = try await Client.connect(to: server)
        let tools = ["echo", "sleepy", "yields", "throws"]
        let answers = try await T.deadline(60, "400 calls in flight") {
            try await withThrowingTaskGroup(of: (Int, String, Bool).self) { group in
                for n in 0..<400 {
                    group.addTask {
                        let r = try await client.callTool(tools[n % 4], arguments: ["n": .int(n)])
                        return (n, r.text, r.isError)
                    }
                }
                var all: [Int: (String, Bool)] = [:]
                for try await (n, text, isError) in group { all[n] = (text, isError) }
                return all
            }
        }
        XCTAssertEqual(answers.count, 400)
        for n in 0..<400 {
            let expected = n % 4 == 3 ? ("refused \(n)", true) : (String(n), false)
            XCTAssertEqual(answers[n]?.0, expected.0, "call \(n)")
            XCTAssertEqual(answers[n]?.1, expected.1, "call \(n)")
        }
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
