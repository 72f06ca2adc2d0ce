/**
 * OpenTelemetry for a {@link McpServer}: the engine's layer (Rust, feature `otel`) by name, as
 * the other built-in layers. It opens a `SERVER` span per request named as OpenTelemetry's MCP
 * semantic conventions say, reads the caller's trace context from `params._meta`
 * (`traceparent`, `tracestate`, `baggage`) or the HTTP header fields, records
 * `mcp.server.operation.duration`, and exports over OTLP/HTTP. A sampled request's `_meta`
 * then names the engine span (`ctx._meta.traceparent`), so a span a JavaScript handler starts
 * with its own OpenTelemetry SDK from that context is the engine span's child. See
 * docs/observability.md.
 * @module
 */

/** Options of {@link openTelemetry}; each unset one comes from the standard `OTEL_*` variables. */
export interface OpenTelemetryOptions {
  /** `service.name` (`OTEL_SERVICE_NAME`). */
  serviceName?: string;
  /** The OTLP/HTTP base URL, e.g. `http://127.0.0.1:4318` (`OTEL_EXPORTER_OTLP_ENDPOINT`). */
  otlpEndpoint?: string;
  /** Header fields sent with every export (API keys; `OTEL_EXPORTER_OTLP_HEADERS`). */
  otlpHeaders?: Record<string, string>;
  /** The share of new traces sampled, 0 to 1 (parent-based: a caller's decision is kept). */
  samplingRatio?: number;
  /** How often metrics are exported, in ms (`OTEL_METRIC_EXPORT_INTERVAL`, default 60000). */
  metricExportIntervalMs?: number;
  /**
   * A path such as `/metrics` where `listen()` serves the metrics as Prometheus text (GET, no
   * session needed): the request durations, and the listener's `ferromcp_server_sessions`,
   * `ferromcp_server_connections` and `ferromcp_server_sse_streams` gauges.
   */
  prometheus?: string;
}

/** The layer as `server.use(...)` and the `middleware` option take it. */
export type OpenTelemetryLayer = { name: 'openTelemetry' } & OpenTelemetryOptions;

/**
 * The engine's OpenTelemetry layer: add it first (`server.use(openTelemetry({...}))`) so that its
 * span and duration cover every later layer. Unknown options are refused when it is added.
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): OpenTelemetryLayer {
  return { name: 'openTelemetry', ...options };
}

/**
 * Options of a client's `openTelemetry` (`ClientOptions.openTelemetry`): the layer's, but
 * `prometheus` (a client serves no metrics endpoint).
 */
export type ClientOpenTelemetryOptions = Omit<OpenTelemetryOptions, 'prometheus'>;

/** The part of `@opentelemetry/api` a traced client uses. */
interface OtelApi {
  context: { active(): unknown };
  propagation: { inject(context: unknown, carrier: Record<string, string>): void };
}

/** `@opentelemetry/api` when the application has it installed (`null` when not), loaded once. */
let otelApi: OtelApi | null | undefined;

function loadOtelApi(): OtelApi | null {
  if (otelApi === undefined) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      otelApi = require('@opentelemetry/api') as OtelApi;
    } catch {
      otelApi = null;
    }
  }
  return otelApi;
}

/**
 * `params` with the active OpenTelemetry context (the span the caller is in, by
 * `@opentelemetry/api` and its global propagator) written into `_meta`, unless the caller put a
 * `traceparent` there itself or there is no active span: the engine's client span takes its
 * parent from there.
 * @internal
 */
export function withActiveTraceContext(params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const meta = params?._meta as Record<string, unknown> | undefined;
  if (meta !== undefined && (typeof meta !== 'object' || meta === null || 'traceparent' in meta)) return params;
  const api = loadOtelApi();
  if (!api) return params;
  const carrier: Record<string, string> = {};
  api.propagation.inject(api.context.active(), carrier);
  if (carrier.traceparent === undefined) return params;
  return { ...params, _meta: { ...meta, ...carrier } };
}

