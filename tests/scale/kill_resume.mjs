#!/usr/bin/env node
// A replica killed mid-stream (SIGKILL), for tests/run-redis.sh: two everything-server replicas
// on one private redis-server. A client subscribes to test://watched-resource (updated every 3 s
// on every replica) and follows its session's GET stream on replica A; after two updates A is
// killed; the client resumes on replica B with the Last-Event-ID of the first update and must
// get the second one again (same id: nothing lost, nothing renumbered), then B's later updates.
//   node tests/scale/kill_resume.mjs [--server PATH]
// Exit status 0 on success; prints what it checked.
import { startRedis, startReplicas, stopAll } from "./lib.mjs";

const args = process.argv.slice(2);
const i = args.indexOf("--server");
const serverBin = i >= 0 ? args[i + 1] : new URL("../../target/debug/everything-server", import.meta.url).pathname;
const fail = (why) => { console.error(`kill_resume: FAIL ${why}`); stopAll(); process.exit(1); };
setTimeout(() => fail("timed out after 60 s"), 60000).unref();

const redisPort = await startRedis();
const [a, b] = await startReplicas(serverBin, redisPort, 2);
const url = (r) => `http://127.0.0.1:${r.port}/mcp`;
const H = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" };

async function post(r, sid, body) {
  const headers = { ...H };
  if (sid) headers["mcp-session-id"] = sid;
  const res = await fetch(url(r), { method: "POST", headers, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status >= 300) fail(`POST ${body.method} answered ${res.status}: ${text}`);
  return { sid: res.headers.get("mcp-session-id"), text };
}

/// Opens the session's GET stream on `r` (resuming after `last`); yields {id, data} per event.
async function* events(r, sid, last) {
  const headers = { accept: "text/event-stream", "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" };
  if (last) headers["last-event-id"] = last;
  const res = await fetch(url(r), { headers });
  if (res.status !== 200) fail(`GET on ${r.port} answered ${res.status}`);
  const dec = new TextDecoder();
  let buf = "";
  for await (const chunk of res.body) {
    buf += dec.decode(chunk, { stream: true });
    let end;
    while ((end = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, end);
      buf = buf.slice(end + 2);
      let id = null, data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("id: ")) id = line.slice(4);
        if (line.startsWith("data: ")) data += line.slice(6);
      }
      if (data) yield { id, data: JSON.parse(data) };
    }
  }
}

const init = await post(a, null, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "kill-resume", version: "1" } } });
const sid = init.sid;
await post(b, sid, { jsonrpc: "2.0", method: "notifications/initialized" });
await post(b, sid, { jsonrpc: "2.0", id: 2, method: "resources/subscribe", params: { uri: "test://watched-resource" } });

const onA = events(a, sid, null);
const updates = [];
for await (const e of onA) {
  if (e.data.method !== "notifications/resources/updated") fail(`unexpected ${JSON.stringify(e.data)}`);
  updates.push(e);
  if (updates.length === 2) break;
}
a.child.kill("SIGKILL");
console.error(`kill_resume: replica ${a.port} killed after events ${updates.map((u) => u.id).join(", ")}`);

const onB = events(b, sid, updates[0].id);
const first = (await onB.next()).value;
if (!first || first.id !== updates[1].id) fail(`resumed on ${b.port}: expected ${updates[1].id} again, got ${first && first.id}`);
const later = (await onB.next()).value;
if (!later || later.data.method !== "notifications/resources/updated") fail("no later update on the resumed stream");
console.error(`kill_resume: resumed on replica ${b.port} from ${updates[0].id}: got ${first.id} again, then ${later.id}`);
console.error("kill_resume: ok");
stopAll();
process.exit(0);
