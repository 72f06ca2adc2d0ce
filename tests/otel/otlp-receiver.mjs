// An OTLP/HTTP receiver for tests that cannot run one themselves (the Swift tests: Foundation
// on Linux has no HTTP server). It accepts the engine exporter's protobuf posts on
// /v1/traces (and /v1/metrics, answered and dropped), keeps every span decoded, and serves
// them as JSON on GET /spans. It prints its base URL on stdout when listening and runs until
// killed.
//
//   node tests/otel/otlp-receiver.mjs   ->   http://127.0.0.1:PORT
import { createServer } from 'node:http';
import { decodeTraces } from './otlp-protobuf.mjs';

const spans = [];
const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/spans') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(spans));
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (req.method !== 'POST' || !req.url.startsWith('/v1/')) {
      res.writeHead(404).end();
      return;
    }
    if (req.url === '/v1/traces') {
      try {
        spans.push(...decodeTraces(Buffer.concat(chunks)));
      } catch (e) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(`not an ExportTraceServiceRequest: ${e.message}`);
        return;
      }
    }
    res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': 0 }).end();
  });
});
server.listen(0, '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${server.address().port}`);
});
