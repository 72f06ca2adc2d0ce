// Listen: `subscriptions/listen` (protocol revision 2026-07-28). `Client.listen(_:)` returns a
// `Subscription`, an `AsyncSequence` of the change notifications the server agreed to send;
// `cancel()` ends it on the server. The engine's `EmbeddedSubscription` does the protocol work.

import FerroMCPNative
import Foundation

/// What a subscription asks for, or (`Subscription.filter`) what the server agreed to send (the
/// wire's `SubscriptionFilter`): list changes of tools, prompts and resources, updates of the
/// resources named, and the status notifications of the tasks named.
public struct ListenFilter: Sendable, Hashable {
    /// `notifications/tools/list_changed`.
    public var toolsListChanged: Bool
    /// `notifications/prompts/list_changed`.
    public var promptsListChanged: Bool
    /// `notifications/resources/list_changed`.
    public var resourcesListChanged: Bool
    /// `notifications/resources/updated` for these URIs.
    public var resourceSubscriptions: [String]
    /// `notifications/tasks` (the tasks extension `io.modelcontextprotocol/tasks`) for these task
    /// ids, e.g. the `taskId` of `Client.callToolAsTask`: the task's state at once, then each
    /// change up to its terminal state (what `tasks/get` answers). A server acknowledges only
    /// the ids of tasks it runs (an unknown id is left out); a client without the extension
    /// (`ClientOptions(tasksExtension: false)`) naming task ids is refused with -32021
    /// (`.missingRequiredClientCapability`), as the extension requires.
    public var taskIds: [String]

    /// A filter; everything is off unless asked for.
    public init(toolsListChanged: Bool = false, promptsListChanged: Bool = false,
                resourcesListChanged: Bool = false, resourceSubscriptions: [String] = [],
                taskIds: [String] = []) {
        self.toolsListChanged = toolsListChanged
        self.promptsListChanged = promptsListChanged
        self.resourcesListChanged = resourcesListChanged
        self.resourceSubscriptions = resourceSubscriptions
        self.taskIds = taskIds
    }

    /// The `SubscriptionFilter` JSON object.
    var value: Value {
        var o: [String: Value] = [:]
        if toolsListChanged { o["toolsListChanged"] = .bool(true) }
        if promptsListChanged { o["promptsListChanged"] = .bool(true) }
        if resourcesListChanged { o["resourcesListChanged"] = .bool(true) }
        if !resourceSubscriptions.isEmpty { o["resourceSubscriptions"] = .array(resourceSubscriptions.map(Value.string)) }
        if !taskIds.isEmpty { o["taskIds"] = .array(taskIds.map(Value.string)) }
        return .object(o)
    }

    init(_ v: Value) {
        self.init(toolsListChanged: v["toolsListChanged"]?.boolValue == true,
                  promptsListChanged: v["promptsListChanged"]?.boolValue == true,
                  resourcesListChanged: v["resourcesListChanged"]?.boolValue == true,
                  resourceSubscriptions: v["resourceSubscriptions"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                  taskIds: v["taskIds"]?.arrayValue?.compactMap(\.stringValue) ?? [])
    }
}

/// An open `subscriptions/listen` subscription, made by `Client.listen(_:)`.
///
/// ```swift
/// let sub = try await client.listen(ListenFilter(toolsListChanged: true))
/// for await n in sub { print(n.method) }   // until it is over
/// ```
///
/// Iterating yields `ServerNotification`s (their `params._meta` carries the subscription id)
/// until the subscription is over: the server ended it (`result`), the connection closed or it
/// was cancelled (`error`). The iteration does not throw; read `error` afterwards. `cancel()`
/// ends it on the server and ends a pending iteration; so does cancelling the iterating task,
/// and releasing the subscription. Its notifications do not reach `Client.notifications`.
public final class Subscription: AsyncSequence, Sendable {
    public typealias Element = ServerNotification

    private let native: NativeSubscription
    /// The subscription id (the `subscriptions/listen` request's JSON-RPC id).
    public let id: Value
    /// What the server agreed to send (kinds it does not support are left out).
    public let filter: ListenFilter

    init(_ native: NativeSubscription) {
        self.native = native
        id = (try? Value(json: native.id())) ?? .null
        filter = ListenFilter((try? Value(json: native.acknowledged())) ?? .null)
    }

    deinit {
        native.close()
    }

    private var end: Value? { native.end().flatMap { try? Value(json: $0) } }

    /// Whether the subscription is over.
    public var isEnded: Bool { native.end() != nil }

    /// The server's final `subscriptions/listen` result, if it ended the subscription.
    public var result: Value? { end?["result"] }

    /// What ended the subscription otherwise: `.connectionClosed` (-32000), `.requestCancelled`
    /// (-32800) once this side cancelled it, or the server's error. The engine's kind of the
    /// error comes with it, so a server's own -32000 is not `isTransportError`.
    public var error: McpError? {
        guard let e = end?["error"], let code = e["code"]?.intValue else { return nil }
        let data = e["data"].flatMap { $0 == .null ? nil : $0 }
        return McpError(code: code, message: e["message"]?.stringValue ?? "", data: data,
                        kind: e["kind"]?.stringValue.flatMap(FfiErrorKind.init(name:)))
    }

    /// The next notification, or nil once the subscription is over. Cancelling the calling
    /// task cancels the subscription.
    public func next() async -> ServerNotification? {
        let native = self.native
        let text = await withTaskCancellationHandler {
            await native.next()
        } onCancel: {
            native.close()
        }
        guard let text, let v = try? Value(json: text), let method = v["method"]?.stringValue else { return nil }
        return ServerNotification(method: method, params: v["params"])
    }

    /// Ends the subscription on the server (idempotent); a pending `next()` returns nil.
    public func cancel() {
        native.close()
    }

    /// The notifications until the subscription is over.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let subscription: Subscription
        public mutating func next() async -> ServerNotification? {
            await subscription.next()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(subscription: self)
    }
}

extension Client {
    /// `subscriptions/listen` (protocol revision 2026-07-28): a `Subscription` to the change
    /// notifications `filter` asks for (list changes of tools, prompts, resources; updates of the
    /// resources named; with the tasks extension, `notifications/tasks` of the tasks named in
    /// `taskIds`), returned once the server acknowledged it. `Subscription.filter` says what the
    /// server agreed to (a task id it does not run is left out).
    ///
    /// A session that negotiated the initialize handshake (2025-11-25 and older) has no listen:
    /// this throws `McpError` `.invalidRequest` (-32600); there use `subscribe(_:)` and
    /// `notifications`.
    public func listen(_ filter: ListenFilter) async throws -> Subscription {
        try Task.checkCancellation()
        let native = try await bridged { try await self.native.listen(filter: filter.value.jsonText) }
        return Subscription(native)
    }
}
