// EngineLog: where the engine's own log events go (the `.requestLog` layer's line per request,
// the original detail of an error `.maskErrors` hid, the engine's warnings). By default each
// event at `info` and above is one line on stderr, written by the engine; `FERROMCP_LOG`
// (`off`, `error`, `warn`, `info`, `debug`, `trace`) sets that default level.
// `EngineLog.setHandler` hands the events to a closure instead (to `os_log`, swift-log, ...).

import FerroMCPNative
import Foundation

/// Where the engine's own log events go.
///
/// ```swift
/// EngineLog.setHandler(level: .info) { record in
///     print("[\(record.level)] \(record.logger): \(record.line)")
/// }
/// ```
public enum EngineLog {
    /// An event's level, least severe first; `.off` forwards nothing.
    public enum Level: String, Sendable, CaseIterable {
        case trace, debug, info, warn, error, off
    }

    /// One engine log event.
    public struct Record: Sendable {
        /// The event's level (never `.off`).
        public let level: Level
        /// The logger's name under `ferromcp` (`ferromcp.request`, `ferromcp.masked`, ...).
        public let logger: String
        /// The Rust `tracing` target (`ferromcp::request`).
        public let target: String
        /// The event's message (`request`, `error masked`).
        public let message: String
        /// The message followed by the fields as `name=value`, as the stderr default prints it.
        public let line: String
        /// The event's fields: for `ferromcp.request` `method`, `tool`, `id`, `duration_us`,
        /// `outcome` (`ok`, `error`, `cancelled`), `code`, `principal`, `session`; for
        /// `ferromcp.masked` `method`, `id`, `code`, `detail` (the original message), `data`.
        public let fields: [String: Value]
    }

    /// Sends the engine's log events at `level` and above to `handler`, called on the engine's
    /// thread that emitted each (hand the record on and return), or, with `nil`, back to stderr
    /// lines. Returns false when the events cannot be forwarded (another Rust `tracing`
    /// subscriber was installed in this process first).
    @discardableResult
    public static func setHandler(level: Level = .info,
                                  _ handler: (@Sendable (Record) -> Void)?) -> Bool {
        // Every case of `Level` is a level the engine knows: this cannot throw.
        (try? FerroMCPNative.setLogHandler(handler: handler.map(Relay.init), level: level.rawValue))
            ?? false
    }

    /// The least severe level forwarded (`.off`: none); setting it keeps the handler.
    public static var level: Level {
        get { Level(rawValue: FerroMCPNative.logLevel()) ?? .off }
        set { try? FerroMCPNative.setLogLevel(level: newValue.rawValue) }
    }
}

/// Hands the engine's records to an `EngineLog.setHandler` closure.
private final class Relay: LogHandler {
    private let handler: @Sendable (EngineLog.Record) -> Void

    init(_ handler: @escaping @Sendable (EngineLog.Record) -> Void) {
        self.handler = handler
    }

    func log(record: NativeLogRecord) {
        let fields = (try? Value(json: record.fields))?.objectValue ?? [:]
        handler(EngineLog.Record(level: EngineLog.Level(rawValue: record.level) ?? .info,
                                 logger: record.logger, target: record.target,
                                 message: record.message, line: record.line, fields: fields))
    }
}
