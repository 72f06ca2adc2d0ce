// An MCP Apps server over stdio: a weather dashboard declared as a `ui://` resource (HTML with
// the app MIME type, its CSP, a permission and a border preference under `_meta.ui`), a tool
// that renders its result in that UI, and a tool only the UI may call (`visibility: ['app']`).
// The tool answers text either way, saying more to a client that renders UIs. The same scenario
// as examples/rust/src/apps_server.rs, examples/python/apps_server.py and examples/swift's
// AppsServer; tests/examples/check.mjs runs all four and checks what they declare and serve
// against the MCP Apps extension's own schemas.
// Run: tsc-compiled or with a TypeScript runner; `ferromcp` resolves to this package.
import { clientSupportsUi, McpServer, registerAppResource, registerAppTool } from 'ferromcp';

const DASHBOARD = '<!doctype html><html><body><h1>Weather</h1><p id=now></p></body></html>';

const server = new McpServer({ name: 'weather-apps', version: '1.0.0' });
registerAppResource(
  server,
  'dashboard',
  'ui://weather/dashboard',
  {
    description: 'Weather dashboard',
    _meta: {
      ui: {
        csp: { connectDomains: ['https://api.weather.example'] },
        permissions: { geolocation: {} },
        prefersBorder: true,
      },
    },
  },
  DASHBOARD,
);
registerAppTool(
  server,
  'get_weather',
  { description: 'The weather now, shown on the dashboard.', _meta: { ui: { resourceUri: 'ui://weather/dashboard' } } },
  (ctx) => (clientSupportsUi(ctx) ? 'Sunny (see the dashboard)' : 'Sunny, 21 °C'),
);
registerAppTool(
  server,
  'refresh',
  { _meta: { ui: { resourceUri: 'ui://weather/dashboard', visibility: ['app'] } } },
  () => 'refreshed',
);

await server.connectStdio();
