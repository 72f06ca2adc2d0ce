#!/usr/bin/env node
// A scale-out deployment in miniature, for tests/run-redis.sh: a private redis-server, N replicas
// of the Rust everything-server sharing it (--redis-url), and a round-robin HTTP proxy on --port
// in front of them (each request to the next replica; a replica refusing connections is skipped;
// responses, SSE included, are streamed through). Stops everything on SIGTERM/SIGINT.
//   node tests/scale/cluster.mjs --port P [--replicas 3] [--server PATH]
// Prints "cluster: ready ..." on stderr once every replica listens.
import http from "node:http";
import { startRedis, startReplicas, stopAll } from "./lib.mjs";

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const port = Number(opt("--port"));
const replicas = Number(opt("--replicas", "3"));
const serverBin = opt("--server", new URL("../../target/debug/everything-server", import.meta.url).pathname);
if (!port) {
  console.error("usage: cluster.mjs --port P [--replicas N] [--server PATH]");
  process.exit(2);
}

const redisPort = await startRedis();
const backends = (await startReplicas(serverBin, redisPort, replicas)).map((r) => r.port);

let next = 0;
const hits = backends.map(() => 0);
const proxy = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks);
    const attempt = (left) => {
      const i = next++ % backends.length;
      // As a proxy that keeps the client's Host: the replica sees the name the client used, with
      // the replica's port (its DNS-rebinding guard allows loopback names with its own port).
      const toBackend = (v) => v && v.replace(new RegExp(`:${port}$`), `:${backends[i]}`);
      const headers = { ...req.headers, host: toBackend(req.headers.host) };
      if (req.headers.origin) headers.origin = toBackend(req.headers.origin);
      const out = http.request({ host: "127.0.0.1", port: backends[i], method: req.method, path: req.url, headers }, (up) => {
        hits[i]++;
        res.writeHead(up.statusCode, up.headers);
        up.pipe(res);
        res.on("close", () => up.destroy());
      });
      out.on("error", () => {
        if (left > 1) attempt(left - 1);
        else { res.writeHead(502); res.end("no replica answered"); }
      });
      out.end(body);
    };
    attempt(backends.length);
  });
});
proxy.listen(port, "127.0.0.1", () => {
  console.error(`cluster: ready on http://127.0.0.1:${port}/mcp (redis ${redisPort}, replicas ${backends.join(",")})`);
});
process.on("exit", () => console.error(`cluster: requests per replica ${hits.join(",")}`));
