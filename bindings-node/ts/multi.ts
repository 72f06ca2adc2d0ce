// MultiClient: one client object over every server of an `mcpServers` configuration (the JSON
// Claude Desktop, Cursor and VS Code read), their tools, resources and prompts namespaced by
// server name as `ferromcp proxy` does (docs/gateway.md): with one server nothing is renamed;
// with several, tool or prompt `read_file` of server `files` is `files_read_file`, and resource
// `file:///a.txt` is `files+file:///a.txt`. A wrong entry throws a ConfigError naming the key.

import { readFileSync } from 'node:fs';
import { Client } from './client';
import type { ClientOptions } from './client';
import type { CallToolResult, GetPromptResult, Prompt, ReadResourceResult, Resource, Tool } from './types';

/** A wrong `mcpServers` configuration: `path` names the key at fault (`mcpServers.a.args[1]`). */
export class ConfigError extends Error {
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(path ? `${path}: ${detail}` : detail);
    this.name = 'ConfigError';
  }
}

/** One server of a configuration: started (`command`) or reached (`url`). */
export interface ServerEntry {
  name: string;
  command?: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  url?: string;
  headers: Record<string, string>;
  sse: boolean;
}

const NAME = /^[A-Za-z][A-Za-z0-9.-]*$/;
const KINDS = new Set(['stdio', 'http', 'streamable-http', 'streamableHttp', 'sse']);

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function strings(path: string, v: unknown): string[] {
  if (!Array.isArray(v)) throw new ConfigError(path, 'must be a list of strings');
  v.forEach((x, i) => {
    if (typeof x !== 'string') throw new ConfigError(`${path}[${i}]`, 'must be a string');
  });
  return v as string[];
}

function stringMap(path: string, v: unknown, numbers: boolean): Record<string, string> {
  if (!isObject(v)) throw new ConfigError(path, 'must be an object of strings');
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (typeof x === 'string') out[k] = x;
    else if (numbers && typeof x === 'number') out[k] = String(x);
    else throw new ConfigError(`${path}.${k}`, 'must be a string');
  }
  return out;
}

function entry(path: string, name: string, raw: unknown): ServerEntry | null {
  if (!isObject(raw)) throw new ConfigError(path, 'a server entry must be an object');
  if (raw.disabled !== undefined && typeof raw.disabled !== 'boolean') throw new ConfigError(`${path}.disabled`, 'must be true or false');
  if (raw.disabled) return null;
  if ('type' in raw && 'transport' in raw) throw new ConfigError(path, 'has both "type" and "transport"; keep one');
  const key = 'type' in raw ? 'type' : 'transport';
  const kind = raw[key];
  if (kind !== undefined && (typeof kind !== 'string' || !KINDS.has(kind))) {
    throw new ConfigError(`${path}.${key}`, `unknown transport ${JSON.stringify(kind)}: use "stdio", "http" or "sse"`);
  }
  const { command, url } = raw;
  if (command !== undefined && url !== undefined) {
    throw new ConfigError(path, 'has both "command" and "url": a server is either started (command) or reached (url)');
  }
  if (command === undefined && url === undefined) throw new ConfigError(path, 'needs "command" (a server to start) or "url" (one to reach)');
  if (command !== undefined) {
    if (typeof command !== 'string' || command === '') throw new ConfigError(`${path}.command`, 'must be a non-empty string');
    if (kind !== undefined && kind !== 'stdio') throw new ConfigError(path, `has "command" but transport ${JSON.stringify(kind)}; use "url"`);
    if ('headers' in raw) throw new ConfigError(`${path}.headers`, 'applies to URL servers, not to a command');
    if (raw.cwd !== undefined && typeof raw.cwd !== 'string') throw new ConfigError(`${path}.cwd`, 'must be a string');
    return {
      name,
      command,
      args: strings(`${path}.args`, raw.args ?? []),
      env: stringMap(`${path}.env`, raw.env ?? {}, true),
      cwd: raw.cwd as string | undefined,
      headers: {},
      sse: false,
    };
  }
  if (typeof url !== 'string' || !/^https?:\/\//.test(url)) {
    throw new ConfigError(`${path}.url`, `${JSON.stringify(url)} is not an http:// or https:// URL`);
  }
  if (kind === 'stdio') throw new ConfigError(path, 'has "url" but transport "stdio"; use "command"');
  for (const k of ['env', 'cwd', 'args']) {
    if (k in raw) throw new ConfigError(`${path}.${k}`, 'applies to started servers ("command"), not to a URL');
  }
  return { name, url, args: [], env: {}, headers: stringMap(`${path}.headers`, raw.headers ?? {}, false), sse: kind === 'sse' };
}

/** The servers of an `mcpServers` (or VS Code `servers`) document, sorted by name. */
export function parseConfig(config: unknown): ServerEntry[] {
  if (!isObject(config)) throw new ConfigError('', 'the configuration must be a JSON object');
  if ('mcpServers' in config && 'servers' in config) throw new ConfigError('', 'both "mcpServers" and "servers" are present; keep one');
  const key = 'mcpServers' in config ? 'mcpServers' : 'servers';
  const servers = config[key];
  if (!isObject(servers) || Object.keys(servers).length === 0) throw new ConfigError(key, 'must be an object with at least one server');
  const entries = Object.keys(servers)
    .sort()
    .map((name) => entry(`${key}.${name}`, name, servers[name]))
    .filter((e): e is ServerEntry => e !== null);
  if (entries.length === 0) throw new ConfigError(key, 'every server is disabled');
  if (entries.length > 1) {
    for (const e of entries) {
      if (!NAME.test(e.name)) {
        throw new ConfigError(`${key}.${e.name}`, "a server name must start with a letter and hold only letters, digits, '-' and '.' to be a namespace");
      }
    }
  }
  return entries;
}

function load(config: unknown): unknown {
  if (typeof config !== 'string') return config;
  const text = config.trimStart().startsWith('{') ? config : readFileSync(config, 'utf8');
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ConfigError('', `${text === config ? 'the configuration' : config} is not JSON: ${(e as Error).message}`);
  }
}

/**
 * Clients of several MCP servers as one: `listTools`, `callTool`, `listResources`,
 * `readResource`, `listPrompts` and `getPrompt` over all of them, names namespaced by server.
 * `client(name)` is one server's {@link Client}.
 */
export class MultiClient {
  readonly #clients: Map<string, Client>;
  readonly #namespaced: boolean;
  readonly #byLength: string[];

  private constructor(clients: Map<string, Client>) {
    this.#clients = clients;
    this.#namespaced = clients.size > 1;
    this.#byLength = [...clients.keys()].sort((a, b) => b.length - a.length);
  }

  /**
   * Connects to every server of `config` (an `mcpServers` document, its JSON text, or the path
   * of a file holding it); `options` go to each server's client. If one server cannot be
   * connected, the others are closed and the error names it.
   */
  static async fromConfig(config: unknown, options: ClientOptions = {}): Promise<MultiClient> {
    const entries = parseConfig(load(config));
    const settled = await Promise.allSettled(
      entries.map((e) =>
        e.command !== undefined
          ? Client.stdio({ command: e.command, args: e.args, env: e.env, cwd: e.cwd }, options)
          : // A legacy HTTP+SSE server refuses the Streamable HTTP attempt; the client falls back.
            Client.http(e.url as string, { ...options, headers: e.headers, legacyFallback: true }),
      ),
    );
    const clients = new Map<string, Client>();
    settled.forEach((s, i) => {
      if (s.status === 'fulfilled') clients.set(entries[i].name, s.value);
    });
    const failed = settled.findIndex((s) => s.status === 'rejected');
    if (failed >= 0) {
      await Promise.allSettled([...clients.values()].map((c) => c.close()));
      const reason = (settled[failed] as PromiseRejectedResult).reason as Error;
      throw new Error(`server "${entries[failed].name}" could not be connected: ${reason?.message ?? reason}`, { cause: reason });
    }
    return new MultiClient(clients);
  }

  /** The servers' names, sorted. */
  get names(): string[] {
    return [...this.#clients.keys()];
  }

  /** The client of server `name`. */
  client(name: string): Client {
    const c = this.#clients.get(name);
    if (!c) throw new Error(`no server "${name}"; servers: ${this.names.join(', ')}`);
    return c;
  }

  #name(server: string, name: string): string {
    return this.#namespaced ? `${server}_${name}` : name;
  }

  #uri(server: string, uri: string): string {
    return this.#namespaced ? `${server}+${uri}` : uri;
  }

  #split(value: string, sep: string, what: string): [Client, string, string] {
    if (!this.#namespaced) {
      const [only] = this.#clients.keys();
      return [this.client(only), value, ''];
    }
    for (const server of this.#byLength) {
      if (value.startsWith(server + sep) && value.length > server.length + 1) {
        return [this.client(server), value.slice(server.length + 1), server + sep];
      }
    }
    throw new Error(`${JSON.stringify(value)} names no server: namespaced ${what} start with one of ${this.names.join(', ')} and '${sep}'`);
  }

  async #each<T>(fetch: (server: string, c: Client) => Promise<T[]>): Promise<T[]> {
    const parts = await Promise.all([...this.#clients].map(([n, c]) => fetch(n, c)));
    return parts.flat();
  }

  /** Every tool of every server, namespaced. */
  listTools(): Promise<Tool[]> {
    return this.#each(async (server, c) => (await c.listAllTools()).map((t) => ({ ...t, name: this.#name(server, t.name) })));
  }

  /** Calls the namespaced tool `name` on its server. */
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<CallToolResult> {
    const [c, tool] = this.#split(params.name, '_', 'names');
    return c.callTool({ ...params, name: tool });
  }

  /** Every listed resource of every server, URIs namespaced. */
  listResources(): Promise<Resource[]> {
    return this.#each(async (server, c) => {
      const out: Resource[] = [];
      let cursor: string | undefined;
      do {
        const page = await c.listResources(cursor ? { cursor } : undefined);
        out.push(...page.resources.map((r) => ({ ...r, uri: this.#uri(server, r.uri) })));
        cursor = page.nextCursor;
      } while (cursor);
      return out;
    });
  }

  /** Reads the namespaced resource `uri` from its server; the contents' URIs are namespaced. */
  async readResource(params: { uri: string }): Promise<ReadResourceResult> {
    const [c, uri, prefix] = this.#split(params.uri, '+', 'URIs');
    const r = await c.readResource({ uri });
    return { ...r, contents: r.contents.map((x) => ({ ...x, uri: prefix + x.uri })) };
  }

  /** Every prompt of every server, namespaced. */
  listPrompts(): Promise<Prompt[]> {
    return this.#each(async (server, c) => {
      const out: Prompt[] = [];
      let cursor: string | undefined;
      do {
        const page = await c.listPrompts(cursor ? { cursor } : undefined);
        out.push(...page.prompts.map((p) => ({ ...p, name: this.#name(server, p.name) })));
        cursor = page.nextCursor;
      } while (cursor);
      return out;
    });
  }

  /** Gets the namespaced prompt `name` from its server. */
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<GetPromptResult> {
    const [c, prompt] = this.#split(params.name, '_', 'names');
    return c.getPrompt({ ...params, name: prompt });
  }

  /** Closes every connection. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#clients.values()].map((c) => c.close()));
  }
}
