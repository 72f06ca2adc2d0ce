/**
 * Where the engine's own log events go: the `requestLog()` layer's line per request (logger
 * `ferromcp.request`), the original detail of an error `maskErrors()` hid (`ferromcp.masked`),
 * the engine's warnings (`ferromcp.<module>`).
 *
 * By default each event at `info` and above is one line on stderr, written by the engine
 * (`ferromcp INFO ferromcp.request: request method=tools/call tool=echo duration_us=41
 * outcome=ok ...`); the environment variable `FERROMCP_LOG` (`off`, `error`, `warn`, `info`,
 * `debug`, `trace`) sets that default level. {@link setLogHandler} hands the events to a
 * function of yours instead (a logger such as pino or winston), {@link setLogLevel} changes the
 * level; events below the level are never formatted.
 *
 * ```ts
 * import { McpServer, requestLog, setLogHandler } from 'ferromcp';
 *
 * setLogHandler((r) => console.log(JSON.stringify({ level: r.level, logger: r.logger, msg: r.message, ...r.fields })));
 * const server = new McpServer({ name: 'demo', version: '1.0.0' }, { middleware: [requestLog()] });
 * ```
 * @module
 */
import native from './native';

/** An engine event's level, least severe first. */
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';

/** One engine log event. */
export interface LogRecord {
  /** The event's level. */
  level: LogLevel;
  /** The logger's name, under `ferromcp` (`ferromcp.request`, `ferromcp.masked`, ...). */
  logger: string;
  /** The Rust `tracing` target (`ferromcp::request`). */
  target: string;
  /** The event's message (`request`, `error masked`). */
  message: string;
  /** The message followed by the fields as `name=value`, as the stderr default prints it. */
  line: string;
  /** The event's fields: for `ferromcp.request` `method`, `tool`, `id`, `duration_us`,
   * `outcome` (`ok`, `error`, `cancelled`), `code`, `principal`, `session`; for
   * `ferromcp.masked` `method`, `id`, `code`, `detail` (the original message), `data`. */
  fields: Record<string, unknown>;
}

/** A function that takes the engine's log events. */
export type LogHandler = (record: LogRecord) => void;

const LEVELS: ReadonlyArray<LogLevel | 'off'> = ['trace', 'debug', 'info', 'warn', 'error', 'off'];

function checkLevel(level: unknown): LogLevel | 'off' {
  if (typeof level !== 'string' || !LEVELS.includes(level as LogLevel)) {
    throw new TypeError(`log level must be one of ${LEVELS.map((l) => `'${l}'`).join(', ')}; got ${String(level)}`);
  }
  return level as LogLevel | 'off';
}

/**
 * Sends the engine's log events at `options.level` and above (default `'info'`) to `handler`,
 * called on the event loop shortly after each event (it does not keep the process alive); an
 * exception it throws is printed on stderr. `null` goes back to the stderr lines. Returns
 * false when the events cannot be forwarded (another Rust `tracing` subscriber was installed
 * in this addon first).
 */
export function setLogHandler(handler: LogHandler | null, options: { level?: LogLevel | 'off' } = {}): boolean {
  const level = checkLevel(options.level ?? 'info');
  if (handler !== null && typeof handler !== 'function') {
    throw new TypeError('setLogHandler takes a function (record) => void, or null');
  }
  const wrapped =
    handler === null
      ? null
      : (record: LogRecord): void => {
          try {
            handler(record);
          } catch (e) {
            console.error('ferromcp: the log handler threw:', e);
          }
        };
  return native.setLogHandler(wrapped, level);
}

/** Changes the least severe level of the engine's log events that are forwarded. */
export function setLogLevel(level: LogLevel | 'off'): void {
  native.setLogLevel(checkLevel(level));
}

/** The least severe level forwarded now (`'off'`: none). */
export function logLevel(): LogLevel | 'off' {
  return native.logLevel() as LogLevel | 'off';
}
