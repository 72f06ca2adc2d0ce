// A stdio MCP server with a typed tool (zod), a resource template, a prompt and a completion.
// Run: tsc-compiled or with a TypeScript runner; `ferromcp` resolves to this package.
import { McpServer, ResourceTemplate, completable } from 'ferromcp';
import * as z from 'zod';

const server = new McpServer({ name: 'weather', version: '1.0.0' }, { instructions: 'Ask for forecasts.' });

server.registerTool(
  'forecast',
  {
    title: 'Forecast',
    description: 'The forecast for a city',
    inputSchema: { city: z.string(), days: z.number().int().min(1).max(7).optional() },
    outputSchema: z.object({ city: z.string(), days: z.number(), summary: z.string() }),
    annotations: { readOnlyHint: true },
  },
  async ({ city, days }, ctx) => {
    await ctx.reportProgress(0, 1, 'asking the sky');
    if (ctx.signal.aborted) throw new Error('cancelled');
    return { city, days: days ?? 1, summary: 'sunny' };
  },
);

server.registerResource(
  'city',
  new ResourceTemplate('weather://{city}/today', { list: undefined, complete: { city: (v) => ['Paris', 'Perth'].filter((c) => c.startsWith(v)) } }),
  { mimeType: 'text/plain' },
  (uri, { city }) => `Today in ${city}: sunny (${uri.href})`,
);

server.registerPrompt(
  'plan',
  { description: 'Plan a trip', argsSchema: { city: completable(z.string(), (v) => ['Paris', 'Perth'].filter((c) => c.startsWith(v))) } },
  ({ city }) => `Plan a day in ${city} around the weather.`,
);

await server.connectStdio();
