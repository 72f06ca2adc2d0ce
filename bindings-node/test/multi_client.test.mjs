// MultiClient.fromConfig: every server of an mcpServers configuration through one object,
// names namespaced by server as `ferromcp proxy` does; configuration errors name the key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, MultiClient, parseConfig } from '../esm/index.mjs';

const fixture = fileURLToPath(new URL('./fixtures/server.mjs', import.meta.url));
const server = (extra = {}) => ({ command: process.execPath, args: [fixture], ...extra });

test('the tools of two servers are namespaced and calls reach their server', async () => {
  // Two fixtures told apart by FIXTURE_NAME (a tool, a resource and a prompt answering with
  // it): each namespaced call must reach its own server.
  const named = (n) => server({ env: { FIXTURE_NAME: n } });
  const multi = await MultiClient.fromConfig({ mcpServers: { a: named('alpha'), b: named('beta'), off: server({ disabled: true }) } });
  try {
    assert.deepEqual(multi.names, ['a', 'b']);
    const names = (await multi.listTools()).map((t) => t.name).sort();
    assert.deepEqual(names, ['a_echo', 'a_fail', 'a_pid', 'a_progress', 'a_wait', 'a_whoami',
      'b_echo', 'b_fail', 'b_pid', 'b_progress', 'b_wait', 'b_whoami']);
    const r = await multi.callTool({ name: 'b_echo', arguments: { text: 'hi' } });
    assert.equal(r.content[0].text, 'hi');
    assert.equal((await multi.callTool({ name: 'a_whoami' })).content[0].text, 'alpha');
    assert.equal((await multi.callTool({ name: 'b_whoami' })).content[0].text, 'beta');
    // Two processes: each namespaced pid is that server's own client's.
    const pa = (await multi.callTool({ name: 'a_pid' })).content[0].text;
    const pb = (await multi.callTool({ name: 'b_pid' })).content[0].text;
    assert.notEqual(pa, pb);
    assert.equal((await multi.client('a').callTool({ name: 'pid' })).content[0].text, pa);
    assert.equal((await multi.client('b').callTool({ name: 'pid' })).content[0].text, pb);
    const uris = (await multi.listResources()).map((x) => x.uri).sort();
    assert.deepEqual(uris, ['a+fixture://name', 'b+fixture://name']);
    const read = await multi.readResource({ uri: 'b+fixture://name' });
    assert.equal(read.contents[0].uri, 'b+fixture://name');
    assert.equal(read.contents[0].text, 'I am beta');
    assert.equal((await multi.readResource({ uri: 'a+fixture://name' })).contents[0].text, 'I am alpha');
    const prompts = (await multi.listPrompts()).map((p) => p.name).sort();
    assert.deepEqual(prompts, ['a_introduce', 'b_introduce']);
    const got = await multi.getPrompt({ name: 'a_introduce' });
    assert.equal(got.messages[0].content.text, 'alpha introduces itself');
    assert.equal(multi.client('a').getServerVersion().name, 'fixture');
    assert.throws(() => multi.callTool({ name: 'c_echo', arguments: { text: 'x' } }), /names no server/);
    await assert.rejects(() => multi.readResource({ uri: 'test://x' }), /names no server/);
  } finally {
    await multi.close();
  }
});

test('one server keeps its names; the configuration may be a file or JSON text', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ferromcp-multi-'));
  const path = join(dir, 'mcp.json');
  writeFileSync(path, JSON.stringify({ servers: { only_one: server({ type: 'stdio' }) } }));
  for (const config of [path, JSON.stringify({ mcpServers: { only_one: server() } })]) {
    const multi = await MultiClient.fromConfig(config);
    try {
      assert.ok((await multi.listTools()).some((t) => t.name === 'echo'));
      assert.equal((await multi.callTool({ name: 'echo', arguments: { text: 'same' } })).content[0].text, 'same');
    } finally {
      await multi.close();
    }
  }
});

test('a server that cannot start is named', async () => {
  await assert.rejects(
    () => MultiClient.fromConfig({ mcpServers: { good: server(), bad: { command: '/nonexistent/x' } } }),
    /server "bad" could not be connected/,
  );
});

test('configuration errors name the key', () => {
  const cases = [
    [{ mcpServers: { a: { command: 'x', url: 'http://h/mcp' } } }, 'mcpServers.a: has both "command" and "url"'],
    [{ mcpServers: { a: { command: 'x', args: ['-v', 2] } } }, 'mcpServers.a.args[1]: must be a string'],
    [{ mcpServers: { a: { url: 'ftp://h/mcp' } } }, 'mcpServers.a.url: "ftp://h/mcp" is not an http:// or https:// URL'],
    [{ mcpServers: { a: { url: 'http://h/mcp', type: 'websocket' } } }, 'mcpServers.a.type: unknown transport "websocket"'],
    [{ mcpServers: { a: { url: 'http://h/mcp', env: {} } } }, 'mcpServers.a.env: applies to started servers'],
    [{ mcpServers: { a: { command: 'x', headers: {} } } }, 'mcpServers.a.headers: applies to URL servers'],
    [{ mcpServers: { a: { command: 'x' }, b_c: { command: 'y' } } }, 'mcpServers.b_c: the server name "b_c" is used as a namespace'],
    [{ mcpServers: {} }, 'mcpServers: no enabled server'],
    [{ mcpServers: { a: { command: 'x', disabled: true } } }, 'mcpServers: no enabled server'],
    [{ mcpServers: { a: { command: 'x', env: { K: ['v'] } } } }, 'mcpServers.a.env.K: must be a string'],
    [{ mcpServers: { a: { command: 'x', env: 'K=v' } } }, 'mcpServers.a.env: must be an object of string values'],
    [{ mcpServers: { a: { command: 'x', cwd: 1 } } }, 'mcpServers.a.cwd: must be a string'],
    [{ mcpServers: { a: {} } }, 'mcpServers.a: needs "command"'],
    ['/nonexistent/mcp.json', 'cannot read /nonexistent/mcp.json'],
    ['{"mcpServers": ', 'not valid JSON'],
    [42, 'the configuration must be an object'],
    [{ mcpServers: { a: { command: 'x' } }, servers: {} }, 'both "mcpServers" and "servers" are present'],
    [{ mcpServers: { a: 1 } }, 'mcpServers.a: a server entry must be an object'],
  ];
  for (const [config, message] of cases) {
    assert.throws(() => parseConfig(config), (e) => e instanceof ConfigError && e.message.startsWith(message), message);
  }
  const [files, web] = parseConfig({ mcpServers: {
    files: { command: 'npx', args: ['-y', 'srv'], env: { PORT: 8080 }, cwd: '/srv', autoApprove: [] },
    web: { url: 'https://h/mcp', headers: { Authorization: 'Bearer t' } },
  } });
  assert.deepEqual([files.command, files.args, files.env, files.cwd], ['npx', ['-y', 'srv'], { PORT: '8080' }, '/srv']);
  assert.deepEqual([web.url, web.headers, web.sse], ['https://h/mcp', { Authorization: 'Bearer t' }, false]);
  assert.deepEqual([files.namePrefix, files.uriPrefix, web.transport], ['files_', 'files+', 'http']);
});
