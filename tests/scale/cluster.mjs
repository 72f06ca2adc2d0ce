#!/usr/bin/env node
// A scale-out deployment in miniature, for tests/run-redis.sh: a private redis-server, N replicas
// of the Rust everything-server sharing it (--redis-url), and a round-robin HTTP proxy on --port
// in front of them (each request to the next replica; a replica refusing connections is skipped;
// responses, SSE included, are streamed through). Stops everything on SIGTERM/SIGINT.
//   node tests/scale/cluster.mjs --port P [--replicas 3] [--server PATH]
// Prints "cluster: ready ..." on stderr once every replica listens.
import { spawn } from "node:child_process";
import http from "node:http";
import net from "node:net";
import { randomBytes } from "node:crypto";

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

const children = [];
function stopAll() {
  for (const c of children) {
    try { c.kill("SIGKILL"); } catch {}
  }
}
process.on("SIGTERM", () => { stopAll(); process.exit(0); });
process.on("SIGINT", () => { stopAll(); process.exit(0); });
process.on("exit", stopAll);

const freePort = () => new Promise((resolve) => {
  const s = net.createServer();
  s.listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => resolve(p)); });
});
const waitPort = async (p) => {
  for (let i = 0; i < 300; i++) {
    const ok = await new Promise((r) => {
      const c = net.connect(p, "127.0.0.1", () => { c.destroy(); r(true); });
      c.on("error", () => r(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listens on ${p}`);
};

const redisPort = await freePort();
children.push(spawn("redis-server", ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: ["ignore", "ignore", "inherit"] }));
await waitPort(redisPort);
const backends = [];
// One requestState key for every replica (2026-07-28 multi round trips cross replicas).
const env = { ...process.env, FERROMCP_REQUEST_STATE_KEY: randomBytes(32).toString("hex") };
for (let i = 0; i < replicas; i++) {
  const p = await freePort();
  const c = spawn(serverBin, ["--transport", "http", "--port", String(p), "--redis-url", `redis://127.0.0.1:${redisPort}`], { stdio: ["ignore", "ignore", "inherit"], env });
  children.push(c);
  backends.push(p);
}
for (const p of backends) await waitPort(p);

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
