// Resources: the official swift-sdk's `Resource` (with `Content`, `Template`, `Annotations`) and
// the resource methods and notifications, in its shapes, encoded as MCP's wire JSON.

import Foundation

/// A resource a server lists (`resources/list`).
public struct Resource: Hashable, Codable, Sendable {
    public var name: String
    public var title: String?
    public var uri: String
    public var description: String?
    public var mimeType: String?
    public var size: Int?
    public var annotations: Resource.Annotations?
    public var icons: [Icon]?
    public var _meta: Metadata?

    public init(name: String, uri: String, title: String? = nil, description: String? = nil,
                mimeType: String? = nil, size: Int? = nil, annotations: Resource.Annotations? = nil,
                icons: [Icon]? = nil, _meta: Metadata? = nil) {
        self.name = name
        self.uri = uri
        self.title = title
        self.description = description
        self.mimeType = mimeType
        self.size = size
        self.annotations = annotations
        self.icons = icons
        self._meta = _meta
    }

    /// What `resources/read` answers for one URI: text or a base64 `blob`.
    public struct Content: Hashable, Codable, Sendable {
        public let uri: String
        public let mimeType: String?
        public let text: String?
        public let blob: String?
        public var _meta: Metadata?

        /// Text contents.
        public static func text(_ content: String, uri: String, mimeType: String? = nil, _meta: Metadata? = nil) -> Self {
            .init(uri: uri, mimeType: mimeType, text: content, blob: nil, _meta: _meta)
        }

        /// Binary contents (sent as base64).
        public static func binary(_ data: Data, uri: String, mimeType: String? = nil, _meta: Metadata? = nil) -> Self {
            .init(uri: uri, mimeType: mimeType, text: nil, blob: data.base64EncodedString(), _meta: _meta)
        }

        private init(uri: String, mimeType: String?, text: String?, blob: String?, _meta: Metadata?) {
            self.uri = uri
            self.mimeType = mimeType
            self.text = text
            self.blob = blob
            self._meta = _meta
        }
    }

    /// A resource template (`resources/templates/list`).
    public struct Template: Hashable, Codable, Sendable {
        public var uriTemplate: String
        public var name: String
        public var title: String?
        public var description: String?
        public var mimeType: String?
        public var annotations: Resource.Annotations?
        public var icons: [Icon]?
        public var _meta: Metadata?

        public init(uriTemplate: String, name: String, title: String? = nil, description: String? = nil,
                    mimeType: String? = nil, annotations: Resource.Annotations? = nil, icons: [Icon]? = nil,
                    _meta: Metadata? = nil) {
            self.uriTemplate = uriTemplate
            self.name = name
            self.title = title
            self.description = description
            self.mimeType = mimeType
            self.annotations = annotations
            self.icons = icons
            self._meta = _meta
        }
    }

    /// Who a piece of content is for and how much it matters.
    public struct Annotations: Hashable, Codable, Sendable {
        public enum Audience: String, Hashable, Codable, Sendable {
            case user, assistant
        }

        public let audience: [Audience]?
        public let priority: Double?
        public let lastModified: String?

        public init(audience: [Audience]? = nil, priority: Double? = nil, lastModified: String? = nil) {
            self.audience = audience
            self.priority = priority
            self.lastModified = lastModified
        }
    }
}

/// `resources/list`.
public enum ListResources: Method {
    public static let name = "resources/list"
    public typealias Parameters = ListParameters

    public struct Result: Hashable, Codable, Sendable {
        public let resources: [Resource]
        public let nextCursor: String?
        public var _meta: Metadata?

        public init(resources: [Resource], nextCursor: String? = nil, _meta: Metadata? = nil) {
            self.resources = resources
            self.nextCursor = nextCursor
            self._meta = _meta
        }
    }
}

/// `resources/read`.
public enum ReadResource: Method {
    public static let name = "resources/read"

    public struct Parameters: Hashable, Codable, Sendable {
        public let uri: String
        public init(uri: String) { self.uri = uri }
    }

    public struct Result: Hashable, Codable, Sendable {
        public let contents: [Resource.Content]
        public var _meta: Metadata?

        public init(contents: [Resource.Content], _meta: Metadata? = nil) {
            self.contents = contents
            self._meta = _meta
        }
    }
}

/// `resources/templates/list`.
public enum ListResourceTemplates: Method {
    public static let name = "resources/templates/list"
    public typealias Parameters = ListParameters

    public struct Result: Hashable, Codable, Sendable {
        public let templates: [Resource.Template]
        public let nextCursor: String?
        public var _meta: Metadata?

        public init(templates: [Resource.Template], nextCursor: String? = nil, _meta: Metadata? = nil) {
            self.templates = templates
            self.nextCursor = nextCursor
            self._meta = _meta
        }

        private enum CodingKeys: String, CodingKey {
            case templates = "resourceTemplates", nextCursor, _meta
        }
    }
}

/// `resources/subscribe`.
public enum ResourceSubscribe: Method {
    public static let name = "resources/subscribe"

    public struct Parameters: Hashable, Codable, Sendable {
        public let uri: String
        public init(uri: String) { self.uri = uri }
    }

    public typealias Result = Empty
}

/// `resources/unsubscribe`.
public enum ResourceUnsubscribe: Method {
    public static let name = "resources/unsubscribe"

    public struct Parameters: Hashable, Codable, Sendable {
        public let uri: String
        public init(uri: String) { self.uri = uri }
    }

    public typealias Result = Empty
}

/// `notifications/resources/list_changed`.
public struct ResourceListChangedNotification: Notification {
    public static let name = "notifications/resources/list_changed"
    public typealias Parameters = Empty
}

/// `notifications/resources/updated`.
public struct ResourceUpdatedNotification: Notification {
    public static let name = "notifications/resources/updated"

    public struct Parameters: Hashable, Codable, Sendable {
        public let uri: String
        public init(uri: String) { self.uri = uri }
    }
}
