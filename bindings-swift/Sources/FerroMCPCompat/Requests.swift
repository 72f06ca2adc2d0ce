// Requests as values (the official swift-sdk's `ID`, `Request`, `Method.request(...)`,
// `RequestContext`), for `Client.send(_:)`, `cancelRequest` and `withBatch`. The ids are the
// caller's handles for its requests; the engine numbers the requests it sends itself.

import Foundation

/// A request id: a string or a number.
public enum ID: Hashable, Sendable, Codable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    case string(String)
    case number(Int)

    /// A new unique id (a UUID).
    public static var random: ID { .string(UUID().uuidString) }

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(value) }

    public var description: String {
        switch self {
        case .string(let s): s
        case .number(let n): String(n)
        }
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let n = try? c.decode(Int.self) { self = .number(n) } else { self = .string(try c.decode(String.self)) }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .string(let s): try c.encode(s)
        case .number(let n): try c.encode(n)
        }
    }
}

/// A request of method `M`, ready for `Client.send(_:)` or a batch.
public struct Request<M: Method>: Hashable, Identifiable, Sendable {
    public let id: ID
    public let method: String
    public let params: M.Parameters

    init(id: ID, method: String, params: M.Parameters) {
        self.id = id
        self.method = method
        self.params = params
    }
}

extension Method {
    /// A request of this method.
    public static func request(id: ID = .random, _ parameters: Parameters) -> Request<Self> {
        Request(id: id, method: name, params: parameters)
    }
}

extension Method where Parameters == Empty {
    /// A request of this method, which takes no parameters.
    public static func request(id: ID = .random) -> Request<Self> {
        Request(id: id, method: name, params: Empty())
    }
}

/// A request in flight: its id (for `cancelRequest`) and its result.
public struct RequestContext<Output: Sendable & Decodable>: Sendable {
    public let requestID: ID
    private let requestTask: Task<Output, Error>

    /// The result; throws `CancellationError` once the request was cancelled.
    public var value: Output {
        get async throws { try await requestTask.value }
    }

    public init(requestID: ID, requestTask: Task<Output, Error>) {
        self.requestID = requestID
        self.requestTask = requestTask
    }
}
