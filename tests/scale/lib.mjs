// Shared by the scale-out scripts: free ports, waiting for a listener, a private redis-server and
// everything-server replicas on it, all killed when the process ends.
import { spawn } from "node:child_process";
import net from "node:net";
import { randomBytes } from "node:crypto";

export const children = [];
export function stopAll() {
  for (const c of children) {
    try { c.kill("SIGKILL"); } catch {}
  }
}
process.on("SIGTERM", () => { stopAll(); process.exit(0); });
process.on("SIGINT", () => { stopAll(); process.exit(0); });
process.on("exit", stopAll);

export const freePort = () => new Promise((resolve) => {
  const s = net.createServer();
  s.listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => resolve(p)); });
});
export const waitPort = async (p) => {
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


/// Starts a redis-server on a free port; its port.
export async function startRedis() {
  const port = await freePort();
  children.push(spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: ["ignore", "ignore", "inherit"] }));
  await waitPort(port);
  return port;
}

/// Starts `n` everything-server replicas on the redis at `redisPort`, sharing one requestState
/// key; their ports and processes.
export async function startReplicas(serverBin, redisPort, n) {
  const env = { ...process.env, FERROMCP_REQUEST_STATE_KEY: randomBytes(32).toString("hex") };
  const out = [];
  for (let i = 0; i < n; i++) {
    const port = await freePort();
    const child = spawn(serverBin, ["--transport", "http", "--port", String(port), "--redis-url", `redis://127.0.0.1:${redisPort}`], { stdio: ["ignore", "ignore", "inherit"], env });
    children.push(child);
    out.push({ port, child });
  }
  for (const r of out) await waitPort(r.port);
  return out;
}
