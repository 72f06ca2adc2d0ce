/**
 * `ferromcp/client/stdio.js`: the TypeScript SDK's `StdioClientTransport` for
 * `client.connect(transport)`: spawns the server and speaks over its stdin/stdout (the engine's
 * stdio client; closing ends the process tree).
 * @module
 */
import { Client as EngineClient, type ClientOptions, type StdioServerParameters } from '../../client';
import { CONNECT_CLIENT, type Client, type ClientTransportLike } from './index';

/** The SDK's `StdioServerParameters` (`stderr` other than the default is not supported). */
export interface SdkStdioServerParameters extends StdioServerParameters {
  stderr?: 'inherit';
}

/** The variables the SDK passes to a spawned server when `env` is not given. */
export function getDefaultEnvironment(): Record<string, string> {
  const keys = process.platform === 'win32'
    ? ['APPDATA', 'HOMEDRIVE', 'HOMEPATH', 'LOCALAPPDATA', 'PATH', 'PROCESSOR_ARCHITECTURE', 'SYSTEMDRIVE', 'SYSTEMROOT', 'TEMP', 'USERNAME', 'USERPROFILE', 'PROGRAMFILES']
    : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];
  const env: Record<string, string> = {};
  for (const k of keys) {
    const v = process.env[k];
    if (v !== undefined && !v.startsWith('()')) env[k] = v;
  }
  return env;
}

/** The SDK's stdio client transport, on the engine's stdio client. */
export class StdioClientTransport implements ClientTransportLike {
  readonly #params: SdkStdioServerParameters;
  #engine: EngineClient | undefined;
  /** Called when the connection closes. */
  onclose?: () => void;
  /** Errors of the transport. */
  onerror?: (error: Error) => void;

  constructor(params: SdkStdioServerParameters) {
    if (params.stderr !== undefined && params.stderr !== 'inherit') {
      throw new TypeError(`StdioClientTransport: stderr ${JSON.stringify(params.stderr)} is not supported (the server's stderr is inherited)`);
    }
    this.#params = params;
  }

  /** @internal */
  async [CONNECT_CLIENT](options: ClientOptions): Promise<EngineClient> {
    const { stderr: _stderr, ...server } = this.#params;
    return EngineClient.stdio(server, options);
  }

  /** @internal */
  _attached(_client: Client, engine: EngineClient): void {
    this.#engine = engine;
    engine.once('close', () => this.onclose?.());
  }

  /** No-op (`connect` starts the transport). */
  async start(): Promise<void> {}

  /** Ends the server process tree. */
  async close(): Promise<void> {
    const engine = this.#engine;
    this.#engine = undefined;
    if (engine) await engine.close();
  }
}
