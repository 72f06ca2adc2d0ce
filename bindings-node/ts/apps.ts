/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension, SEP-1865): a tool names an HTML user
 * interface, a `ui://` resource of MIME type `text/html;profile=mcp-app`, that a host renders in
 * a sandboxed frame.
 *
 * The helpers of Rust's `ferromcp::server::apps`; every check is the engine's (through
 * `ferromcp-embed`'s `apps` seam, as in Python and Swift): {@link registerAppResource} registers the UI (its HTML and its
 * `_meta.ui`: CSP domains, permissions, dedicated domain, border preference),
 * {@link registerAppTool} a tool with `_meta.ui.resourceUri` (and the deprecated flat
 * `ui/resourceUri` older hosts read), {@link clientSupportsUi} whether the client behind a request
 * renders UIs. Every check happens at registration and throws a `TypeError` with the engine's
 * message naming the member and the rule: a URI outside `ui://`, a malformed `_meta.ui`, a tool naming a UI that is not
 * registered on the server.
 * @module
 */
import type { RequestContext } from './context';
import type { McpServer, Registered, ToolCallback, ToolConfig } from './server';
import type { SchemaInput } from './schema';
import native from './native';

const names = native.uiConstants() as Record<string, string>;
/** The extension's identifier, the key under `capabilities.extensions`. */
export const UI_EXTENSION: string = names.extension;
/** The MIME type of an MCP App's HTML (the extension's SDK calls it `RESOURCE_MIME_TYPE`). */
export const UI_MIME_TYPE: string = names.mimeType;
/** The deprecated flat `_meta` key older hosts read a tool's UI from. */
export const RESOURCE_URI_META_KEY: string = names.legacyResourceUriKey;

/** The permission names of `_meta.ui.permissions` (for the types; the engine checks them). */
type Permission = 'camera' | 'microphone' | 'geolocation' | 'clipboardWrite';

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
  permissions?: Partial<Record<Permission, Record<string, never>>>;
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

/** Runs a native check, rethrowing its refusal (the engine's message) as a `TypeError`. */
function checked<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw new TypeError((e as Error).message);
  }
}

/** Throws unless `uri` is `ui://` followed by something, without whitespace. */
export function checkUiUri(uri: unknown): void {
  if (typeof uri !== 'string') throw new TypeError(`a UI resource URI must be a string, not ${typeof uri}`);
  checked(() => native.uiCheckUri(uri));
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks a resource's `_meta.ui` against the extension's `UIResourceMeta` (Rust's `check_ui_resource_meta`). */
export function checkUiResourceMeta(ui: unknown): void {
  checked(() => native.uiCheckResourceMeta(ui));
}

/**
 * Registers an MCP App's UI: `uri` (`ui://...`) serves the HTML `html` returns (or the string
 * itself) with the MIME type `text/html;profile=mcp-app` and `config._meta` (also on its
 * `resources/list` entry). The engine checks the URI, the MIME type and `_meta.ui`.
 */
export function registerAppResource(
  server: McpServer,
  name: string,
  uri: string,
  config: AppResourceConfig,
  html: string | (() => string | Promise<string>),
): Registered {
  const definition: Record<string, unknown> = { ...config, name, uri, mimeType: UI_MIME_TYPE };
  let id: number | undefined;
  if (typeof html === 'string') {
    definition.html = html;
  } else {
    id = server._addHandler(() => html());
  }
  try {
    checked(() => native.uiAddResource(server._native, definition, id));
  } catch (e) {
    if (id !== undefined) server._deleteHandler(id);
    throw e;
  }
  return {
    remove: () => {
      server._native.removeResource(uri);
      if (id !== undefined) server._deleteHandler(id);
    },
  };
}

/**
 * Registers a tool rendered by the UI at `config._meta.ui.resourceUri`, which must already be
 * registered on `server` as a UI resource ({@link registerAppResource}); the handler is
 * `McpServer.registerTool`'s. The engine checks `_meta.ui` and adds the flat `ui/resourceUri`.
 */
export function registerAppTool<In extends SchemaInput | undefined = undefined>(
  server: McpServer,
  name: string,
  config: AppToolConfig<In>,
  handler: ToolCallback<In>,
): Registered {
  const _meta = checked(() => native.uiToolMeta(server._native, name, config?._meta ?? {})) as AppToolConfig<In>['_meta'];
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
  return native.uiCapabilitiesSupport(ctx.peerCapabilities ?? undefined);
}

/** The capabilities a client (host) declares to say it renders MCP Apps. */
export function uiClientCapability(): Record<string, unknown> {
  return native.uiClientCapability() as Record<string, unknown>;
}
