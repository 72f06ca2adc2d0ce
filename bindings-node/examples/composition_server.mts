// A stdio MCP server built from others: a weather server mounted under `weather` (live), a notes
// server imported under `notes` (copied once), a tool made from another by a transform, and an
// authorization layer that hides the `*admin_*` tools from callers without the `admin` scope
// (over stdio there is no token, so they stay hidden). The same scenario as
// examples/rust/src/composition_server.rs, examples/python/composition_server.py and
// examples/swift's CompositionServer; tests/examples/check.mjs runs all four with the official
// TypeScript SDK client and checks each answer.
// Run: tsc-compiled or with a TypeScript runner; `ferromcp` resolves to this package.
import { Authorization, McpServer } from 'ferromcp';

/** Registers `forecast(city, units, days?)`: the days' highs and lows as structured content. */
function addForecast(server: McpServer) {
  return server.registerTool(
    'forecast',
    {
      description: 'The forecast for a city.',
      inputSchema: {
        type: 'object',
        properties: {
          city: { type: 'string' },
          days: { type: 'integer', minimum: 1 },
          units: { type: 'string', enum: ['metric', 'imperial'] },
        },
        required: ['city', 'units'],
      },
    },
    ({ city, units, days }) => {
      // The engine validated the arguments against the schema above before this runs.
      const list = Array.from({ length: Number(days ?? 1) }, (_, d) => ({ day: d, high: 20 + d, low: 10 + d, units }));
      return { content: [{ type: 'text', text: 'forecast ready' }], structuredContent: { city, days: list } };
    },
  );
}

/** The weather server: `forecast` and a resource `weather://stations`. */
function weather(): McpServer {
  const server = new McpServer({ name: 'weather', version: '1.0.0' });
  addForecast(server);
  server.registerResource('stations', 'weather://stations', {}, (uri) => ({
    contents: [{ uri: uri.href, text: 'Oslo, Lima' }],
  }));
  return server;
}

/** `add(text)` and `admin_purge()`. */
function notes(): McpServer {
  const server = new McpServer({ name: 'notes', version: '1.0.0' });
  server.registerTool(
    'add',
    { inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
    ({ text }) => `noted: ${JSON.stringify(text)}`,
  );
  server.registerTool('admin_purge', {}, () => 'purged');
  return server;
}

// The authorization layer comes before the mount, so it sees the mounted and imported items too.
const server = new McpServer(
  { name: 'composed', version: '1.0.0' },
  {
    middleware: [
      new Authorization([['tool', '*admin_*', ['admin']]]),
    ],
  },
);
server.mount('weather', weather()); // weather_forecast, weather://weather/stations
server.importServer('notes', notes()); // notes_add, notes_admin_purge (hidden)

// A tool made from `forecast`: metric only, three days at most, the highs alone. The original
// is registered here only to be transformed, then removed (the transform keeps its handler).
const forecast = addForecast(server);
server.transformTool('forecast', 'highs', {
  description: 'Daily highs in degrees Celsius for a city.',
  arguments: {
    city: { name: 'place' },
    units: { hide: true, default: 'metric' },
    days: { default: 3, constraints: { maximum: 3 } },
  },
  transformOutput: (out: { days: { high: number }[] }) => ({ highs: out.days.map((d) => d.high) }),
  outputSchema: {
    type: 'object',
    properties: { highs: { type: 'array', items: { type: 'integer' } } },
    required: ['highs'],
  },
});
forecast.remove();

await server.connectStdio();
