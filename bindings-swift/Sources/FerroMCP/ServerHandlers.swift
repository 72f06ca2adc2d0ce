// ServerHandlers: the classes the engine calls for a Server's tools, resources, prompts and
// completions (implementations of the generated ToolHandler / ResourceHandler / PromptHandler /
// CompletionHandler protocols). Each turns the JSON text it is handed into Values and a
// RequestContext, runs the Swift closure (in a task started by HandlerCalls), and hands back
// plain JSON for the engine to shape, or what the closure threw as an engine error
// (`handlerFailure`). What a failure answers is the engine's decision, the same for every
// language: this file has no error policy of its own.

import FerroMCPNative
import Foundation

/// Runs a tool closure. What it throws goes to the engine as it is (`handlerFailure`), which
/// answers an `isError` result with the message (the model reads it) for any failure, an
/// `McpError` of any code included, except the errors the client must act on (URL elicitation,
/// a 2026-07-28 input round, a missing client capability under 2026-07-28), which stay JSON-RPC
/// errors (`embed::is_tool_signal`, shared with the Node and Python bindings).
final class ToolAdapter: ToolHandler {
    private let body: @Sendable (String, RequestContext) async throws -> HandlerAnswer

    /// `body` gets the arguments' JSON text (parsed or decoded as the handler wants it) and
    /// answers the `CallToolResult` (or a value the engine shapes into one).
    init(_ body: @escaping @Sendable (String, RequestContext) async throws -> HandlerAnswer) {
        self.body = body
    }

    func start(arguments: String, context: NativeContext, runInline inline: Bool) -> UInt64 {
        HandlerCalls.start(context, inline: inline, arguments, body)
    }

    func cancel(call: UInt64) { HandlerCalls.end(call) }
}

/// Runs a resource closure (a static resource: `variables` is empty).
final class ResourceAdapter: ResourceHandler {
    private let body: @Sendable (String, [String: String], RequestContext) async throws -> ResourceResult

    init(_ body: @escaping @Sendable (String, [String: String], RequestContext) async throws -> ResourceResult) {
        self.body = body
    }

    func start(uri: String, variables: String, context: NativeContext, runInline inline: Bool) -> UInt64 {
        HandlerCalls.start(context, inline: inline, variables) { [body] variables, context in
            let vars = (try Value(json: variables).objectValue ?? [:]).compactMapValues(\.stringValue)
            return .json(try await body(uri, vars, context).value.jsonText)
        }
    }

    func cancel(call: UInt64) { HandlerCalls.end(call) }
}

/// Runs a prompt closure.
final class PromptAdapter: PromptHandler {
    private let body: @Sendable ([String: String], RequestContext) async throws -> PromptResult

    init(_ body: @escaping @Sendable ([String: String], RequestContext) async throws -> PromptResult) {
        self.body = body
    }

    func start(arguments: String, context: NativeContext, runInline inline: Bool) -> UInt64 {
        HandlerCalls.start(context, inline: inline, arguments) { [body] arguments, context in
            let args = (try Value(json: arguments).objectValue ?? [:]).compactMapValues(\.stringValue)
            return .json(try await body(args, context).value.jsonText)
        }
    }

    func cancel(call: UInt64) { HandlerCalls.end(call) }
}

/// Runs a completion closure.
final class CompletionAdapter: CompletionHandler {
    private let body: @Sendable (CompletionRequest, RequestContext) async throws -> [String]

    init(_ body: @escaping @Sendable (CompletionRequest, RequestContext) async throws -> [String]) {
        self.body = body
    }

    func start(params: String, context: NativeContext, runInline inline: Bool) -> UInt64 {
        HandlerCalls.start(context, inline: inline, params) { [body] params, context in
            let request = CompletionRequest(try Value(json: params))
            let values = try await body(request, context)
            return .json(Value.array(values.map(Value.string)).jsonText)
        }
    }

    func cancel(call: UInt64) { HandlerCalls.end(call) }
}

/// What a handler's failure hands the engine: an `McpError` (or the engine's own error) as it
/// is, any other error a `HandlerException` with its text (`errorText`), which the engine
/// answers as an internal error. A tool's failure becomes what `embed::is_tool_signal` says; a
/// resource, prompt or completion failure is that JSON-RPC error. Cancellation of the handler's
/// task after the engine dropped the call answers `requestCancelled`, which the engine discards.
func handlerFailure(_ error: Error) -> Error {
    switch error {
    case let e as McpError:
        return e.native
    case let e as FfiError:
        return e
    case let e as ArgumentsDidNotDecode:
        return HandlerException(message: e.message)
    case is CancellationError where Task.isCancelled:
        return McpError(.requestCancelled, "the request was cancelled").native
    default:
        return HandlerException(message: errorText(error))
    }
}

/// A handler threw an error that is not an `McpError` (`McpError::handler_exception` in the
/// engine), or a tool's typed arguments did not decode: a tool's is a tool execution error
/// (`isError`), in a task of the tasks extension too, where an `McpError` ends the task
/// `failed` instead.
struct HandlerException: Error {
    let message: String
}

/// The text that reports `error` to the peer: an `McpError`'s message, a `LocalizedError`'s
/// description, or the error's `String(describing:)`.
func errorText(_ error: Error) -> String {
    switch error {
    case let e as McpError: e.message
    case let e as FfiError: McpError(e).message
    case let e as LocalizedError where e.errorDescription != nil: e.errorDescription!
    default: String(describing: error)
    }
}
