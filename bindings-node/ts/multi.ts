// MultiClient: one client object over every server of an `mcpServers` configuration (the JSON
// Claude Desktop, Cursor and VS Code read), their tools, resources and prompts namespaced by
// server name as `ferromcp proxy` does (docs/gateway.md): with one server nothing is renamed;
// with several, tool or prompt `read_file` of server `files` is `files_read_file`, and resource
// `file:///a.txt` is `files+file:///a.txt`. The configuration is read by the engine
// (`ferromcp::client::mcp_servers`, the same reader as the proxy's and the Python and Swift
// clients'): entries, errors and name prefixes come from there. A wrong entry throws a
// ConfigError naming the key.

import { Client } from './client';
import type { ClientOptions } from './client';
import native from './native';
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

/** One server of a configuration, as the engine read it: started (`command`) or reached (`url`). */
export interface ServerEntry {
  name: string;
  /** `"stdio"`, `"http"` (Streamable HTTP) or `"sse"` (legacy HTTP+SSE). */
  transport: 'stdio' | 'http' | 'sse';
  command?: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  url?: string;
  headers: Record<string, string>;
  sse: boolean;
  /** In front of the server's tool and prompt names (`"files_"`; empty with one server). */
  namePrefix: string;
  /** In front of the server's resource URIs (`"files+"`; empty with one server). */
  uriPrefix: string;
}

type Resolved = { servers: (Omit<ServerEntry, 'args' | 'env' | 'headers' | 'sse' | 'cwd'> & Partial<ServerEntry> & { cwd?: string | null })[] };
type Refused = { error: { path: string; message: string } };

/** The text the engine reads: JSON text, or a file's path. */
function source(config: unknown): string {
  if (typeof config === 'string') return config;
  if (typeof config !== 'object' || config === null) {
    throw new ConfigError('', 'the configuration must be an object, its JSON text, or the path of a file holding it');
  }
  try {
    return JSON.stringify(config);
  } catch (e) {
    throw new ConfigError('', `the configuration is not JSON data: ${(e as Error).message}`);
  }
}

/**
 * The enabled servers of an `mcpServers` (or VS Code `servers`) document, sorted by name: an
 * object, its JSON text, or the path of a file holding it. Throws {@link ConfigError}.
 */
export function parseConfig(config: unknown): ServerEntry[] {
  const answer = JSON.parse(native.resolveMcpServers(source(config))) as Resolved | Refused;
  if ('error' in answer) throw new ConfigError(answer.error.path, answer.error.message);
  return answer.servers.map((s) => ({
    ...s,
    args: s.args ?? [],
    env: s.env ?? {},
    cwd: s.cwd ?? undefined,
    headers: s.headers ?? {},
    sse: s.transport === 'sse',
  }));
}

/**
 * Clients of several MCP servers as one: `listTools`, `callTool`, `listResources`,
 * `readResource`, `listPrompts` and `getPrompt` over all of them, names namespaced by server.
 * `client(name)` is one server's {@link Client}.
 */
export class MultiClient {
  readonly #clients: Map<string, Client>;
  readonly #entries: Map<string, ServerEntry>;
  /** Longest name first: a prefix match finds the most specific server. */
  readonly #byLength: ServerEntry[];

  private constructor(clients: Map<string, Client>, entries: ServerEntry[]) {
    this.#clients = clients;
    this.#entries = new Map(entries.map((e) => [e.name, e]));
    this.#byLength = [...entries].sort((a, b) => b.name.length - a.name.length);
  }

  /**
   * Connects to every server of `config` (an `mcpServers` document, its JSON text, or the path
   * of a file holding it); `options` go to each server's client. If one server cannot be
   * connected, the others are closed and the error names it.
   */
  static async fromConfig(config: unknown, options: ClientOptions = {}): Promise<MultiClient> {
    const entries = parseConfig(config);
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
    return new MultiClient(clients, entries);
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
    return (this.#entries.get(server)?.namePrefix ?? '') + name;
  }

  #uri(server: string, uri: string): string {
    return (this.#entries.get(server)?.uriPrefix ?? '') + uri;
  }

  #split(value: string, uri: boolean): [Client, string, string] {
    for (const e of this.#byLength) {
      const prefix = uri ? e.uriPrefix : e.namePrefix;
      if (value.startsWith(prefix) && (prefix === '' || value.length > prefix.length)) {
        return [this.client(e.name), value.slice(prefix.length), prefix];
      }
    }
    const [what, sep] = uri ? ['URIs', '+'] : ['names', '_'];
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
    const [c, tool] = this.#split(params.name, false);
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
    const [c, uri, prefix] = this.#split(params.uri, true);
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
    const [c, prompt] = this.#split(params.name, false);
    return c.getPrompt({ ...params, name: prompt });
  }

  /** Closes every connection. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#clients.values()].map((c) => c.close()));
  }
}
