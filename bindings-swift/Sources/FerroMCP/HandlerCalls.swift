// HandlerCalls: how the engine runs a server handler closure (the Swift half of the crossing
// described in bindings-swift/src/handler.rs). The engine calls a handler's `start` on its own
// thread; `HandlerCalls.start` makes the closure's task and, when the engine asks for it
// (`inline`: it was idle) and task executors exist (Swift 6 runtime: Linux, macOS 15, iOS 18),
// runs it right there until it first suspends. A handler that never suspends has then answered
// before `start` returns: no thread hop, no wake-up. Otherwise, and after a suspension, the
// task runs on Swift's global executor, as any task does.

import FerroMCPNative
import Foundation

/// What a handler call answers the engine.
enum HandlerAnswer: Sendable {
    /// JSON text of a value the engine shapes into the request's result.
    case json(String)
    /// A tool result of one text block (`isError` when set), which the engine builds without
    /// JSON: the most common answer costs no text to write here and none to parse there.
    case toolText(String, isError: Bool)
}

extension ToolResult {
    /// This result as the engine takes it: one plain text block without structured content or
    /// `_meta` as `toolText`, anything else as the JSON of a `CallToolResult`.
    var answer: HandlerAnswer {
        if content.count == 1, structuredContent == nil, meta == nil,
           case .text(let text, let annotations) = content[0], annotations == nil {
            return .toolText(text, isError: isError)
        }
        return .json(value.jsonText)
    }
}

enum HandlerCalls {
    /// Starts `body` for one engine call (`inline`: on this thread until it first suspends) and
    /// answers `context` with what it returns or throws (an `FfiError`; anything else is an
    /// internal error). Returns 0 when the answer was given before returning, else a handle the
    /// engine passes to `end(_:)` once.
    static func start(_ context: NativeContext, inline: Bool,
                      _ body: @escaping @Sendable () async throws -> HandlerAnswer) -> UInt64 {
        if inline, #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) {
            let executor = InlineExecutor()
            let task = Task(executorPreference: executor) {
                await answer(context, body)
                executor.answered()
            }
            if executor.runInline() { return 0 }
            return handle(of: task)
        }
        return handle(of: Task { await answer(context, body) })
    }

    /// The engine is done with call `handle` (answered, or cancelled by the peer or the session
    /// ending): cancels its task if it still runs and lets the handle go.
    static func end(_ handle: UInt64) {
        guard let pointer = UnsafeRawPointer(bitPattern: UInt(handle)) else { return }
        Unmanaged<RunningCall>.fromOpaque(pointer).takeRetainedValue().task.cancel()
    }

    private static func answer(_ context: NativeContext,
                               _ body: @Sendable () async throws -> HandlerAnswer) async {
        do {
            switch try await body() {
            case .json(let text): context.answer(result: text)
            case .toolText(let text, let isError): context.answerToolText(text: text, isError: isError)
            }
        } catch let FfiError.Mcp(code, message, data) {
            context.fail(code: code, message: message, data: data)
        } catch let e as HandlerException {
            context.failException(message: e.message)
        } catch {
            context.fail(code: Int32(McpError.Code.internalError.rawValue),
                         message: "Swift handler failed: \(error)", data: nil)
        }
    }

    private static func handle(of task: Task<Void, Never>) -> UInt64 {
        UInt64(UInt(bitPattern: Unmanaged.passRetained(RunningCall(task)).toOpaque()))
    }
}

/// A call's task, kept alive by the engine's handle.
private final class RunningCall {
    let task: Task<Void, Never>
    init(_ task: Task<Void, Never>) { self.task = task }
}

/// The task executor of one handler call: while `runInline()` runs, the jobs of the task run
/// on the calling (engine) thread; afterwards every job goes to Swift's global executor. Jobs
/// are the task's slices between suspensions (and those of its child tasks).
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
private final class InlineExecutor: TaskExecutor, @unchecked Sendable {
    /// Guards the fields below.
    private let lock = NSLock()
    private var inline = true
    private var first: UnownedJob?
    private var more: [UnownedJob] = []
    private var done = false

    /// Jobs run inline at most, so a task that keeps yielding cannot hold the engine thread.
    private static let budget = 16

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        lock.lock()
        if inline {
            if first == nil { first = job } else { more.append(job) }
            lock.unlock()
            return
        }
        lock.unlock()
        globalConcurrentExecutor.enqueue(ExecutorJob(job))
    }

    /// The task answered (called by the task itself).
    func answered() {
        lock.lock()
        done = true
        lock.unlock()
    }

    /// Runs the queued jobs on this thread until there are none (or the budget is spent), then
    /// sends every later one to the global executor. Returns whether the task had answered.
    func runInline() -> Bool {
        var left = Self.budget
        while true {
            lock.lock()
            var job = first
            first = nil
            if job == nil, !more.isEmpty { job = more.removeFirst() }
            if job == nil || left == 0 {
                inline = false
                var rest = more
                more = []
                if let job { rest.insert(job, at: 0) }
                let answered = done
                lock.unlock()
                for j in rest { globalConcurrentExecutor.enqueue(ExecutorJob(j)) }
                return answered
            }
            lock.unlock()
            left -= 1
            job!.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
