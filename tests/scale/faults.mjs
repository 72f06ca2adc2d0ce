#!/usr/bin/env node
// Faults under load, with processes (scripts/fault-suite; --short in tests/run-redis.sh): a
// private redis-server and fault_replica processes (core/examples/fault_replica.rs, whose engine
// logs go to stderr, kept here per replica). While a client keeps calling (a ping every 50 ms,
// round robin over two replicas, each with a 10 s deadline), each fault is injected and the
// suite checks what the client sees, the line the fault must leave in a replica's log, and that
// nothing is lost or left hanging (every call of the load answered, by the deadline).
//   node tests/scale/faults.mjs --replica PATH [--short]
// Faults: a replica killed (SIGKILL) during a tool call's stream; Redis frozen (SIGSTOP), then
// stopped and restarted empty; the session table filled; a connection flood with slowloris
// heads from five addresses; a JWKS endpoint that never answers. --short runs them all with
// smaller numbers. Exit status 0 when every check passed.
import { spawn } from "node:child_process";
import net from "node:net";
import http from "node:http";
import { children, freePort, waitPort, startRedis, stopAll } from "./lib.mjs";

const args = process.argv.slice(2);
const at = args.indexOf("--replica");
const replicaBin = at >= 0 ? args[at + 1] : new URL("../../target/debug/examples/fault_replica", import.meta.url).pathname;
const short = args.includes("--short");
const started = Date.now();
const say = (m) => console.error(`faults: ${m}`);
const fail = (why) => { console.error(`faults: FAIL ${why}`); dumpLogs(); stopAll(); process.exit(1); };
setTimeout(() => fail("timed out after 240 s"), 240000).unref();

// ---- processes ------------------------------------------------------------------------------
const replicas = [];
function dumpLogs() {
  for (const r of replicas) {
    const tail = r.log.split("\n").slice(-15).join("\n");
    console.error(`--- replica ${r.name} (port ${r.port}), last log lines:\n${tail}`);
  }
}
async function startReplica(name, extra) {
  const port = await freePort();
  const child = spawn(replicaBin, ["--port", String(port), ...extra], { stdio: ["ignore", "ignore", "pipe"] });
  children.push(child);
  const r = { name, port, child, log: "" };
  child.stderr.on("data", (d) => { r.log += d.toString(); });
  replicas.push(r);
  await waitPort(port);
  return r;
}
/// Waits until replica `r` has logged a line matching `re` (after `from`, an offset in its log).
async function logged(r, re, from = 0, ms = 10000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (re.test(r.log.slice(from))) return;
    await sleep(50);
  }
  fail(`replica ${r.name} did not log ${re}`);
}
const sleep = (ms) => new Promise((res) => setTimeout(res, ms));

// ---- MCP over HTTP ----------------------------------------------------------------------------
const url = (r) => `http://127.0.0.1:${r.port}/mcp`;
const H = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" };
/// POSTs `body`; {status, ms, messages (JSON-RPC messages of a JSON or SSE body), sid, headers}.
async function post(r, sid, body, { timeout = 10000, headers = {} } = {}) {
  const h = { ...H, ...headers };
  if (sid) h["mcp-session-id"] = sid;
  const t0 = Date.now();
  const res = await fetch(url(r), { method: "POST", headers: h, body: JSON.stringify(body), signal: AbortSignal.timeout(timeout) });
  const text = await res.text();
  const messages = [];
  if ((res.headers.get("content-type") || "").includes("text/event-stream")) {
    for (const line of text.split("\n")) if (line.startsWith("data: ") && line.length > 6) messages.push(JSON.parse(line.slice(6)));
  } else if (text) {
    try { messages.push(JSON.parse(text)); } catch {}
  }
  return { status: res.status, ms: Date.now() - t0, messages, sid: res.headers.get("mcp-session-id"), headers: res.headers };
}
const initBody = (id) => ({ jsonrpc: "2.0", id, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "faults", version: "1" } } });
async function session(r) {
  const a = await post(r, null, initBody(1));
  if (a.status !== 200 || !a.sid) fail(`initialize on ${r.name}: ${a.status} ${JSON.stringify(a.messages)}`);
  await post(r, a.sid, { jsonrpc: "2.0", method: "notifications/initialized" });
  return a.sid;
}
/// An SSE response's events as they come: {id, data}.
async function* sse(res) {
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
      yield { id, data: data ? JSON.parse(data) : null };
    }
  }
}

// ---- the load ---------------------------------------------------------------------------------
/// Pings every 50 ms, alternating over `targets` (each entry a replica with a session id there);
/// `expectFailures` marks phases where refusals are expected. Counts outcomes; a ping that does
/// not resolve within 10 s is a hang.
function load(targets) {
  const st = { sent: 0, ok: 0, refused: 0, hung: 0, failedOutsideFaults: [], expectFailures: false, stop: false, inflight: new Set() };
  st.done = (async () => {
    let i = 0;
    while (!st.stop) {
      const t = targets[i++ % targets.length];
      const id = 1000 + st.sent++;
      const p = post(t.replica, t.sid, { jsonrpc: "2.0", id, method: "ping" })
        .then((a) => {
          if (a.status === 200 && a.messages[0]?.id === id) st.ok++;
          else {
            st.refused++;
            if (a.messages[0] && a.messages[0].id !== id && a.status !== 404) st.failedOutsideFaults.push(`ping ${id}: answer for id ${a.messages[0].id}`);
            if (!st.expectFailures) st.failedOutsideFaults.push(`ping ${id} on ${t.replica.name}: ${a.status}`);
          }
        })
        .catch((e) => {
          if (e.name === "TimeoutError") st.hung++;
          else if (!st.expectFailures) st.failedOutsideFaults.push(`ping ${id} on ${t.replica.name}: ${e.message}`);
          else st.refused++;
        });
      st.inflight.add(p);
      p.finally(() => st.inflight.delete(p));
      await sleep(50);
    }
    await Promise.all([...st.inflight]);
  })();
  return st;
}

// ---- the faults -------------------------------------------------------------------------------
const redisPort = await startRedis();
let redis = children.find((c) => c.spawnargs[0] === "redis-server");
const redisChild = () => redis;
const redisUrl = () => `redis://127.0.0.1:${redisPort}`;
const a = await startReplica("A", ["--redis-url", redisUrl()]);
const b = await startReplica("B", ["--redis-url", redisUrl()]);
const sidLoad = await session(a);
const loadTargets = [{ replica: a, sid: sidLoad }, { replica: b, sid: sidLoad }];
const st = load(loadTargets);

// 1. A replica killed (SIGKILL) during a tool call: the client, following the call's stream,
// resumes on the other replica with Last-Event-ID and gets an error for its request, in time.
{
  const victim = await startReplica("C", ["--redis-url", redisUrl()]);
  const sid = await session(victim);
  const res = await fetch(url(victim), { method: "POST", headers: { ...H, "mcp-session-id": sid }, body: JSON.stringify({ jsonrpc: "2.0", id: 41, method: "tools/call", params: { name: "slow", arguments: { ms: 6000 }, _meta: { progressToken: "p41" } } }) });
  // Read up to the first progress event, and keep the stream open (not cancelled).
  let last = null;
  const events = sse(res);
  for (;;) {
    const { value: e, done } = await events.next();
    if (done) break;
    if (e.id) last = e.id;
    if (e.data?.method === "notifications/progress") break;
  }
  if (!last) fail("no event id on the tool call's stream");
  victim.child.kill("SIGKILL");
  const from = b.log.length;
  const t0 = Date.now();
  const resumed = await fetch(url(b), { headers: { accept: "text/event-stream", "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25", "last-event-id": last }, signal: AbortSignal.timeout(15000) });
  if (resumed.status !== 200) fail(`resuming on B: ${resumed.status}`);
  let answer = null;
  for await (const e of sse(resumed)) {
    if (e.data && e.data.id === 41) { answer = e.data; break; }
  }
  const took = Date.now() - t0;
  if (!answer || !answer.error) fail(`the killed replica's call: ${JSON.stringify(answer)}`);
  if (took > 10000) fail(`the killed replica's call was answered after ${took} ms`);
  await logged(b, /replica running a resumed request stream is gone/, from);
  say(`kill -9 during a tool call: error for id 41 on B after ${took} ms (${answer.error.message}); B logged it`);
}

// 2. Redis frozen (SIGSTOP): a new session is refused with its id within the command timeout,
// logged; after SIGCONT everything is served again.
{
  const from = a.log.length;
  st.expectFailures = true;
  redisChild().kill("SIGSTOP");
  const t0 = Date.now();
  const r = await post(a, null, initBody(51), { timeout: 15000 });
  const took = Date.now() - t0;
  if (r.status !== 503 || r.messages[0]?.id !== 51) fail(`initialize with Redis frozen: ${r.status} ${JSON.stringify(r.messages)}`);
  if (took > 5000) fail(`initialize with Redis frozen took ${took} ms`);
  if (r.headers.get("retry-after") !== "1") fail("no Retry-After on the 503");
  await logged(a, /session store unavailable: answering 503/, from);
  redisChild().kill("SIGCONT");
  await session(a);
  await sleep(1000);
  st.expectFailures = false;
  say(`Redis frozen: initialize refused 503 with its id after ${took} ms, logged; served again after SIGCONT`);
}

// 3. Redis stopped, then restarted empty on the same port: refused with ids and logged while
// down; sessions created after the restart work on both replicas (the old ones are gone: 404).
{
  const from = a.log.length;
  st.expectFailures = true;
  const old = redisChild();
  old.kill("SIGKILL");
  await new Promise((res) => old.once("exit", res));
  const t0 = Date.now();
  const r = await post(a, null, initBody(61), { timeout: 15000 });
  const took = Date.now() - t0;
  if (r.status !== 503 || r.messages[0]?.id !== 61) fail(`initialize with Redis down: ${r.status} ${JSON.stringify(r.messages)}`);
  if (took > 5000) fail(`initialize with Redis down took ${took} ms`);
  await logged(a, /session store unavailable: answering 503/, from);
  redis = spawn("redis-server", ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: ["ignore", "ignore", "inherit"] });
  children.push(redis);
  await waitPort(redisPort);
  let sid = null;
  for (let i = 0; i < 40 && !sid; i++) {
    const x = await post(a, null, initBody(62), { timeout: 15000 });
    if (x.status === 200) sid = x.sid;
    else await sleep(250);
  }
  if (!sid) fail("no session after Redis restarted");
  await post(a, sid, { jsonrpc: "2.0", method: "notifications/initialized" });
  const onB = await post(b, sid, { jsonrpc: "2.0", id: 63, method: "ping" });
  if (onB.status !== 200 || onB.messages[0]?.id !== 63) fail(`a new session on B after the restart: ${onB.status}`);
  // The load's session was lost with Redis's data: it starts a new one.
  const fresh = await session(a);
  loadTargets.splice(0, loadTargets.length, { replica: a, sid: fresh }, { replica: b, sid: fresh });
  await sleep(1000);
  st.expectFailures = false;
  say(`Redis stopped: initialize refused 503 with its id after ${took} ms, logged; restarted empty: new sessions served on A and B`);
}

// 4. The session table filled: idle sessions make room (logged), and only a table of busy
// sessions refuses a new one, with its id (logged).
{
  const max = short ? 10 : 50;
  const t = await startReplica("T", ["--max-sessions", String(max)]);
  const from = t.log.length;
  for (let i = 0; i < max * 2; i++) await session(t);
  await logged(t, /session table full: closing the least recently active idle session/, from);
  // Every session busy: each holds a GET stream.
  const streams = [];
  for (let i = 0; i < max; i++) {
    const sid = await session(t);
    const ac = new AbortController();
    const res = await fetch(url(t), { headers: { accept: "text/event-stream", "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" }, signal: ac.signal });
    if (res.status !== 200) fail(`GET stream ${i}: ${res.status}`);
    streams.push(ac);
  }
  const r = await post(t, null, initBody(71));
  if (r.status !== 503 || r.messages[0]?.id !== 71) fail(`initialize on a table of busy sessions: ${r.status} ${JSON.stringify(r.messages)}`);
  await logged(t, /session table full and every session busy/, from);
  for (const ac of streams) ac.abort();
  say(`session table (${max}) filled: ${max} idle sessions closed to make room; busy table: 503 with id 71; both logged`);
  t.child.kill("SIGKILL");
}

// 5. A connection flood with slowloris heads from five addresses, over the 1,024 connections a
// replica serves: a client with a session keeps being served on new connections.
{
  const f = await startReplica("F", []);
  const sid = await session(f);
  const from = f.log.length;
  const n = short ? 1100 : 2000;
  const flood = [];
  await Promise.all(Array.from({ length: n }, (_, i) => new Promise((res) => {
    const s = net.connect({ port: f.port, host: "127.0.0.1", localAddress: `127.0.0.${2 + (i % 5)}` }, () => { s.write("POST /mcp HTTP/1.1\r\n"); res(); });
    s.on("error", () => res());
    flood.push(s);
  })));
  const took = [];
  for (let i = 0; i < 30; i++) {
    const t0 = Date.now();
    const agent = new http.Agent({ keepAlive: false });
    const status = await new Promise((res) => {
      const req = http.request({ host: "127.0.0.1", port: f.port, path: "/mcp", method: "POST", agent, headers: { ...H, "mcp-session-id": sid }, timeout: 5000 }, (r) => { r.resume(); r.on("end", () => res(r.statusCode)); });
      req.on("timeout", () => { req.destroy(); res(0); });
      req.on("error", () => res(0));
      req.end(JSON.stringify({ jsonrpc: "2.0", id: 80 + i, method: "ping" }));
    });
    took.push(status === 200 ? Date.now() - t0 : 5000);
  }
  took.sort((x, y) => x - y);
  const p50 = took[15];
  if (p50 > 50) fail(`p50 ${p50} ms for a client with a session during the flood (${took.join(",")})`);
  await logged(f, /connection budget spent: closing idle connections to make room/, from);
  for (const s of flood) s.destroy();
  say(`connection flood (${n} slowloris connections from 5 addresses): a client with a session p50 ${p50} ms, worst ${took[29]} ms; logged`);
  f.child.kill("SIGKILL");
}

// 6. A JWKS endpoint that accepts and never answers: eight requests at once with a token are
// refused (401) after one fetch's timeout, not one fetch each; logged.
{
  let connections = 0;
  const hang = net.createServer((s) => { connections++; s.on("error", () => {}); });
  await new Promise((res) => hang.listen(0, "127.0.0.1", res));
  const j = await startReplica("J", ["--jwks-url", `http://127.0.0.1:${hang.address().port}/jwks`]);
  const from = j.log.length;
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const now = Math.floor(Date.now() / 1000);
  const token = `${b64({ alg: "RS256", typ: "JWT", kid: "k1" })}.${b64({ iss: "https://issuer.test", aud: url(j), sub: "x", iat: now, exp: now + 600 })}.${Buffer.alloc(256, 7).toString("base64url")}`;
  const t0 = Date.now();
  const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => post(j, null, initBody(90 + i), { headers: { authorization: `Bearer ${token}` }, timeout: 15000 })));
  const took = Date.now() - t0;
  if (!answers.every((x) => x.status === 401)) fail(`hanging JWKS: ${answers.map((x) => x.status)}`);
  if (took > 6000) fail(`hanging JWKS: the eight requests took ${took} ms`);
  if (connections > 2) fail(`hanging JWKS: ${connections} fetches for eight requests`);
  await logged(j, /JWKS fetch failed/, from);
  hang.close();
  say(`hanging JWKS: 8 requests refused 401 in ${took} ms with ${connections} fetch; logged`);
  j.child.kill("SIGKILL");
}

// ---- the load's verdict ----------------------------------------------------------------------
st.stop = true;
await st.done;
if (st.hung) fail(`${st.hung} pings of the load hung (no answer in 10 s)`);
if (st.failedOutsideFaults.length) fail(`pings failed outside the faults: ${st.failedOutsideFaults.slice(0, 5).join("; ")}`);
say(`load: ${st.sent} pings, ${st.ok} answered, ${st.refused} refused during Redis faults, none hanging`);
say(`ok (${((Date.now() - started) / 1000).toFixed(1)} s)`);
stopAll();
process.exit(0);
