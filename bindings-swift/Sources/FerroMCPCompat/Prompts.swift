// Prompts and completions: the official swift-sdk's `Prompt` (with `Argument`, `Message`,
// `Reference`), `ListPrompts`, `GetPrompt` and `Complete`, in its shapes.

import Foundation

/// A prompt a server lists (`prompts/list`).
public struct Prompt: Hashable, Codable, Sendable {
    public let name: String
    public let title: String?
    public let description: String?
    public let arguments: [Argument]?
    public var icons: [Icon]?
    public var _meta: Metadata?

    public init(name: String, title: String? = nil, description: String? = nil, arguments: [Argument]? = nil,
                icons: [Icon]? = nil, meta: Metadata? = nil) {
        self.name = name
        self.title = title
        self.description = description
        self.arguments = arguments
        self.icons = icons
        self._meta = meta
    }

    /// One argument of a prompt.
    public struct Argument: Hashable, Codable, Sendable {
        public let name: String
        public let title: String?
        public let description: String?
        public let required: Bool?

        public init(name: String, title: String? = nil, description: String? = nil, required: Bool? = nil) {
            self.name = name
            self.title = title
            self.description = description
            self.required = required
        }
    }

    /// One message of a prompt.
    public struct Message: Hashable, Codable, Sendable {
        public enum Role: String, Hashable, Codable, Sendable {
            case user, assistant
        }

        public let role: Role
        public let content: Content

        public init(role: Role, content: Content) {
            self.role = role
            self.content = content
        }

        /// A user message.
        public static func user(_ content: Content) -> Message { Message(role: .user, content: content) }
        /// An assistant message.
        public static func assistant(_ content: Content) -> Message { Message(role: .assistant, content: content) }

        /// A message's content.
        public enum Content: Hashable, Codable, Sendable, ExpressibleByStringInterpolation {
            case text(text: String)
            /// Base64 `data`.
            case image(data: String, mimeType: String)
            /// Base64 `data`.
            case audio(data: String, mimeType: String)
            case resource(resource: Resource.Content, annotations: Resource.Annotations? = nil, _meta: Metadata? = nil)
            case resourceLink(uri: String, name: String, title: String? = nil, description: String? = nil,
                              mimeType: String? = nil, annotations: Resource.Annotations? = nil)

            public init(stringLiteral value: String) { self = .text(text: value) }
            public init(stringInterpolation: DefaultStringInterpolation) {
                self = .text(text: String(stringInterpolation: stringInterpolation))
            }

            public init(from decoder: Decoder) throws {
                // The same wire shapes as a tool's content blocks.
                switch try Tool.Content(from: decoder) {
                case .text(let text, _, _): self = .text(text: text)
                case .image(let data, let mimeType, _, _): self = .image(data: data, mimeType: mimeType)
                case .audio(let data, let mimeType, _, _): self = .audio(data: data, mimeType: mimeType)
                case .resource(let r, let a, let m): self = .resource(resource: r, annotations: a, _meta: m)
                case .resourceLink(let u, let n, let t, let d, let mt, let a):
                    self = .resourceLink(uri: u, name: n, title: t, description: d, mimeType: mt, annotations: a)
                }
            }

            public func encode(to encoder: Encoder) throws {
                let block: Tool.Content = switch self {
                case .text(let text): .text(text: text, annotations: nil, _meta: nil)
                case .image(let data, let mimeType): .image(data: data, mimeType: mimeType, annotations: nil, _meta: nil)
                case .audio(let data, let mimeType): .audio(data: data, mimeType: mimeType, annotations: nil, _meta: nil)
                case .resource(let r, let a, let m): .resource(resource: r, annotations: a, _meta: m)
                case .resourceLink(let u, let n, let t, let d, let mt, let a):
                    .resourceLink(uri: u, name: n, title: t, description: d, mimeType: mt, annotations: a)
                }
                try block.encode(to: encoder)
            }
        }
    }

    /// A prompt named by a completion request (`ref/prompt`).
    public struct Reference: Hashable, Codable, Sendable {
        public let name: String
        public let title: String?

        public init(name: String, title: String? = nil) {
            self.name = name
            self.title = title
        }
    }
}

/// `prompts/list`.
public enum ListPrompts: Method {
    public static let name = "prompts/list"
    public typealias Parameters = ListParameters

    public struct Result: Hashable, Codable, Sendable {
        public let prompts: [Prompt]
        public let nextCursor: String?
        public var _meta: Metadata?

        public init(prompts: [Prompt], nextCursor: String? = nil, _meta: Metadata? = nil) {
            self.prompts = prompts
            self.nextCursor = nextCursor
            self._meta = _meta
        }
    }
}

/// `prompts/get`.
public enum GetPrompt: Method {
    public static let name = "prompts/get"

    public struct Parameters: Hashable, Codable, Sendable {
        public let name: String
        public let arguments: [String: String]?

        public init(name: String, arguments: [String: String]? = nil) {
            self.name = name
            self.arguments = arguments
        }
    }

    public struct Result: Hashable, Codable, Sendable {
        public let description: String?
        public let messages: [Prompt.Message]
        public var _meta: Metadata?

        public init(description: String? = nil, messages: [Prompt.Message], _meta: Metadata? = nil) {
            self.description = description
            self.messages = messages
            self._meta = _meta
        }
    }
}

/// `notifications/prompts/list_changed`.
public struct PromptListChangedNotification: Notification {
    public static let name = "notifications/prompts/list_changed"
    public typealias Parameters = Empty
}

public typealias PromptReference = Prompt.Reference

/// A resource template named by a completion request (`ref/resource`).
public struct ResourceReference: Hashable, Codable, Sendable {
    public let uri: String
    public init(uri: String) { self.uri = uri }
}

/// What a completion request completes: a prompt's argument or a template's variable.
public enum CompletionReference: Hashable, Codable, Sendable {
    case prompt(PromptReference)
    case resource(ResourceReference)

    private enum CodingKeys: String, CodingKey { case type, name, title, uri }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        switch try c.decode(String.self, forKey: .type) {
        case "ref/prompt":
            self = .prompt(.init(name: try c.decode(String.self, forKey: .name),
                                 title: try c.decodeIfPresent(String.self, forKey: .title)))
        case "ref/resource":
            self = .resource(.init(uri: try c.decode(String.self, forKey: .uri)))
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "Unknown reference type \(other)")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .prompt(let p):
            try c.encode("ref/prompt", forKey: .type)
            try c.encode(p.name, forKey: .name)
            try c.encodeIfPresent(p.title, forKey: .title)
        case .resource(let r):
            try c.encode("ref/resource", forKey: .type)
            try c.encode(r.uri, forKey: .uri)
        }
    }
}

/// `completion/complete`.
public enum Complete: Method {
    public static let name = "completion/complete"

    public struct Parameters: Hashable, Codable, Sendable {
        public let ref: CompletionReference
        public let argument: Argument
        public let context: Context?

        public init(ref: CompletionReference, argument: Argument, context: Context? = nil) {
            self.ref = ref
            self.argument = argument
            self.context = context
        }

        /// The argument being completed and what was typed so far.
        public struct Argument: Hashable, Codable, Sendable {
            public let name: String
            public let value: String
            public init(name: String, value: String) {
                self.name = name
                self.value = value
            }
        }

        /// Arguments already resolved.
        public struct Context: Hashable, Codable, Sendable {
            public let arguments: [String: String]
            public init(arguments: [String: String]) { self.arguments = arguments }
        }
    }

    public struct Result: Hashable, Codable, Sendable {
        public let completion: Completion
        public var _meta: Metadata?

        public init(completion: Completion, _meta: Metadata? = nil) {
            self.completion = completion
            self._meta = _meta
        }

        /// The suggestions (at most 100), their total and whether there are more.
        public struct Completion: Hashable, Codable, Sendable {
            public let values: [String]
            public let total: Int?
            public let hasMore: Bool?

            public init(values: [String], total: Int? = nil, hasMore: Bool? = nil) {
                self.values = values
                self.total = total
                self.hasMore = hasMore
            }
        }
    }
}
