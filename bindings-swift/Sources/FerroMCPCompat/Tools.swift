// Tools: the official swift-sdk's `Tool`, `Tool.Content`, `ListTools` and `CallTool`, in its
// shapes (initializers, cases, result tuples), encoded as MCP's wire JSON.

import Foundation

/// A tool a server lists (`tools/list`).
public struct Tool: Hashable, Codable, Sendable {
    public let name: String
    public let title: String?
    public let description: String?
    /// The arguments' JSON Schema.
    public let inputSchema: Value
    public var icons: [Icon]?
    public let outputSchema: Value?
    public var _meta: Metadata?
    public var annotations: Annotations

    /// Hints about a tool's behaviour.
    public struct Annotations: Hashable, Codable, Sendable, ExpressibleByNilLiteral {
        public var title: String?
        public var destructiveHint: Bool?
        public var idempotentHint: Bool?
        public var openWorldHint: Bool?
        public var readOnlyHint: Bool?

        /// Whether no hint is set.
        public var isEmpty: Bool {
            title == nil && readOnlyHint == nil && destructiveHint == nil && idempotentHint == nil
                && openWorldHint == nil
        }

        public init(title: String? = nil, readOnlyHint: Bool? = nil, destructiveHint: Bool? = nil,
                    idempotentHint: Bool? = nil, openWorldHint: Bool? = nil) {
            self.title = title
            self.readOnlyHint = readOnlyHint
            self.destructiveHint = destructiveHint
            self.idempotentHint = idempotentHint
            self.openWorldHint = openWorldHint
        }

        public init(nilLiteral: ()) {}
    }

    public init(name: String, title: String? = nil, description: String? = nil, inputSchema: Value = .object([:]),
                annotations: Annotations = nil, outputSchema: Value? = nil, icons: [Icon]? = nil,
                _meta: Metadata? = nil) {
        self.name = name
        self.title = title
        self.description = description
        self.inputSchema = inputSchema
        self.outputSchema = outputSchema
        self.annotations = annotations
        self.icons = icons
        self._meta = _meta
    }

    private enum CodingKeys: String, CodingKey {
        case name, title, description, inputSchema, outputSchema, annotations, icons, _meta
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        title = try c.decodeIfPresent(String.self, forKey: .title)
        description = try c.decodeIfPresent(String.self, forKey: .description)
        inputSchema = try c.decode(Value.self, forKey: .inputSchema)
        outputSchema = try c.decodeIfPresent(Value.self, forKey: .outputSchema)
        annotations = try c.decodeIfPresent(Annotations.self, forKey: .annotations) ?? nil
        icons = try c.decodeIfPresent([Icon].self, forKey: .icons)
        _meta = try c.decodeIfPresent(Metadata.self, forKey: ._meta)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encodeIfPresent(title, forKey: .title)
        try c.encodeIfPresent(description, forKey: .description)
        try c.encode(inputSchema, forKey: .inputSchema)
        try c.encodeIfPresent(outputSchema, forKey: .outputSchema)
        if !annotations.isEmpty { try c.encode(annotations, forKey: .annotations) }
        try c.encodeIfPresent(icons, forKey: .icons)
        try c.encodeIfPresent(_meta, forKey: ._meta)
    }

    /// One block of a tool's result.
    public enum Content: Hashable, Codable, Sendable {
        case text(text: String, annotations: Resource.Annotations?, _meta: Metadata?)
        /// Base64 `data`.
        case image(data: String, mimeType: String, annotations: Resource.Annotations?, _meta: Metadata?)
        /// Base64 `data`.
        case audio(data: String, mimeType: String, annotations: Resource.Annotations?, _meta: Metadata?)
        case resource(resource: Resource.Content, annotations: Resource.Annotations? = nil, _meta: Metadata? = nil)
        case resourceLink(uri: String, name: String, title: String? = nil, description: String? = nil,
                          mimeType: String? = nil, annotations: Resource.Annotations? = nil)

        /// A text block (the swift-sdk's short form).
        public static func text(_ text: String, metadata: Metadata? = nil) -> Self {
            .text(text: text, annotations: nil, _meta: metadata)
        }

        /// A text block.
        public static func text(text: String, metadata: Metadata? = nil) -> Self {
            .text(text: text, annotations: nil, _meta: metadata)
        }

        /// An image block (base64 `data`).
        public static func image(_ data: String, _ mimeType: String, metadata: Metadata? = nil) -> Self {
            .image(data: data, mimeType: mimeType, annotations: nil, _meta: metadata)
        }

        /// An image block (base64 `data`).
        public static func image(data: String, mimeType: String, metadata: Metadata? = nil) -> Self {
            .image(data: data, mimeType: mimeType, annotations: nil, _meta: metadata)
        }

        /// An audio block (base64 `data`).
        public static func audio(data: String, mimeType: String, metadata: Metadata? = nil) -> Self {
            .audio(data: data, mimeType: mimeType, annotations: nil, _meta: metadata)
        }

        private enum CodingKeys: String, CodingKey {
            case type, text, data, mimeType, resource, uri, name, title, description, annotations, _meta
        }

        public init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let annotations = try c.decodeIfPresent(Resource.Annotations.self, forKey: .annotations)
            let meta = try c.decodeIfPresent(Metadata.self, forKey: ._meta)
            switch try c.decode(String.self, forKey: .type) {
            case "text":
                self = .text(text: try c.decode(String.self, forKey: .text), annotations: annotations, _meta: meta)
            case "image":
                self = .image(data: try c.decode(String.self, forKey: .data),
                              mimeType: try c.decode(String.self, forKey: .mimeType), annotations: annotations, _meta: meta)
            case "audio":
                self = .audio(data: try c.decode(String.self, forKey: .data),
                              mimeType: try c.decode(String.self, forKey: .mimeType), annotations: annotations, _meta: meta)
            case "resource":
                self = .resource(resource: try c.decode(Resource.Content.self, forKey: .resource),
                                 annotations: annotations, _meta: meta)
            case "resource_link":
                self = .resourceLink(
                    uri: try c.decode(String.self, forKey: .uri), name: try c.decode(String.self, forKey: .name),
                    title: try c.decodeIfPresent(String.self, forKey: .title),
                    description: try c.decodeIfPresent(String.self, forKey: .description),
                    mimeType: try c.decodeIfPresent(String.self, forKey: .mimeType), annotations: annotations)
            case let other:
                throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "Unknown tool content type \(other)")
            }
        }

        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            switch self {
            case .text(let text, let annotations, let meta):
                try c.encode("text", forKey: .type)
                try c.encode(text, forKey: .text)
                try c.encodeIfPresent(annotations, forKey: .annotations)
                try c.encodeIfPresent(meta, forKey: ._meta)
            case .image(let data, let mimeType, let annotations, let meta),
                 .audio(let data, let mimeType, let annotations, let meta):
                if case .image = self { try c.encode("image", forKey: .type) } else { try c.encode("audio", forKey: .type) }
                try c.encode(data, forKey: .data)
                try c.encode(mimeType, forKey: .mimeType)
                try c.encodeIfPresent(annotations, forKey: .annotations)
                try c.encodeIfPresent(meta, forKey: ._meta)
            case .resource(let resource, let annotations, let meta):
                try c.encode("resource", forKey: .type)
                try c.encode(resource, forKey: .resource)
                try c.encodeIfPresent(annotations, forKey: .annotations)
                try c.encodeIfPresent(meta, forKey: ._meta)
            case .resourceLink(let uri, let name, let title, let description, let mimeType, let annotations):
                try c.encode("resource_link", forKey: .type)
                try c.encode(uri, forKey: .uri)
                try c.encode(name, forKey: .name)
                try c.encodeIfPresent(title, forKey: .title)
                try c.encodeIfPresent(description, forKey: .description)
                try c.encodeIfPresent(mimeType, forKey: .mimeType)
                try c.encodeIfPresent(annotations, forKey: .annotations)
            }
        }
    }
}

/// Parameters of the list methods: an optional cursor.
public struct ListParameters: NotRequired, Hashable, Codable, Sendable {
    public let cursor: String?
    public init() { cursor = nil }
    public init(cursor: String) { self.cursor = cursor }
}

/// `tools/list`.
public enum ListTools: Method {
    public static let name = "tools/list"
    public typealias Parameters = ListParameters

    public struct Result: Hashable, Codable, Sendable {
        public let tools: [Tool]
        public let nextCursor: String?
        public var _meta: Metadata?

        public init(tools: [Tool], nextCursor: String? = nil, _meta: Metadata? = nil) {
            self.tools = tools
            self.nextCursor = nextCursor
            self._meta = _meta
        }
    }
}

/// `tools/call`.
public enum CallTool: Method {
    public static let name = "tools/call"

    public struct Parameters: Hashable, Codable, Sendable {
        public let _meta: Metadata?
        public let name: String
        public let arguments: [String: Value]?

        public init(name: String, arguments: [String: Value]? = nil, meta: Metadata? = nil) {
            self.name = name
            self.arguments = arguments
            self._meta = meta
        }
    }

    public struct Result: Hashable, Codable, Sendable {
        public let content: [Tool.Content]
        public let structuredContent: Value?
        public let isError: Bool?
        public var _meta: Metadata?

        public init(content: [Tool.Content] = [], structuredContent: Value? = nil, isError: Bool? = nil,
                    _meta: Metadata? = nil) {
            self.content = content
            self.structuredContent = structuredContent
            self.isError = isError
            self._meta = _meta
        }

        /// A result whose `structuredContent` is `structuredContent` encoded.
        public init<Output: Codable>(content: [Tool.Content] = [], structuredContent: Output, isError: Bool? = nil,
                                     _meta: Metadata? = nil) throws {
            let encoded = try Value(structuredContent)
            self.init(content: content, structuredContent: Optional.some(encoded), isError: isError, _meta: _meta)
        }
    }
}

/// `notifications/tools/list_changed`.
public struct ToolListChangedNotification: Notification {
    public static let name = "notifications/tools/list_changed"
    public typealias Parameters = Empty
}
