// HandlerCalls: how the engine runs a server handler closure (the Swift half of the crossing
// described in bindings-swift/src/handler.rs). The engine calls a handler's `start` on its own
// thread; `HandlerCalls.start` makes the closure's task and, when the engine asks for it
// (`inline`: it was idle, or its last inline call was quick), runs it right there until it
// first suspends. A handler that never suspends has then answered before `start` returns: no
// thread hop, no wake-up. Otherwise, and after a suspension, the task runs on Swift's global
// executor, as any task does.
//
// How a task runs inline, by default: with public API only (SE-0417 task executors, Swift 6:
// Linux, macOS 15, iOS 18). The call's task prefers `InlineExecutor`, whose `enqueue` keeps the
// task's jobs enqueued on its engine thread during the inline run (its start, its resumptions
// before the run ends) and runs them there (`UnownedJob.runSynchronously(on:)`); every other
// job, and every job after the run, goes to Swift's global concurrent executor. So nothing ever
// waits for the engine thread: a job is queued to it only while that thread is draining the
// queue. Swift 6.0 reads a preferring task's status records under a lock at every job and
// executor check (`swift_task_switch`), which costs CPU per call
// (bench/results/swift-pipelined-profile.md, bench/results/swift-sdk-form-handler.md).
//
// With the opt-in private runtime hooks (`PrivateRuntimeHooks`) the task is an ordinary task
// (no executor preference) and the global executor's enqueue hook the runtime exports
// (`swift_task_enqueueGlobal_hook`, see `InlineHook`) takes the same jobs instead. On an Apple
// OS older than macOS 15 / iOS 18 without the hooks, calls start on the global executor.
//
// Either way the inline machinery costs no allocation and no lock per call: the state of the
// inline run lives in a per-thread record only its thread touches (`InlineRun`), since
// everything that runs inline runs on the engine thread that started it.

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
    /// This result as the engine takes it: one plain text block (no annotations or `_meta`)
    /// without structured content or `_meta` as `toolText`, anything else as the JSON of a
    /// `CallToolResult`.
    var answer: HandlerAnswer {
        if content.count == 1, structuredContent == nil, meta == nil,
           case .text(let text, let annotations, let blockMeta) = content[0], annotations == nil, blockMeta == nil {
            return .toolText(text, isError: isError)
        }
        return .json(value.jsonText)
    }
}

enum HandlerCalls {
    /// Starts `body(input, context)` for one engine call (`inline`: on this thread until it
    /// first suspends) and answers `context` with what it returns or throws (as
    /// `handlerFailure` reports it). Returns 0 when the answer was given before returning, else
    /// a handle the engine passes to `end(_:)` once.
    ///
    /// The task runs `body` itself, with the answering done by plain functions: every async
    /// layer between the task and the handler costs an executor check per call
    /// (`swift_task_switch`, which with a task executor preference reads the task's status
    /// records under its lock), so there is none.
    static func start(_ context: NativeContext, inline: Bool, _ input: String,
                      _ body: @escaping @Sendable (String, RequestContext) async throws -> HandlerAnswer) -> UInt64 {
        if inline {
            if InlineHook.installed {
                if let run = InlineRun.begin() {
                    let call = run.call
                    let task = Task {
                        do {
                            deliver(try await body(input, RequestContext(context)), to: context)
                        } catch {
                            fail(context, handlerFailure(error))
                        }
                        InlineRun.answered(call)
                    }
                    if InlineHook.runInline(run) { return 0 }
                    return handle(of: task)
                }
            } else if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *), let run = InlineRun.begin() {
                let call = run.call
                let task = Task(executorPreference: InlineExecutor.shared) {
                    do {
                        deliver(try await body(input, RequestContext(context)), to: context)
                    } catch {
                        fail(context, handlerFailure(error))
                    }
                    InlineRun.answered(call)
                }
                if InlineExecutor.shared.runInline(run) { return 0 }
                return handle(of: task)
            }
        }
        return handle(of: Task {
            do {
                deliver(try await body(input, RequestContext(context)), to: context)
            } catch {
                fail(context, handlerFailure(error))
            }
        })
    }

    /// The engine is done with call `handle` (answered, or cancelled by the peer or the session
    /// ending): cancels its task if it still runs and lets the handle go.
    static func end(_ handle: UInt64) {
        guard let pointer = UnsafeRawPointer(bitPattern: UInt(handle)) else { return }
        Unmanaged<RunningCall>.fromOpaque(pointer).takeRetainedValue().task.cancel()
    }

    /// Hands a handler's answer to the engine.
    private static func deliver(_ answer: HandlerAnswer, to context: NativeContext) {
        switch answer {
        case .json(let text): context.answer(result: text)
        case .toolText(let text, let isError): context.answerToolText(text: text, isError: isError)
        }
    }

    /// Answers what a handler threw, as `handlerFailure` made it: an `FfiError` as that
    /// JSON-RPC error, a `HandlerException` as one (an internal error, or a tool's `isError`
    /// result), anything else (not expected) as an internal error.
    private static func fail(_ context: NativeContext, _ error: Error) {
        switch error {
        case let FfiError.Mcp(code, message, data, _):
            context.fail(code: code, message: message, data: data)
        case let e as HandlerException:
            context.failException(message: e.message)
        default:
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
    /// Whether a call is running inline on this thread now (its task's jobs go to `jobs`).
    fileprivate var active = false
    /// The number of the call running inline (the latest one started on this thread).
    fileprivate var call: UInt64 = 0
    /// Whether call `call` answered on this thread during its inline run.
    fileprivate var answered = false
    /// The call's task, as its jobs are addressed (a task is the job that runs its next slice):
    /// the first job enqueued in the run, nil until then.
    fileprivate var task: UnsafeRawPointer?
    /// The call's task's jobs enqueued on this thread during the inline run, not yet run.
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
        run.task = nil
        return run
    }

    /// Call `call` answered: recorded when that happened inside its own inline run (on its
    /// engine thread, before the run ended).
    fileprivate static func answered(_ call: UInt64) {
        guard let run = current, run.active, run.call == call else { return }
        run.answered = true
    }

    /// Jobs run inline at most, so a task that keeps yielding cannot hold the engine thread.
    private static let budget = 16

    /// Takes `job` into this thread's active run when it is the call's task's: the first job
    /// enqueued in the run (the task's start, enqueued by `Task.init` on this thread) names the
    /// task; a later one is taken when it is that task's again (it resumed before the run
    /// ended). Any other job (another task the handler started or resumed, a child task) is
    /// not taken, so work a handler hands off never runs on the engine thread. (A task is the
    /// job that runs its next slice, so a job's address names its task.)
    fileprivate static func take(_ job: UnownedJob) -> Bool {
        guard let run = current, run.active else { return false }
        let task = unsafeBitCast(job, to: UnsafeRawPointer.self)
        if run.task == nil { run.task = task }
        guard run.task == task else { return false }
        run.jobs.append(job)
        return true
    }

    /// Runs the jobs queued on this thread with `execute` until there are none (or the budget is
    /// spent), then ends the run: later jobs, and any left over, go to `handOff` (the global
    /// executor). Returns whether the call answered during the run.
    fileprivate func drain(_ execute: (UnownedJob) -> Void, handOff: (UnownedJob) -> Void) -> Bool {
        var next = 0
        while next < jobs.count, next < InlineRun.budget {
            let job = jobs[next]
            next += 1
            execute(job)
        }
        active = false
        if next < jobs.count {
            for j in jobs[next...] { handOff(j) }
        }
        jobs.removeAll(keepingCapacity: true)
        return answered
    }
}

/// The task executor of handler calls run inline (the default path, public API only): a job of
/// the call's task enqueued on its engine thread during the inline run runs on that thread
/// (`InlineRun.take`); every other job, and every job after the run, goes to Swift's global
/// concurrent executor, as a task without a preference would. Jobs are a task's slices between
/// suspensions. It keeps no state of its own (that lives in each thread's `InlineRun`), so one
/// serves every call.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
final class InlineExecutor: TaskExecutor, @unchecked Sendable {
    /// The one executor.
    static let shared = InlineExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if InlineRun.take(job) { return }
        globalConcurrentExecutor.enqueue(ExecutorJob(job))
    }

    /// Runs the call's jobs queued on this thread (see `InlineRun.drain`) as this executor.
    /// Returns whether the call answered during the run.
    func runInline(_ run: InlineRun) -> Bool {
        let me = asUnownedTaskExecutor()
        return run.drain({ $0.runSynchronously(on: me) },
                         handOff: { globalConcurrentExecutor.enqueue(ExecutorJob($0)) })
    }
}

/// The global executor's enqueue hook that runs handler calls inline: a job of the call's task
/// enqueued on its engine thread during the inline run (its start, and its resumptions before
/// the run ends) runs on that thread; every other job goes on to the global executor (or a hook
/// installed before this one). Jobs are a task's slices between suspensions.
enum InlineHook {
    /// `swift_task_enqueueGlobal` as the runtime passes it to the hook (Swift calling convention).
    private typealias Original = @convention(thin) (UnownedJob) -> Void
    /// The type of the runtime's `swift_task_enqueueGlobal_hook`.
    private typealias Hook = @convention(thin) (UnownedJob, Original) -> Void

    /// The hook that was installed before this one, if any (called for jobs not run inline).
    nonisolated(unsafe) private static var previous: UnsafeRawPointer?

    /// Whether the hook is installed (once, on first use): false unless the user opted in
    /// (`PrivateRuntimeHooks`), or when the runtime does not export it; then calls run inline
    /// through `InlineExecutor` (where task executors exist).
    static let installed: Bool = {
        guard PrivateRuntimeHooks.requested else { return false }
        #if canImport(Darwin)
        let everywhere = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
        #else
        let everywhere: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
        #endif
        guard MemoryLayout<UnownedSerialExecutor>.size == 2 * MemoryLayout<UInt>.size,
              let symbol = dlsym(everywhere, "swift_task_enqueueGlobal_hook") else { return false }
        let slot = symbol.assumingMemoryBound(to: UnsafeRawPointer?.self)
        let hook: Hook = { job, original in InlineHook.enqueue(job, original) }
        previous = slot.pointee
        slot.pointee = unsafeBitCast(hook, to: UnsafeRawPointer.self)
        return true
    }()

    /// Takes the call's task's jobs enqueued on an engine thread during its inline run
    /// (`InlineRun.take`); every other job goes on to the global executor (or the hook
    /// installed before this one).
    private static func enqueue(_ job: UnownedJob, _ original: Original) {
        if InlineRun.take(job) { return }
        if let previous {
            unsafeBitCast(previous, to: Hook.self)(job, original)
        } else {
            original(job)
        }
    }

    /// The generic executor (no actor), which the global executor runs its jobs on.
    private static let generic: UnownedSerialExecutor = unsafeBitCast((UInt(0), UInt(0)), to: UnownedSerialExecutor.self)

    /// Runs the call's jobs queued on this thread (see `InlineRun.drain`) on the generic
    /// executor, as a global executor thread would. Returns whether the call answered during
    /// the run.
    static func runInline(_ run: InlineRun) -> Bool {
        run.drain({ swiftJobRun($0, generic) }, handOff: { swiftEnqueueGlobal($0) })
    }
}

/// Runs a job on an executor, as the executor itself would (the runtime's entry point, which the
/// standard library's `UnownedJob.runSynchronously(on:)` calls too).
@_silgen_name("swift_job_run")
private func swiftJobRun(_ job: UnownedJob, _ executor: UnownedSerialExecutor)

/// Hands a job to the global executor (through the enqueue hooks).
@_silgen_name("swift_task_enqueueGlobal")
private func swiftEnqueueGlobal(_ job: UnownedJob)

/// The opt-in to the private Swift runtime entry points FerroMCP can use to run a handler call
/// on the engine's thread until it first suspends (`swift_task_enqueueGlobal_hook`, installed
/// with `dlsym`, and `swift_job_run` / `swift_task_enqueueGlobal` through `@_silgen_name`).
/// Off by default: they are not public API, their ABI may change with any Swift release, and
/// App Store review may reject apps that use private symbols. Off, calls run inline through a
/// task executor preference (public API); on, through the hooks instead, which saves the
/// preference's status-record lock Swift 6.0 takes at every job and executor check of the task
/// (bindings-swift/README.md, "Private Swift runtime hooks (opt-in)", and
/// bench/results/swift-sdk-form-handler.md say what each measured).
///
/// Turn it on before the first handler call (e.g. first thing in `main`), or set the
/// environment variable `FERROMCP_SWIFT_PRIVATE_RUNTIME_HOOKS=1`; the choice is read once, at
/// the first handler call, and fixed for the process.
public enum PrivateRuntimeHooks {
    /// The environment variable that turns the hooks on (`1`, `true` or `yes`).
    public static let environmentVariable = "FERROMCP_SWIFT_PRIVATE_RUNTIME_HOOKS"

    private static let lock = NSLock()
    nonisolated(unsafe) private static var enabledByCall = false

    /// Asks for the hooks. Returns whether they are in use: false when the runtime does not
    /// export the hook, or when a handler call already ran with them off (the choice is fixed
    /// at the first call).
    @discardableResult
    public static func enable() -> Bool {
        lock.lock()
        enabledByCall = true
        lock.unlock()
        return InlineHook.installed
    }

    /// Whether the hooks are in use (reading it fixes the choice, as a first handler call does).
    public static var isActive: Bool { InlineHook.installed }

    /// Whether the user asked for them (by `enable()` or the environment variable).
    static var requested: Bool {
        lock.lock()
        defer { lock.unlock() }
        if enabledByCall { return true }
        guard let value = ProcessInfo.processInfo.environment[environmentVariable]?.lowercased() else { return false }
        return ["1", "true", "yes"].contains(value)
    }
}
