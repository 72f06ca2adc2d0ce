#!/usr/bin/env bash
# Checks the npm package as a user gets it: `npm pack`, install the tarball into a new project
# (no registry access needed beyond the pinned devDependencies already in node_modules), then
# require() it from CommonJS, import it from an ES module, call a tool over a real transport,
# and type-check a TypeScript consumer with `tsc --strict` (module NodeNext).
# Usage: bindings-node/scripts/test-package.sh   (after scripts/build.sh)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/ferromcp-pkg.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cd "$HERE"
FERROMCP_SKIP_INSTALL=1 npm pack --ignore-scripts --pack-destination "$work" --loglevel=error >/dev/null
tarball="$(ls "$work"/ferromcp-*.tgz)"
mkdir -p "$work/app" && cd "$work/app"
echo '{"name":"app","private":true}' > package.json
npm install --no-audit --no-fund --loglevel=error --offline "$tarball" >/dev/null
# The consumer's TypeScript comes from this package's own pinned toolchain.
ln -s "$HERE/node_modules/typescript" node_modules/typescript
ln -s "$HERE/node_modules/@types" node_modules/@types
cat > cjs.cjs <<'JS'
const { McpServer, Client } = require('ferromcp');
const s = new McpServer({ name: 'pkg', version: '1' });
s.registerTool('hi', {}, () => 'hi from cjs');
(async () => {
  const h = await s.listen({ port: 0 });
  const c = await Client.http(h.url);
  console.log((await c.callTool({ name: 'hi' })).content[0].text);
  await c.close(); await h.close();
})();
JS
cat > esm.mjs <<'JS'
import { McpServer, Client, McpError } from 'ferromcp';
import { McpServer as SdkPathServer } from 'ferromcp/server/mcp.js';
import { isInitializeRequest } from 'ferromcp/types.js';
if (SdkPathServer !== McpServer || typeof isInitializeRequest !== 'function') throw new Error('SDK subpaths broken');
const s = new McpServer({ name: 'pkg', version: '1' });
s.registerTool('hi', {}, () => 'hi from esm');
const c = await Client.memory(s);
console.log((await c.callTool({ name: 'hi' })).content[0].text, typeof McpError);
await c.close();
JS
cat > consumer.mts <<'TS'
import { McpServer, Client, type CallToolResult } from 'ferromcp';
import { StdioServerTransport } from 'ferromcp/server/stdio.js';
import { McpError, CallToolRequestSchema } from 'ferromcp/types.js';
import { StreamableHTTPServerTransport } from 'ferromcp/server/streamableHttp.js';
import { createMcpExpressApp } from 'ferromcp/server/express.js';
import { Server } from 'ferromcp/server/index.js';
import { Client as SdkClient } from 'ferromcp/client/index.js';
import { StreamableHTTPClientTransport } from 'ferromcp/client/streamableHttp.js';
import { StdioClientTransport } from 'ferromcp/client/stdio.js';
import { SSEServerTransport } from 'ferromcp/server/sse.js';
import { WebStandardStreamableHTTPServerTransport } from 'ferromcp/server/webStandardStreamableHttp.js';
import { SSEClientTransport } from 'ferromcp/client/sse.js';
import { InMemoryTaskStore } from 'ferromcp/experimental/tasks/stores/in-memory.js';
import { isTerminal } from 'ferromcp/experimental/tasks/interfaces.js';
import { getDisplayName } from 'ferromcp/shared/metadataUtils.js';
import { UnauthorizedError } from 'ferromcp/client/auth.js';
import { UrlElicitationRequiredError } from 'ferromcp/types.js';
void [StdioServerTransport, McpError, createMcpExpressApp, SSEServerTransport, SSEClientTransport, isTerminal, new UnauthorizedError(), new UrlElicitationRequiredError([])];
const web = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => 'id' });
const answer: Promise<Response> = web.handleRequest(new Request('http://localhost/mcp'));
void answer.catch(() => undefined);
const store = new InMemoryTaskStore();
void store.createTask({ ttl: 1000 }, 1, { method: 'tools/call' });
const shown: string = getDisplayName({ name: 'n', title: 't' });
void shown;
const low = new Server({ name: 'low', version: '1' }, { capabilities: { tools: {} } });
low.setRequestHandler(CallToolRequestSchema, async (req) => ({ content: [{ type: 'text', text: String(req.params.name) }] }));
const sdkClient = new SdkClient({ name: 'c', version: '1' }, { capabilities: {} });
const transports: Array<StreamableHTTPClientTransport | StdioClientTransport> = [new StreamableHTTPClientTransport(new URL('http://localhost/mcp'))];
const httpTransport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
void [sdkClient, transports, httpTransport];
const s = new McpServer({ name: 'pkg', version: '1' });
s.registerTool('t', { inputSchema: { type: 'object' } }, (_args, ctx) => ctx.requestId.toString());
const c: Client = await Client.memory(s);
const r: CallToolResult = await c.callTool({ name: 't' });
console.log(r.content.length);
TS
cat > tsconfig.json <<'JSON'
{ "compilerOptions": { "module": "nodenext", "moduleResolution": "nodenext", "target": "es2022", "strict": true, "noEmit": true, "types": ["node"] }, "include": ["consumer.mts"] }
JSON
out_cjs="$(node cjs.cjs)"; out_esm="$(node esm.mjs)"
[ "$out_cjs" = "hi from cjs" ] || { echo "test-package: CommonJS run printed: $out_cjs" >&2; exit 1; }
[ "$out_esm" = "hi from esm function" ] || { echo "test-package: ESM run printed: $out_esm" >&2; exit 1; }
node node_modules/typescript/bin/tsc -p tsconfig.json
echo "test-package: tarball $(basename "$tarball") installs; CommonJS, ESM and tsc --strict consumers pass"
