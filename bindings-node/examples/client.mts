// A client: spawn a stdio server, list and call its tools, follow progress, cancel with a signal.
import { Client, McpError, TransportError } from 'ferromcp';

const client = await Client.stdio(
  { command: process.execPath, args: ['stdio_server.mjs'] },
  { name: 'example-client', roots: [{ uri: 'file:///tmp' }], onNotification: (n) => console.error('notification', n.method) },
);
try {
  for (const tool of await client.listAllTools()) console.log(tool.name, tool.description ?? '');
  const result = await client.callTool(
    { name: 'forecast', arguments: { city: 'Paris' } },
    { onprogress: (p) => console.error(`progress ${p.progress}/${p.total ?? '?'}`), signal: AbortSignal.timeout(5000) },
  );
  console.log(result.structuredContent ?? result.content);
  const page = await client.readResource({ uri: 'weather://Paris/today' });
  console.log(page.contents[0]);
} catch (e) {
  if (e instanceof TransportError) console.error('the server went away:', e.message);
  else if (e instanceof McpError) console.error(`MCP error ${e.code}: ${e.message}`);
  else throw e;
} finally {
  await client.close();
}
