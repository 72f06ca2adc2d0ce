// OpenTelemetry: the engine's layer (Rust, feature `otel`) by name and options, as the other
// built-in layers (`try server.use(.openTelemetry(serviceName: "weather"))`). It opens a
// `SERVER` span per request named as OpenTelemetry's MCP semantic conventions say, joins the
// caller's trace from `params._meta.traceparent` (or the HTTP `traceparent` header), records
// the request metrics, and exports both over OTLP/HTTP. A Swift handler reads the engine
// span's context in `context.meta?["traceparent"]`, so a span it starts from that context with
// its own OpenTelemetry SDK is the engine span's child (docs/observability.md).

extension BuiltinMiddleware {
    /// The engine's OpenTelemetry layer. Each option left `nil` comes from the standard
    /// `OTEL_*` variable named beside it. Add it first so that its span and duration cover
    /// every later layer; options the engine does not accept (a `samplingRatio` outside 0...1)
    /// make `use` throw.
    ///
    /// - Parameters:
    ///   - serviceName: `service.name` (`OTEL_SERVICE_NAME`).
    ///   - otlpEndpoint: the OTLP/HTTP base URL, e.g. `http://127.0.0.1:4318`
    ///     (`OTEL_EXPORTER_OTLP_ENDPOINT`).
    ///   - otlpHeaders: header fields sent with every export, e.g. an API key
    ///     (`OTEL_EXPORTER_OTLP_HEADERS`).
    ///   - samplingRatio: the share of new traces sampled, 0 to 1 (parent-based: a caller's
    ///     decision is kept).
    ///   - metricExportInterval: how often metrics are exported (`OTEL_METRIC_EXPORT_INTERVAL`,
    ///     default 60 s).
    ///   - prometheus: a path such as `/metrics` where `startHTTP`/`serveHTTP` serve the metrics
    ///     as Prometheus text (GET, no session needed): the request durations and the
    ///     listener's `ferromcp_server_sessions`, `ferromcp_server_connections` and
    ///     `ferromcp_server_sse_streams` gauges.
    public static func openTelemetry(
        serviceName: String? = nil, otlpEndpoint: String? = nil, otlpHeaders: [String: String]? = nil,
        samplingRatio: Double? = nil, metricExportInterval: Duration? = nil, prometheus: String? = nil
    ) -> BuiltinMiddleware {
        var o: [String: Value] = ["name": "openTelemetry"]
        o.set("serviceName", serviceName.map(Value.string))
        o.set("otlpEndpoint", otlpEndpoint.map(Value.string))
        o.set("otlpHeaders", otlpHeaders.map { .object($0.mapValues(Value.string)) })
        o.set("samplingRatio", samplingRatio.map(Value.double))
        o.set("metricExportIntervalMs", metricExportInterval.map { .int($0.wholeMilliseconds) })
        o.set("prometheus", prometheus.map(Value.string))
        return BuiltinMiddleware(kind: .config(.object(o)))
    }
}
