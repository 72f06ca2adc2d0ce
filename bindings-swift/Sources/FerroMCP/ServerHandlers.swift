// ServerHandlers: the classes the engine calls for a Server's tools, resources, prompts and
// completions (implementations of the generated ToolHandler / ResourceHandler / PromptHandler /
// CompletionHandler protocols). Each turns the JSON text it is handed into Values and a
// RequestContext, runs the Swift closure (in a task started by HandlerCalls), hands back plain
// JSON for the engine to shape, and maps what the closure throws onto the error rules of the
// facade.

import FerroMCPNative
import Foundation

/// Says that a tool call fails with this JSON-RPC error instead of an `isError` result
/// (an output that cannot be encoded: the tool's fault, not the model's).
struct ToolProtocolError: Error {
    let error: McpError
}

/// Runs a tool closure. What it throws becomes an `isError` result the model can read, except
/// `ToolProtocolError` and an `McpError` the client must act on (`isProtocolSignal`: URL
/// elicitation, a 2026-07-28 input round, a missing capability), which are JSON-RPC errors.
final class ToolAdapter: ToolHandler {
    private let body: @Sendable (String, RequestContext) async throws -> HandlerAnswer

    /// `body` gets the arguments' JSON text (parsed or decoded as the handler wants it) and
    /// answers the `CallToolResult` (or a value the engine shapes into one).
    init(_ body: @escaping @Sendable (String, RequestContext) async throws -> HandlerAnswer) {
        self.body = body
    }

    func start(arguments: String, context: NativeContext, runInline inline: Bool) -> UInt64 {
        HandlerCalls.start(context, inline: inline) { [body] in
            do {
                return try await body(arguments, RequestContext(context))
            } catch {
                if let failure = protocolFailure(error, inTool: true) { throw failure }
                return .toolText(errorText(error), isError: true)
            }
        }
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
        HandlerCalls.start(context, inline: inline) { [body] in
            do {
                let vars = (try Value(json: variables).objectValue ?? [:]).compactMapValues(\.stringValue)
                return .json(try await body(uri, vars, RequestContext(context)).value.jsonText)
            } catch {
                throw handlerFailure(error)
            }
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
        HandlerCalls.start(context, inline: inline) { [body] in
            do {
                let args = (try Value(json: arguments).objectValue ?? [:]).compactMapValues(\.stringValue)
                return .json(try await body(args, RequestContext(context)).value.jsonText)
            } catch {
                throw handlerFailure(error)
            }
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
        HandlerCalls.start(context, inline: inline) { [body] in
            do {
                let request = CompletionRequest(try Value(json: params))
                let values = try await body(request, RequestContext(context))
                return .json(Value.array(values.map(Value.string)).jsonText)
            } catch {
                throw handlerFailure(error)
            }
        }
    }

    func cancel(call: UInt64) { HandlerCalls.end(call) }
}

/// The JSON-RPC error for what a resource, prompt or completion closure threw: an `McpError`
/// as it is, anything else an internal error with its description.
func handlerFailure(_ error: Error) -> FfiError {
    protocolFailure(error, inTool: false) ?? McpError(.internalError, errorText(error)).native
}

/// The JSON-RPC error `error` stands for, or nil when it is a tool's failure (`isError`).
/// Cancellation of the handler's task after the engine dropped the call answers
/// `requestCancelled`, which the engine discards.
private func protocolFailure(_ error: Error, inTool: Bool) -> FfiError? {
    switch error {
    case let e as ToolProtocolError:
        return e.error.native
    case let e as McpError where !inTool || e.isProtocolSignal:
        return e.native
    case let e as FfiError:
        return protocolFailure(McpError(e), inTool: inTool)
    case is CancellationError where Task.isCancelled:
        return McpError(.requestCancelled, "the request was cancelled").native
    default:
        return nil
    }
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
