/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension, SEP-1865): a tool names an HTML user
 * interface, a `ui://` resource of MIME type `text/html;profile=mcp-app`, that a host renders in
 * a sandboxed frame.
 *
 * The same helpers as Rust's `ferromcp::server::apps`, built on `McpServer.registerResource` and
 * `registerTool` with `_meta`: {@link registerAppResource} registers the UI (its HTML and its
 * `_meta.ui`: CSP domains, permissions, dedicated domain, border preference),
 * {@link registerAppTool} a tool with `_meta.ui.resourceUri` (and the deprecated flat
 * `ui/resourceUri` older hosts read), {@link clientSupportsUi} whether the client behind a request
 * renders UIs. Every check happens at registration and throws a `TypeError` naming the member and
 * the rule: a URI outside `ui://`, a malformed `_meta.ui`, a tool naming a UI that is not
 * registered on the server.
 * @module
 */
import type { RequestContext } from './context';
import type { McpServer, Registered, ToolCallback, ToolConfig } from './server';
import type { SchemaInput } from './schema';

/** The extension's identifier, the key under `capabilities.extensions`. */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
/** The MIME type of an MCP App's HTML (the extension's SDK calls it `RESOURCE_MIME_TYPE`). */
export const UI_MIME_TYPE = 'text/html;profile=mcp-app';
/** The deprecated flat `_meta` key older hosts read a tool's UI from. */
export const RESOURCE_URI_META_KEY = 'ui/resourceUri';

const CSP_KEYS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;
const PERMISSIONS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'] as const;

/** The origins a UI may reach (`_meta.ui.csp`). */
export interface UiCsp {
  connectDomains?: string[];
  resourceDomains?: string[];
  frameDomains?: string[];
  baseUriDomains?: string[];
}

/** A UI resource's `_meta.ui`. */
export interface UiResourceMeta {
  csp?: UiCsp;
  /** Browser permissions asked for, each an empty object: `{ geolocation: {} }`. */
  permissions?: Partial<Record<(typeof PERMISSIONS)[number], Record<string, never>>>;
  /** A dedicated sandbox origin (its format is the host's). */
  domain?: string;
  prefersBorder?: boolean;
}

/** {@link registerAppResource}'s metadata. */
export interface AppResourceConfig {
  title?: string;
  description?: string;
  _meta?: { ui?: UiResourceMeta } & Record<string, unknown>;
}

/** A tool's `_meta.ui`. */
export interface UiToolMeta {
  resourceUri: string;
  /** Who may call the tool: `'model'` (the agent), `'app'` (its UI); default both. */
  visibility?: ('model' | 'app')[];
}

/** {@link registerAppTool}'s config: a tool config whose `_meta.ui` names the UI. */
export type AppToolConfig<In extends SchemaInput | undefined> = ToolConfig<In> & {
  _meta: { ui: UiToolMeta } & Record<string, unknown>;
};

const registered = new WeakMap<McpServer, Set<string>>();

/** Throws unless `uri` is `ui://` followed by something, without whitespace. */
export function checkUiUri(uri: unknown): void {
  if (typeof uri !== 'string' || !uri.startsWith('ui://')) {
    throw new TypeError(`UI resource URI ${JSON.stringify(uri)} must use the ui:// scheme (MCP Apps)`);
  }
  const rest = uri.slice('ui://'.length);
  if (rest === '' || /\s/.test(rest)) {
    throw new TypeError(`UI resource URI ${JSON.stringify(uri)} has nothing after ui:// or contains whitespace`);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks a resource's `_meta.ui` against the extension's `UIResourceMeta` (as Rust's `check_ui_resource_meta`). */
export function checkUiResourceMeta(ui: unknown): void {
  if (!isObject(ui)) throw new TypeError('_meta.ui must be an object');
  if (ui.csp !== undefined) {
    if (!isObject(ui.csp)) throw new TypeError('_meta.ui.csp must be an object');
    for (const [key, list] of Object.entries(ui.csp)) {
      if (!(CSP_KEYS as readonly string[]).includes(key)) {
        throw new TypeError(`_meta.ui.csp.${key} is not a CSP member of MCP Apps (${CSP_KEYS.join(', ')})`);
      }
      if (!Array.isArray(list) || !list.every((d) => typeof d === 'string' && d !== '')) {
        throw new TypeError(`_meta.ui.csp.${key} must be a list of non-empty strings`);
      }
    }
  }
  if (ui.permissions !== undefined) {
    if (!isObject(ui.permissions)) throw new TypeError('_meta.ui.permissions must be an object');
    for (const [key, v] of Object.entries(ui.permissions)) {
      if (!(PERMISSIONS as readonly string[]).includes(key)) {
        throw new TypeError(`_meta.ui.permissions.${key} is not a permission of MCP Apps (${PERMISSIONS.join(', ')})`);
      }
      if (!isObject(v)) throw new TypeError(`_meta.ui.permissions.${key} must be an object ({})`);
    }
  }
  if (ui.domain !== undefined && typeof ui.domain !== 'string') throw new TypeError('_meta.ui.domain must be a string');
  if (ui.prefersBorder !== undefined && typeof ui.prefersBorder !== 'boolean') {
    throw new TypeError('_meta.ui.prefersBorder must be a boolean');
  }
}

/**
 * Registers an MCP App's UI: `uri` (`ui://...`) serves the HTML `html` returns (or the string
 * itself) with the MIME type `text/html;profile=mcp-app` and `config._meta` (also on its
 * `resources/list` entry).
 */
export function registerAppResource(
  server: McpServer,
  name: string,
  uri: string,
  config: AppResourceConfig,
  html: string | (() => string | Promise<string>),
): Registered {
  checkUiUri(uri);
  if (config._meta?.ui !== undefined) checkUiResourceMeta(config._meta.ui);
  const meta = config._meta;
  const r = server.registerResource(name, uri, { ...config, mimeType: UI_MIME_TYPE }, async () => {
    const text = typeof html === 'string' ? html : await html();
    const item: Record<string, unknown> = { uri, mimeType: UI_MIME_TYPE, text };
    if (meta !== undefined) item._meta = meta;
    return { contents: [item] } as never;
  });
  let set = registered.get(server);
  if (set === undefined) registered.set(server, (set = new Set()));
  set.add(uri);
  return {
    remove: () => {
      registered.get(server)?.delete(uri);
      r.remove();
    },
  };
}

/**
 * Registers a tool rendered by the UI at `config._meta.ui.resourceUri`, which must already be
 * registered with {@link registerAppResource}; the handler is `McpServer.registerTool`'s.
 */
export function registerAppTool<In extends SchemaInput | undefined = undefined>(
  server: McpServer,
  name: string,
  config: AppToolConfig<In>,
  handler: ToolCallback<In>,
): Registered {
  const ui = config?._meta?.ui as unknown;
  if (!isObject(ui)) throw new TypeError(`tool ${JSON.stringify(name)}: _meta.ui must be an object`);
  try {
    checkUiUri(ui.resourceUri);
  } catch (e) {
    throw new TypeError(`tool ${JSON.stringify(name)}: ${(e as Error).message}`);
  }
  const v = ui.visibility;
  if (v !== undefined && !(Array.isArray(v) && v.length > 0 && v.every((i) => i === 'model' || i === 'app'))) {
    throw new TypeError(
      `tool ${JSON.stringify(name)}: _meta.ui.visibility must be a non-empty list of "model" and "app"`,
    );
  }
  const uri = ui.resourceUri as string;
  if (!registered.get(server)?.has(uri)) {
    throw new TypeError(
      `tool ${JSON.stringify(name)} names UI resource ${JSON.stringify(uri)}, which is not registered on this ` +
        'server as a UI resource: register it first (registerAppResource)',
    );
  }
  const _meta = { ...config._meta, [RESOURCE_URI_META_KEY]: uri };
  return server.registerTool(name, { ...config, _meta }, handler);
}

/** The client's MCP Apps settings (`{ mimeTypes }`) from its capabilities, if it declared any. */
export function getUiCapability(capabilities: unknown): { mimeTypes?: string[] } | undefined {
  if (!isObject(capabilities) || !isObject(capabilities.extensions)) return undefined;
  const ui = capabilities.extensions[UI_EXTENSION];
  return isObject(ui) ? (ui as { mimeTypes?: string[] }) : undefined;
}

/** Whether the client behind a request renders MCP Apps (it lists `text/html;profile=mcp-app`; both eras). */
export function clientSupportsUi(ctx: RequestContext): boolean {
  const types = getUiCapability(ctx.peerCapabilities)?.mimeTypes;
  return Array.isArray(types) && types.includes(UI_MIME_TYPE);
}

/** The capabilities a client (host) declares to say it renders MCP Apps. */
export function uiClientCapability(): Record<string, unknown> {
  return { extensions: { [UI_EXTENSION]: { mimeTypes: [UI_MIME_TYPE] } } };
}
