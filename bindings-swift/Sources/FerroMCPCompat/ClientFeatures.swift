// ClientFeatures: what a client offers the server in the official swift-sdk's shapes: sampling
// (`Sampling`, `CreateSamplingMessage`, `withSamplingHandler`) and roots (`ListRoots`,
// `withRootsHandler`, `notifyRootsChanged`). The handlers answer the engine's requests to the
// client; the capabilities are declared for those set before `connect`.

import Foundation

/// Sampling: the server asks the client's model for a message.
public enum Sampling {
    /// One message of the conversation.
    public struct Message: Hashable, Codable, Sendable {
        public enum Role: String, Hashable, Codable, Sendable {
            case user, assistant
        }

        public let role: Role
        public let content: Content
        public var _meta: Metadata?

        public init(role: Role, content: Content, _meta: Metadata? = nil) {
            self.role = role
            self.content = content
            self._meta = _meta
        }

        public static func user(_ content: Content, _meta: Metadata? = nil) -> Message {
            Message(role: .user, content: content, _meta: _meta)
        }

        public static func assistant(_ content: Content, _meta: Metadata? = nil) -> Message {
            Message(role: .assistant, content: content, _meta: _meta)
        }

        /// One block or several.
        public enum Content: Hashable, Sendable, Codable, ExpressibleByStringLiteral {
            case single(ContentBlock)
            case multiple([ContentBlock])

            /// One block of a sampling message.
            public enum ContentBlock: Hashable, Sendable, Codable {
                case text(String)
                /// Base64 `data`.
                case image(data: String, mimeType: String)
                /// Base64 `data`.
                case audio(data: String, mimeType: String)
                case toolUse(Sampling.ToolUseContent)
                case toolResult(Sampling.ToolResultContent)

                private enum CodingKeys: String, CodingKey { case type, text, data, mimeType }

                public init(from decoder: Decoder) throws {
                    let c = try decoder.container(keyedBy: CodingKeys.self)
                    switch try c.decode(String.self, forKey: .type) {
                    case "text": self = .text(try c.decode(String.self, forKey: .text))
                    case "image": self = .image(data: try c.decode(String.self, forKey: .data),
                                                mimeType: try c.decode(String.self, forKey: .mimeType))
                    case "audio": self = .audio(data: try c.decode(String.self, forKey: .data),
                                                mimeType: try c.decode(String.self, forKey: .mimeType))
                    case "tool_use": self = .toolUse(try Sampling.ToolUseContent(from: decoder))
                    case "tool_result": self = .toolResult(try Sampling.ToolResultContent(from: decoder))
                    case let other:
                        throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "Unknown sampling content type \(other)")
                    }
                }

                public func encode(to encoder: Encoder) throws {
                    var c = encoder.container(keyedBy: CodingKeys.self)
                    switch self {
                    case .text(let text):
                        try c.encode("text", forKey: .type)
                        try c.encode(text, forKey: .text)
                    case .image(let data, let mimeType), .audio(let data, let mimeType):
                        if case .image = self { try c.encode("image", forKey: .type) } else { try c.encode("audio", forKey: .type) }
                        try c.encode(data, forKey: .data)
                        try c.encode(mimeType, forKey: .mimeType)
                    case .toolUse(let use):
                        try c.encode("tool_use", forKey: .type)
                        try use.encode(to: encoder)
                    case .toolResult(let result):
                        try c.encode("tool_result", forKey: .type)
                        try result.encode(to: encoder)
                    }
                }
            }

            /// Whether this is one block.
            public var isSingle: Bool { if case .single = self { true } else { false } }

            /// The blocks, one or several.
            public var asArray: [ContentBlock] {
                switch self {
                case .single(let block): [block]
                case .multiple(let blocks): blocks
                }
            }

            public static func text(_ text: String) -> Content { .single(.text(text)) }
            public static func image(data: String, mimeType: String) -> Content { .single(.image(data: data, mimeType: mimeType)) }
            public static func audio(data: String, mimeType: String) -> Content { .single(.audio(data: data, mimeType: mimeType)) }

            public init(stringLiteral value: String) { self = .single(.text(value)) }

            public init(from decoder: Decoder) throws {
                if let blocks = try? [ContentBlock](from: decoder) {
                    self = .multiple(blocks)
                } else {
                    self = .single(try ContentBlock(from: decoder))
                }
            }

            public func encode(to encoder: Encoder) throws {
                switch self {
                case .single(let block): try block.encode(to: encoder)
                case .multiple(let blocks): try blocks.encode(to: encoder)
                }
            }
        }
    }

    /// What the server prefers in a model.
    public struct ModelPreferences: Hashable, Codable, Sendable {
        public struct Hint: Hashable, Codable, Sendable {
            public let name: String?
            public init(name: String? = nil) { self.name = name }
        }

        public let hints: [Hint]?
        public let costPriority: Double?
        public let speedPriority: Double?
        public let intelligencePriority: Double?

        public init(hints: [Hint]? = nil, costPriority: Double? = nil, speedPriority: Double? = nil,
                    intelligencePriority: Double? = nil) {
            self.hints = hints
            self.costPriority = costPriority
            self.speedPriority = speedPriority
            self.intelligencePriority = intelligencePriority
        }
    }

    /// Which MCP context to include.
    public enum ContextInclusion: String, Hashable, Codable, Sendable {
        case none, thisServer, allServers
    }

    /// Why the model stopped.
    public struct StopReason: RawRepresentable, Hashable, Codable, Sendable, ExpressibleByStringLiteral {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { rawValue = value }
        public static let endTurn = StopReason(rawValue: "endTurn")
        public static let stopSequence = StopReason(rawValue: "stopSequence")
        public static let maxTokens = StopReason(rawValue: "maxTokens")
        public static let toolUse = StopReason(rawValue: "toolUse")
    }

    /// The model calls a tool (sampling with tools).
    public struct ToolUseContent: Hashable, Codable, Sendable {
        public let id: String
        public let name: String
        public let input: [String: Value]
        public var _meta: Metadata?

        public init(id: String, name: String, input: [String: Value], _meta: Metadata? = nil) {
            self.id = id
            self.name = name
            self.input = input
            self._meta = _meta
        }
    }

    /// A tool's result handed back to the model. Its blocks have the shapes of a tool's content.
    public struct ToolResultContent: Hashable, Codable, Sendable {
        public let toolUseId: String
        public let content: [Tool.Content]
        public let structuredContent: [String: Value]?
        public let isError: Bool?
        public var _meta: Metadata?

        public init(toolUseId: String, content: [Tool.Content] = [], structuredContent: [String: Value]? = nil,
                    isError: Bool? = nil, _meta: Metadata? = nil) {
            self.toolUseId = toolUseId
            self.content = content
            self.structuredContent = structuredContent
            self.isError = isError
            self._meta = _meta
        }
    }
}

/// `sampling/createMessage`: the server asks the client's model.
public enum CreateSamplingMessage: Method {
    public static let name = "sampling/createMessage"

    public struct Parameters: Hashable, Codable, Sendable {
        public let messages: [Sampling.Message]
        public let modelPreferences: Sampling.ModelPreferences?
        public let systemPrompt: String?
        public let includeContext: Sampling.ContextInclusion?
        public let temperature: Double?
        public let maxTokens: Int
        public let stopSequences: [String]?
        public var _meta: Metadata?
        public let tools: [Tool]?
        public let metadata: [String: Value]?

        public init(messages: [Sampling.Message], modelPreferences: Sampling.ModelPreferences? = nil,
                    systemPrompt: String? = nil, includeContext: Sampling.ContextInclusion? = nil,
                    temperature: Double? = nil, maxTokens: Int, stopSequences: [String]? = nil,
                    metadata: [String: Value]? = nil, tools: [Tool]? = nil, _meta: Metadata? = nil) {
            self.messages = messages
            self.modelPreferences = modelPreferences
            self.systemPrompt = systemPrompt
            self.includeContext = includeContext
            self.temperature = temperature
            self.maxTokens = maxTokens
            self.stopSequences = stopSequences
            self.metadata = metadata
            self.tools = tools
            self._meta = _meta
        }
    }

    public struct Result: Hashable, Codable, Sendable {
        public let model: String
        public let stopReason: Sampling.StopReason?
        public let role: Sampling.Message.Role
        public let content: Sampling.Message.Content
        public var _meta: Metadata?

        public init(model: String, stopReason: Sampling.StopReason? = nil, role: Sampling.Message.Role,
                    content: Sampling.Message.Content, _meta: Metadata? = nil) {
            self.model = model
            self.stopReason = stopReason
            self.role = role
            self.content = content
            self._meta = _meta
        }
    }
}

/// `roots/list`: the server asks for the client's roots.
public enum ListRoots: Method {
    public static let name = "roots/list"
    public typealias Parameters = Empty

    public struct Result: Hashable, Codable, Sendable {
        public let roots: [Root]
        public var _meta: Metadata?

        public init(roots: [Root], _meta: Metadata? = nil) {
            self.roots = roots
            self._meta = _meta
        }
    }
}

/// Elicitation: the server asks the user for input through the client.
public enum Elicitation {
    /// The form's fields (a flat object schema).
    public struct RequestSchema: Hashable, Codable, Sendable {
        public enum SchemaType: String, Hashable, Codable, Sendable {
            case object
        }

        public var title: String?
        public var description: String?
        public var properties: [String: Value]
        public var required: [String]?
        public var type: SchemaType

        public init(title: String? = nil, description: String? = nil, properties: [String: Value] = [:],
                    required: [String]? = nil, type: SchemaType = .object) {
            self.title = title
            self.description = description
            self.properties = properties
            self.required = required
            self.type = type
        }
    }

    /// Form or URL mode.
    public enum Mode: String, Hashable, Codable, Sendable {
        case form, url
    }
}

/// `elicitation/create`.
public enum CreateElicitation: Method {
    public static let name = "elicitation/create"

    /// A form to fill in, or a URL to visit.
    public enum Parameters: Hashable, Sendable, Codable {
        case form(FormParameters)
        case url(URLParameters)

        public struct FormParameters: Hashable, Codable, Sendable {
            public var message: String
            public var mode: Elicitation.Mode?
            public var requestedSchema: Elicitation.RequestSchema
            public var _meta: Metadata?

            public init(message: String, mode: Elicitation.Mode? = nil, requestedSchema: Elicitation.RequestSchema,
                        _meta: Metadata? = nil) {
                self.message = message
                self.mode = mode
                self.requestedSchema = requestedSchema
                self._meta = _meta
            }
        }

        public struct URLParameters: Hashable, Codable, Sendable {
            public var message: String
            public var mode: Elicitation.Mode
            public var url: String
            public var elicitationId: String
            public var _meta: Metadata?

            public init(message: String, mode: Elicitation.Mode = .url, url: String, elicitationId: String,
                        _meta: Metadata? = nil) {
                self.message = message
                self.mode = mode
                self.url = url
                self.elicitationId = elicitationId
                self._meta = _meta
            }
        }

        private enum CodingKeys: String, CodingKey { case mode }

        public init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            if try c.decodeIfPresent(Elicitation.Mode.self, forKey: .mode) == .url {
                self = .url(try URLParameters(from: decoder))
            } else {
                self = .form(try FormParameters(from: decoder))
            }
        }

        public func encode(to encoder: Encoder) throws {
            switch self {
            case .form(let p): try p.encode(to: encoder)
            case .url(let p): try p.encode(to: encoder)
            }
        }
    }

    public struct Result: Hashable, Codable, Sendable {
        public enum Action: String, Hashable, Codable, Sendable {
            case accept, decline, cancel
        }

        public var action: Action
        public var content: [String: Value]?
        public var _meta: Metadata?

        public init(action: Action, content: [String: Value]? = nil, _meta: Metadata? = nil) {
            self.action = action
            self.content = content
            self._meta = _meta
        }
    }
}
