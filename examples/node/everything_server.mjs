// The "everything" server on ferromcp's Node API: the surface the official MCP conformance suite
// drives (tests/conformance/SCENARIOS.md), the same as examples/python/everything_server.py and
// examples/rust/src/everything_server.rs.
//
//   node everything_server.mjs [--transport stdio|http] [--port N]
//
// HTTP serves Streamable HTTP at http://127.0.0.1:N/mcp (stateful sessions, SSE responses,
// `retry: 5000` on priming events). Logs go to stderr only. Replicas serving the same clients
// seal 2026-07-28 `requestState` with one shared key: FERROMCP_REQUEST_STATE_KEY (64 hex digits),
// as the Rust everything server reads it.
import { parseArgs } from 'node:util';
import { inputRequired, McpError, ErrorCode, McpServer, ResourceTemplate } from '../../bindings-node/esm/index.mjs';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';
const LOGGER = 'conformance-test-server';
const NO_ARGS = { type: 'object', properties: {} };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const stateKey = process.env.FERROMCP_REQUEST_STATE_KEY;
const server = new McpServer(
  { name: 'mcp-conformance-test-server', version: '1.0.0' },
  { tasksExtension: true, ...(stateKey ? { requestStateKeys: [{ id: 'shared', secret: stateKey }] } : {}) },
);

const result = (content, isError = false) => ({ content, isError });
const text = (t, isError = false) => result([{ type: 'text', text: t }], isError);
const clientHas = (ctx, capability) => Boolean(ctx.peerCapabilities && capability in ctx.peerCapabilities);

/** A tool with a fixed input schema; `fn(args, ctx)` builds its result by hand. */
function tool(name, description, fn, schema = NO_ARGS) {
  server.registerTool(name, { description, inputSchema: schema }, fn);
}

tool('test_simple_text', 'Returns a simple text response', () => text('This is a simple text response for testing.'));
tool('test_image_content', 'Returns an image', () => result([{ type: 'image', data: PNG, mimeType: 'image/png' }]));
tool('test_audio_content', 'Returns an audio clip', () => result([{ type: 'audio', data: WAV, mimeType: 'audio/wav' }]));
tool('test_embedded_resource', 'Returns an embedded resource', () =>
  result([{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }]),
);
tool('test_multiple_content_types', 'Returns text, an image and a resource', () =>
  result([
    { type: 'text', text: 'Multiple content types test:' },
    { type: 'image', data: PNG, mimeType: 'image/png' },
    { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) } },
  ]),
);
tool('test_tool_with_logging', 'Sends three log messages while running', async (_args, ctx) => {
  const messages = ['Tool execution started', 'Tool processing data', 'Tool execution completed'];
  for (const [i, m] of messages.entries()) {
    if (i) await sleep(50);
    await ctx.info(m, LOGGER);
  }
  return text('Tool with logging executed successfully');
});
tool('test_error_handling', 'Always fails with a tool error', () => text('This tool intentionally returns an error for testing', true));
tool('test_tool_with_progress', 'Reports progress 0, 50, 100', async (_args, ctx) => {
  for (const [i, p] of [0, 50, 100].entries()) {
    if (i) await sleep(50);
    await ctx.reportProgress(p, 100, `Completed step ${p} of 100`);
  }
  const token = ctx.progressToken;
  return text(token === undefined ? 'no progress token' : typeof token === 'string' ? token : JSON.stringify(token));
});
tool(
  'test_sampling',
  "Asks the client's LLM to answer a prompt",
  async ({ prompt }, ctx) => {
    if (!clientHas(ctx, 'sampling')) return text('the client does not support sampling', true);
    try {
      const r = await ctx.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 });
      const items = Array.isArray(r.content) ? r.content : [r.content ?? {}];
      return text(`LLM response: ${items.map((c) => c.text ?? '').join('')}`);
    } catch (e) {
      return text(`Sampling failed: ${e.message}`, true);
    }
  },
  { type: 'object', properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } }, required: ['prompt'] },
);

async function elicitForm(ctx, message, requestedSchema, label) {
  if (!clientHas(ctx, 'elicitation')) return text('the client does not support elicitation', true);
  try {
    const r = await ctx.elicitInput({ message, requestedSchema });
    return text(`${label}: action=${r.action ?? 'unknown'}, content=${JSON.stringify(r.content ?? {})}`);
  } catch (e) {
    return text(`Elicitation failed: ${e.message}`, true);
  }
}

tool(
  'test_elicitation',
  'Asks the user for a username and an email address',
  ({ message }, ctx) =>
    elicitForm(
      ctx,
      message,
      {
        type: 'object',
        properties: {
          username: { type: 'string', description: "User's response" },
          email: { type: 'string', description: "User's email address" },
        },
        required: ['username', 'email'],
      },
      'User response',
    ),
  { type: 'object', properties: { message: { type: 'string', description: 'The message to show the user' } }, required: ['message'] },
);
tool('test_elicitation_sep1034_defaults', 'Elicits a form whose fields carry default values (SEP-1034)', (_args, ctx) =>
  elicitForm(
    ctx,
    'Please review and update the form fields with defaults',
    {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'User name', default: 'John Doe' },
        age: { type: 'integer', description: 'User age', default: 30 },
        score: { type: 'number', description: 'User score', default: 95.5 },
        status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
        verified: { type: 'boolean', description: 'Verification status', default: true },
      },
      required: [],
    },
    'Elicitation completed',
  ),
);
const titled = (pairs) => pairs.map(([c, t]) => ({ const: c, title: t }));
tool('test_elicitation_sep1330_enums', 'Elicits every enum variant of SEP-1330', (_args, ctx) => {
  const options = ['option1', 'option2', 'option3'];
  return elicitForm(
    ctx,
    'Please select options from the enum fields',
    {
      type: 'object',
      properties: {
        untitledSingle: { type: 'string', description: 'Select one option', enum: options },
        titledSingle: {
          type: 'string',
          description: 'Select one option with titles',
          oneOf: titled([['value1', 'First Option'], ['value2', 'Second Option'], ['value3', 'Third Option']]),
        },
        legacyEnum: { type: 'string', description: 'Select one option (legacy)', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
        untitledMulti: { type: 'array', description: 'Select multiple options', minItems: 1, maxItems: 3, items: { type: 'string', enum: options } },
        titledMulti: {
          type: 'array',
          description: 'Select multiple options with titles',
          minItems: 1,
          maxItems: 3,
          items: { anyOf: titled([['value1', 'First Choice'], ['value2', 'Second Choice'], ['value3', 'Third Choice']]) },
        },
      },
      required: [],
    },
    'Elicitation completed',
  );
});
tool(
  'json_schema_2020_12_tool',
  'A tool whose input schema uses JSON Schema 2020-12 features ($defs, $ref)',
  (args) => text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`),
  {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
    properties: {
      name: { type: 'string' },
      address: { $ref: '#/$defs/address' },
      contactMethod: { type: 'string', enum: ['phone', 'email'] },
      phone: { type: 'string' },
      email: { type: 'string' },
    },
    allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
    if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
    then: { required: ['phone'] },
    else: { required: ['email'] },
    additionalProperties: false,
  },
);
tool('test_reconnection', "Checks that the client reconnects after the server closes the request's stream (SEP-1699)", async (_args, ctx) => {
  ctx.closeSseStream();
  await sleep(100);
  return text('Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.');
});

// ---- resources ------------------------------------------------------------------------------
server.registerResource(
  'static-text',
  'test://static-text',
  { title: 'Static Text Resource', description: 'A static text resource for testing', mimeType: 'text/plain' },
  () => 'This is the content of the static text resource.',
);
server.registerResource(
  'static-binary',
  'test://static-binary',
  { title: 'Static Binary Resource', description: 'A static binary resource (image) for testing', mimeType: 'image/png' },
  () => ({ mimeType: 'image/png', blob: PNG }),
);
server.registerResource(
  'watched-resource',
  'test://watched-resource',
  { title: 'Watched Resource', description: 'A resource that auto-updates every 3 seconds', mimeType: 'text/plain' },
  () => 'Watched resource content',
);
server.registerResource(
  'template',
  new ResourceTemplate('test://template/{id}/data', { list: undefined }),
  { title: 'Resource Template', description: 'A resource template with parameter substitution', mimeType: 'application/json' },
  (_uri, { id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
);

// ---- prompts --------------------------------------------------------------------------------
const registerSimplePrompt = () =>
  server.registerPrompt('test_simple_prompt', { title: 'Simple Test Prompt', description: 'A simple prompt without arguments' }, () => 'This is a simple prompt for testing.');
let simplePrompt = registerSimplePrompt();
server.registerPrompt('test_input_required_result_prompt', { description: 'Asks for context (input_required) before it is built' }, (_args, ctx) => {
  const answer = accepted(ctx, 'user_context');
  if (!answer) throw inputRequired({ user_context: elicitInput('What context should the prompt use?', 'context', 'string') });
  return `Context: ${answer.context ?? ''}`;
});
server.registerPrompt(
  'test_prompt_with_arguments',
  {
    title: 'Prompt With Arguments',
    description: 'A prompt with required arguments',
    argsSchema: {
      type: 'object',
      properties: { arg1: { type: 'string', description: 'First test argument' }, arg2: { type: 'string', description: 'Second test argument' } },
      required: ['arg1', 'arg2'],
    },
  },
  ({ arg1 = '', arg2 = '' }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
);
server.registerPrompt(
  'test_prompt_with_embedded_resource',
  {
    title: 'Prompt With Embedded Resource',
    description: 'A prompt that includes an embedded resource',
    argsSchema: { type: 'object', properties: { resourceUri: { type: 'string', description: 'URI of the resource to embed' } }, required: ['resourceUri'] },
  },
  ({ resourceUri = '' }) => [
    { role: 'user', content: { type: 'resource', resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
    { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
  ],
);
server.registerPrompt('test_prompt_with_image', { title: 'Prompt With Image', description: 'A prompt that includes image content' }, () => [
  { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
  { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
]);

// ---- 2026-07-28: diagnostics of server-stateless -----------------------------------------------
let triggerTool;
const registerTriggerTool = () =>
  server.registerTool('test_trigger_tool_change', { description: 'Registers itself again (a tools list change)', inputSchema: NO_ARGS }, () => {
    triggerTool.remove();
    triggerTool = registerTriggerTool();
    return text('Tool list changed');
  });
triggerTool = registerTriggerTool();
tool('test_trigger_prompt_change', 'Registers test_simple_prompt again (a prompts list change)', () => {
  simplePrompt.remove();
  simplePrompt = registerSimplePrompt();
  return text('Prompt list changed');
});
// ctx.sendRequest, not ctx.createMessage's capability-free path: the engine answers -32021 when
// the request's client capabilities lack sampling (2026-07-28).
tool('test_missing_capability', 'Asks for sampling whether or not the client declared it', async (_args, ctx) => {
  await ctx.sendRequest('sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 });
  return text('Sampling succeeded');
});
tool(
  'test_header_param',
  'Echoes its region, which clients mirror into the Mcp-Param-Region header',
  ({ region = '' }) => text(`region: ${region}`),
  { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } },
);
tool('test_logging_tool', 'Sends a log message (delivered only when the request asked for a level)', async (_args, ctx) => {
  await ctx.info('test_logging_tool ran', LOGGER);
  return text('Logging tool executed');
});

// ---- 2026-07-28: multi round-trip requests (input_required) --------------------------------------
function elicitInput(message, prop, kind) {
  return { method: 'elicitation/create', params: { message, requestedSchema: { type: 'object', properties: { [prop]: { type: kind } }, required: [prop] } } };
}
function samplingInput(prompt, maxTokens) {
  return { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens } };
}
const ROOTS_INPUT = { method: 'roots/list', params: {} };
/** The content of an accepted elicitation answer to `key`, if this retry carries one. */
function accepted(ctx, key) {
  const answer = ctx.inputResponse(key);
  return answer?.action === 'accept' ? (answer.content ?? {}) : undefined;
}
// ctx.input serves both eras: input_required (2026-07-28) or a request to the client.
tool('test_input_required_result_elicitation', "Asks for the user's name, then greets", async (_args, ctx) => {
  const answers = await ctx.input({ user_name: elicitInput('What is your name?', 'name', 'string') });
  return text(`Hello, ${answers.user_name.content?.name ?? 'stranger'}!`);
});
tool('test_input_required_result_sampling', "Asks the client's LLM a question, then reports it", async (_args, ctx) => {
  const answers = await ctx.input({ capital_question: samplingInput('What is the capital of France?', 100) });
  return text(`LLM response: ${answers.capital_question.content?.text ?? ''}`);
});
tool('test_input_required_result_list_roots', "Asks for the client's roots, then lists them", async (_args, ctx) => {
  const answers = await ctx.input({ client_roots: ROOTS_INPUT });
  return text(`Client roots: ${(answers.client_roots.roots ?? []).map((r) => r.uri).join(', ')}`);
});
/** Round 1 asks for a confirmation with state; round 2 finds the state intact (the engine
 * refuses an altered one before the tool runs). */
function confirmWithState(_args, ctx) {
  if (ctx.inputResponse('confirm') === undefined) {
    throw inputRequired({ confirm: elicitInput('Please confirm', 'ok', 'boolean') }, { nonce: 'state-ok' });
  }
  if (ctx.requestState?.nonce !== 'state-ok') throw new McpError(ErrorCode.InvalidParams, 'requestState is missing');
  return text('state-ok: confirmation received with valid requestState');
}
tool('test_input_required_result_request_state', 'Asks for a confirmation with requestState', confirmWithState);
tool('test_input_required_result_tampered_state', 'The same; a tampered requestState is refused', confirmWithState);
tool('test_input_required_result_multiple_inputs', 'Asks for three inputs in one round', (_args, ctx) => {
  if (['user_name', 'greeting', 'client_roots'].every((k) => ctx.inputResponse(k) !== undefined)) {
    return text('Received all inputs: user_name, greeting, client_roots');
  }
  throw inputRequired(
    { user_name: elicitInput('What is your name?', 'name', 'string'), greeting: samplingInput('Generate a greeting', 50), client_roots: ROOTS_INPUT },
    { round: 1 },
  );
});
tool('test_input_required_result_multi_round', 'Two questions in two rounds, state carried', (_args, ctx) => {
  const state = ctx.requestState ?? {};
  const first = state.step === 1 ? accepted(ctx, 'step1') : undefined;
  if (typeof first?.name === 'string') {
    throw inputRequired({ step2: elicitInput('Step 2: What is your favorite color?', 'color', 'string') }, { step: 2, name: first.name });
  }
  const second = state.step === 2 ? accepted(ctx, 'step2') : undefined;
  if (typeof second?.color === 'string') return text(`${state.name ?? '?'} likes ${second.color}`);
  throw inputRequired({ step1: elicitInput('Step 1: What is your name?', 'name', 'string') }, { step: 1 });
});
tool('test_input_required_result_capabilities', 'Asks only for what the client can answer', (_args, ctx) => {
  if (ctx.inputResponse('llm') !== undefined || ctx.inputResponse('user') !== undefined) return text('Received the input');
  const wanted = {};
  if (clientHas(ctx, 'sampling')) wanted.llm = samplingInput('Say hello', 20);
  if (clientHas(ctx, 'elicitation')) wanted.user = elicitInput('Your name?', 'name', 'string');
  if (Object.keys(wanted).length === 0) return text('The client declared no capability to ask with');
  throw inputRequired(wanted);
});
tool('test_streaming_elicitation', 'Elicits through ctx.elicitInput (input_required in 2026-07-28)', async (_args, ctx) => {
  const answer = await ctx.elicitInput(elicitInput('Your name?', 'name', 'string').params);
  return text(`Elicitation answered: ${answer.action ?? '?'}`);
});

// ---- 2026-07-28: the tasks extension's fixtures (tasks-* scenarios) ------------------------------
/** A tool whose calls become tasks when the request declares the tasks extension. */
function taskTool(name, description, taskSupport, fn, schema = NO_ARGS) {
  server.registerTool(name, { description, inputSchema: schema, execution: { taskSupport } }, fn);
}
const ask = (message) => ({
  method: 'elicitation/create',
  params: { mode: 'form', message, requestedSchema: { type: 'object', properties: { name: { type: 'string' }, confirm: { type: 'boolean' } } } },
});
const answerText = (a) => (a?.action !== 'accept' ? 'declined' : String(a.content?.name ?? 'confirmed'));
tool('greet', 'Greets by name', (args) => text(`Hello, ${args.name ?? 'World'}!`), { type: 'object', properties: { name: { type: 'string' } } });
taskTool('slow_compute', 'Sleeps `seconds` seconds, then reports', 'optional', async (args) => {
  const seconds = Math.max(0, Math.min(Number(args.seconds ?? 1), 3600));
  await sleep(seconds * 1000);
  return text(`${args.label ?? 'job'}: computed after ${seconds} s`);
}, { type: 'object', properties: { seconds: { type: 'number' }, label: { type: 'string' } } });
taskTool('failing_job', 'Always ends with a tool execution error', 'required', async () => {
  await sleep(500);
  return text('failing_job failed, as it always does', true);
});
// An McpError ends the task `failed` with that error; anything else thrown would be a tool
// execution error (the task `completed` with isError), as in an ordinary call.
taskTool('protocol_error_job', 'Always ends with a JSON-RPC error', 'optional', async () => {
  await sleep(200);
  throw new McpError(ErrorCode.InternalError, 'protocol_error_job failed with a protocol error on purpose');
});
taskTool('confirm_delete', 'Asks the user to confirm, then deletes `filename` (pretend)', 'optional', async (args, ctx) => {
  const answers = await ctx.input({ confirm: ask(`Delete ${args.filename ?? 'file'}?`) });
  return text(answers.confirm.action === 'accept' ? `Deleted ${args.filename ?? 'file'}` : `Kept ${args.filename ?? 'file'}`);
}, { type: 'object', properties: { filename: { type: 'string' } } });
taskTool('multi_input', 'Asks two questions at once, then reports both answers', 'optional', async (_args, ctx) => {
  const answers = await ctx.input({ first: ask('First value?'), second: ask('Second value?') });
  return text(`Got ${answerText(answers.first)} and ${answerText(answers.second)}`);
});
taskTool('test_tool_with_task', "Asks for the user's name, then completes as a task", 'required', (_args, ctx) => {
  const answer = ctx.inputResponse('user_name');
  if (!answer) throw inputRequired({ user_name: elicitInput('What is your name?', 'name', 'string') });
  return text(`Hello, ${answerText(answer)}!`);
});

// ---- completion -----------------------------------------------------------------------------
server.registerCompletion(undefined, undefined, (value) => ['test', 'testValue1', 'testValue2', 'example'].filter((v) => v.startsWith(value)));

// Tells subscribers that test://watched-resource changed, every 3 seconds (does not keep the
// process alive by itself).
setInterval(() => server.sendResourceUpdated({ uri: 'test://watched-resource' }), 3000).unref();

const { values } = parseArgs({ options: { transport: { type: 'string', default: 'stdio' }, port: { type: 'string', default: '3000' } } });
if (values.transport === 'stdio') {
  await server.connectStdio();
} else if (values.transport === 'http') {
  const http = await server.listen({ host: '127.0.0.1', port: Number(values.port), retryIntervalMs: 5000 });
  console.error(`everything-server (node): serving MCP at ${http.url}`);
  const stop = () => void http.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
} else {
  console.error(`unknown transport ${values.transport} (use stdio or http)`);
  process.exit(2);
}
