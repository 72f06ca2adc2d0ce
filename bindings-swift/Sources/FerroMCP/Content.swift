// Content: the content blocks of tool results, prompt messages and sampling messages, and the
// contents of a resource, as Swift values with their MCP JSON form (`value` / `init(_:)`).

import Foundation

/// The contents of a resource: text or binary data, at a URI.
public struct ResourceContents: Sendable, Hashable {
    /// The resource's URI (filled in with the read URI when empty).
    public var uri: String
    /// The MIME type (filled in with the registered one when nil).
    public var mimeType: String?
    /// Text contents.
    public var text: String?
    /// Binary contents (sent as base64 `blob`).
    public var blob: Data?
    /// `_meta`.
    public var meta: Value?

    /// Text contents.
    public static func text(_ text: String, uri: String = "", mimeType: String? = nil) -> Self {
        Self(uri: uri, mimeType: mimeType, text: text, blob: nil, meta: nil)
    }

    /// Binary contents.
    public static func blob(_ data: Data, uri: String = "", mimeType: String? = nil) -> Self {
        Self(uri: uri, mimeType: mimeType, text: nil, blob: data, meta: nil)
    }

    /// The MCP JSON form (`TextResourceContents` / `BlobResourceContents`).
    public var value: Value {
        var o: [String: Value] = [:]
        if !uri.isEmpty { o["uri"] = .string(uri) }
        if let mimeType { o["mimeType"] = .string(mimeType) }
        if let blob { o["blob"] = .string(blob.base64EncodedString()) } else { o["text"] = .string(text ?? "") }
        if let meta { o["_meta"] = meta }
        return .object(o)
    }

    /// Reads the MCP JSON form.
    public init(_ value: Value) throws {
        guard let uri = value["uri"]?.stringValue else {
            throw McpError(.internalError, "resource contents without a uri: \(value)")
        }
        self.uri = uri
        mimeType = value["mimeType"]?.stringValue
        text = value["text"]?.stringValue
        blob = value["blob"]?.stringValue.flatMap { Data(base64Encoded: $0) }
        meta = value["_meta"]
    }

    /// Contents with every field given.
    public init(uri: String, mimeType: String?, text: String?, blob: Data?, meta: Value?) {
        self.uri = uri
        self.mimeType = mimeType
        self.text = text
        self.blob = blob
        self.meta = meta
    }
}

/// A content block (`TextContent`, `ImageContent`, `AudioContent`, `EmbeddedResource`,
/// `ResourceLink`).
///
/// `meta` is the block's `_meta` (kept when a block is read and written back, as in Python's and
/// Node's content types); a resource link keeps its `_meta` in `extra` with its other `Resource`
/// fields. Patterns name every associated value: `case .text(let t, _, _)`, or use `text`.
public enum Content: Sendable, Hashable {
    /// Text.
    case text(String, annotations: Value? = nil, meta: Value? = nil)
    /// An image (sent as base64).
    case image(data: Data, mimeType: String, annotations: Value? = nil, meta: Value? = nil)
    /// Audio (sent as base64).
    case audio(data: Data, mimeType: String, annotations: Value? = nil, meta: Value? = nil)
    /// An embedded resource.
    case resource(ResourceContents, annotations: Value? = nil, meta: Value? = nil)
    /// A link to a resource (`name` required by MCP; other `Resource` fields, `_meta` among
    /// them, go in `extra`).
    case resourceLink(uri: String, name: String, mimeType: String? = nil, extra: Value? = nil)

    /// The MCP JSON form.
    public var value: Value {
        var o: [String: Value]
        var ann: Value?
        var meta: Value?
        switch self {
        case .text(let t, let a, let m):
            o = ["type": "text", "text": .string(t)]
            (ann, meta) = (a, m)
        case .image(let d, let mime, let a, let m):
            o = ["type": "image", "data": .string(d.base64EncodedString()), "mimeType": .string(mime)]
            (ann, meta) = (a, m)
        case .audio(let d, let mime, let a, let m):
            o = ["type": "audio", "data": .string(d.base64EncodedString()), "mimeType": .string(mime)]
            (ann, meta) = (a, m)
        case .resource(let r, let a, let m):
            o = ["type": "resource", "resource": r.value]
            (ann, meta) = (a, m)
        case .resourceLink(let uri, let name, let mime, let extra):
            o = extra?.objectValue ?? [:]
            o["type"] = "resource_link"
            o["uri"] = .string(uri)
            o["name"] = .string(name)
            if let mime { o["mimeType"] = .string(mime) }
        }
        if let ann { o["annotations"] = ann }
        if let meta { o["_meta"] = meta }
        return .object(o)
    }

    /// Reads the MCP JSON form.
    public init(_ value: Value) throws {
        let ann = value["annotations"]
        let meta = value["_meta"]
        switch value["type"]?.stringValue {
        case "text":
            self = .text(value["text"]?.stringValue ?? "", annotations: ann, meta: meta)
        case "image", "audio":
            guard let b64 = value["data"]?.stringValue, let data = Data(base64Encoded: b64),
                  let mime = value["mimeType"]?.stringValue
            else { throw McpError(.internalError, "malformed \(value["type"]!) content: \(value)") }
            self = value["type"] == "image"
                ? .image(data: data, mimeType: mime, annotations: ann, meta: meta)
                : .audio(data: data, mimeType: mime, annotations: ann, meta: meta)
        case "resource":
            self = .resource(try ResourceContents(value["resource"] ?? .null), annotations: ann, meta: meta)
        case "resource_link":
            guard let uri = value["uri"]?.stringValue, let name = value["name"]?.stringValue else {
                throw McpError(.internalError, "malformed resource_link content: \(value)")
            }
            var extra = value.objectValue ?? [:]
            for k in ["type", "uri", "name", "mimeType"] { extra[k] = nil }
            self = .resourceLink(uri: uri, name: name, mimeType: value["mimeType"]?.stringValue,
                                 extra: extra.isEmpty ? nil : .object(extra))
        default:
            throw McpError(.internalError, "unknown content type: \(value)")
        }
    }

    /// The text, if this is a text block.
    public var text: String? { if case .text(let t, _, _) = self { t } else { nil } }
}
