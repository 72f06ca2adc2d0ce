// No import circle in the facade's own modules (issue 35: layers import downward only).
//
// Every module specifier of ts/**/*.ts is read by TypeScript's own scanner
// (`ts.preProcessFile`): `import`, `import type`, `export ... from`, `import()` and
// `require()` alike. A circle hidden by a type-only import is still a circle: the lower module
// names the higher one, and the two can no longer be read, tested or changed apart. A lower
// module that needs something of a higher one types it by an `interface` of just the members
// it uses, declared below both.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ts = createRequire(import.meta.url)('typescript');
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'ts');

function sources(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The facade's modules (paths relative to ts/, without `.ts`) that `text` imports. */
function importedModules(module, text, known) {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  const found = new Set();
  for (const { fileName } of importedFiles) {
    if (!fileName.startsWith('.')) continue;
    const target = join(dirname(module), fileName).replace(/\.(js|ts)$/, '');
    for (const candidate of [target, join(target, 'index')]) {
      if (known.has(candidate)) {
        found.add(candidate);
        break;
      }
    }
  }
  found.delete(module);
  return found;
}

function importGraph() {
  const files = sources(ROOT);
  const known = new Set(files.map((f) => relative(ROOT, f).replace(/\.ts$/, '')));
  const graph = new Map();
  for (const file of files) {
    const module = relative(ROOT, file).replace(/\.ts$/, '');
    graph.set(module, importedModules(module, readFileSync(file, 'utf8'), known));
  }
  return graph;
}

/** The strongly connected components of more than one module (Tarjan), each sorted. */
function circles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (node) => {
    index.set(node, index.size);
    low.set(node, index.get(node));
    stack.push(node);
    onStack.add(node);
    for (const next of [...(graph.get(node) ?? [])].sort()) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node), index.get(next)));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}

function describe(graph, component) {
  const members = new Set(component);
  const edges = component.flatMap((from) =>
    [...graph.get(from)].filter((to) => members.has(to)).sort().map((to) => `  ${from} -> ${to}`),
  );
  return `circle among ${component.join(', ')}:\n${edges.join('\n')}`;
}

test('the scan reads every kind of import', () => {
  const known = new Set(['a', 'b', 'c', 'd', 'e', 'sub/index', 'sub/f', 'm']);
  const text = [
    "import { A } from './a';",
    "import type { B } from './b.js';",
    'import {',
    '  type C,',
    "} from './c';",
    "export { D } from './d';",
    "export * from './sub';",
    "const e = require('./e');",
    "async function f() { return import('./sub/f'); }",
    "import express from 'express';",
    "import { M } from './m';",
  ].join('\n');
  assert.deepEqual(
    [...importedModules('m', text, known)].sort(),
    ['a', 'b', 'c', 'd', 'e', 'sub/f', 'sub/index'],
  );
  assert.deepEqual([...importedModules('sub/f', "import type { X } from '../a';", known)], ['a']);
});

test('the circle finder finds a circle hidden in a longer chain', () => {
  const graph = new Map([
    ['a', new Set(['b'])],
    ['b', new Set(['c'])],
    ['c', new Set(['a', 'd'])],
    ['d', new Set()],
  ]);
  assert.deepEqual(circles(graph), [['a', 'b', 'c']]);
});

test('the facade has no import circle, type-only imports included', () => {
  const graph = importGraph();
  assert.ok(graph.size > 40, `the scan found only ${graph.size} modules under ${ROOT}`);
  const found = circles(graph);
  assert.deepEqual(
    found,
    [],
    `import circles:\n${found.map((component) => describe(graph, component)).join('\n')}`,
  );
});
