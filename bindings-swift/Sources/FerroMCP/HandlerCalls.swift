// HandlerCalls: how the engine runs a server handler closure (the Swift half of the crossing
// described in bindings-swift/src/handler.rs). The engine calls a handler's `start` on its own
// thread; `HandlerCalls.start` makes the closure's task and, when the engine asks for it
// (`inline`: it was idle) and task executors exist (Swift 6 runtime: Linux, macOS 15, iOS 18),
// runs it right there until it first suspends. A handler that never suspends has then answered
// before `start` returns: no thread hop, no wake-up. Otherwise, and after a suspension, the
// task runs on Swift's global executor, as any task does.
//
// The inline machinery costs no allocation and no lock per call: one task executor for all
// calls, and the state of the inline run in a per-thread record only its thread touches
// (`InlineRun`), since everything that runs inline runs on the engine thread that started it.

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
        if inline, #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *),
           let run = InlineRun.begin() {
            let call = run.call
            let task = Task(executorPreference: InlineExecutor.shared) {
                await answer(context, body)
                InlineRun.answered(call)
            }
            if InlineExecutor.shared.runInline(run) { return 0 }
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

/// The state of the inline run of one engine thread (one record per thread that ever ran a
/// call inline, kept for the thread's life: the engine's threads live as long as the process).
/// Only its own thread reads or writes it, so it needs no lock.
final class InlineRun {
    /// Whether a call is running inline on this thread now (its jobs go to `jobs`).
    fileprivate var active = false
    /// The number of the call running inline (the latest one started on this thread).
    fileprivate var call: UInt64 = 0
    /// Whether call `call` answered on this thread during its inline run.
    fileprivate var answered = false
    /// The jobs enqueued on this thread during the inline run, not yet run.
    fileprivate var jobs: [UnownedJob] = []

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "no thread-specific key left")
        return key
    }()

    /// This thread's record, if it has one.
    fileprivate static var current: InlineRun? {
        guard let p = pthread_getspecific(key) else { return nil }
        return Unmanaged<InlineRun>.fromOpaque(p).takeUnretainedValue()
    }

    /// Starts an inline run on this thread (numbering its call), or nil when one is already
    /// running here (a handler that made the engine start another handler on its thread: that
    /// one starts on the global executor).
    fileprivate static func begin() -> InlineRun? {
        let run: InlineRun
        if let existing = current {
            run = existing
        } else {
            run = InlineRun()
            pthread_setspecific(key, Unmanaged.passRetained(run).toOpaque())
        }
        if run.active { return nil }
        run.active = true
        run.call &+= 1
        run.answered = false
        return run
    }

    /// Call `call` answered: recorded when that happened inside its own inline run (on its
    /// engine thread, before the run ended).
    fileprivate static func answered(_ call: UInt64) {
        guard let run = current, run.active, run.call == call else { return }
        run.answered = true
    }
}

/// The task executor of handler calls started inline: a job enqueued on an engine thread while
/// it runs a call inline (the call's first job, and those of its resumptions and child tasks
/// before the run ends) runs on that thread; every other job goes to Swift's global executor.
/// Jobs are a task's slices between suspensions.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
private final class InlineExecutor: TaskExecutor, @unchecked Sendable {
    /// The one executor (it keeps no state: that lives in each thread's `InlineRun`).
    static let shared = InlineExecutor()

    /// Jobs run inline at most, so a task that keeps yielding cannot hold the engine thread.
    private static let budget = 16

    func enqueue(_ job: consuming ExecutorJob) {
        if let run = InlineRun.current, run.active {
            run.jobs.append(UnownedJob(job))
            return
        }
        globalConcurrentExecutor.enqueue(job)
    }

    /// Runs the jobs queued on this thread until there are none (or the budget is spent), then
    /// ends the run (later jobs go to the global executor, leftovers too). Returns whether the
    /// call answered during the run.
    func runInline(_ run: InlineRun) -> Bool {
        var next = 0
        while next < run.jobs.count, next < Self.budget {
            let job = run.jobs[next]
            next += 1
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
        run.active = false
        let answered = run.answered
        if next < run.jobs.count {
            for j in run.jobs[next...] { globalConcurrentExecutor.enqueue(ExecutorJob(j)) }
        }
        run.jobs.removeAll(keepingCapacity: true)
        return answered
    }
}
