// Top-level functions compiled eagerly, for scripts/bundle.mjs (the why is there, above
// `eagerModules`): each `function f(...) {...}` at the top level of a module becomes
// `var f = (function (...) {...});` at the top of it, and only where that is proven to change
// nothing else; anything it cannot prove throws, and the build fails.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { transformSync } from 'esbuild';

/** esbuild's printing of a module: no comments, one statement a line, nested code indented. */
const jsPrint = (source, options = {}) =>
  transformSync(source, { format: 'esm', loader: 'js', legalComments: 'none', ...options }).code;
const topLevelFunction = /^(async )?function(\*?) ?([\w$]+)\(/;
function topLevelFunctionNames(printed) {
  return printed
    .split('\n')
    .map((line) => topLevelFunction.exec(line)?.[3])
    .filter(Boolean)
    .sort();
}
export function eagerTopLevelFunctions(source, file) {
  const printed = jsPrint(source);
  const names = topLevelFunctionNames(printed);
  const lowered = topLevelFunctionNames(jsPrint(source, { supported: { 'template-literal': false } }));
  if (names.join() !== lowered.join()) {
    throw new Error(`bundle: ${file}: cannot tell its top-level functions apart from template text`);
  }
  const lines = printed.split('\n');
  const definitions = [];
  const rest = [];
  for (let i = 0; i < lines.length; i += 1) {
    const start = topLevelFunction.exec(lines[i]);
    if (!start) {
      rest.push(lines[i]);
      continue;
    }
    const end = lines.indexOf('}', i + 1);
    if (end < 0) throw new Error(`bundle: ${file}: no end to function ${start[3]}`);
    const text = [
      lines[i].replace(topLevelFunction, `${start[1] ?? ''}function${start[2]} (`),
      ...lines.slice(i + 1, end + 1),
    ].join('\n');
    try {
      jsPrint(`(${text});`);
    } catch {
      throw new Error(`bundle: ${file}: function ${start[3]} does not parse alone`);
    }
    definitions.push(`var ${start[3]} = (${text});`);
    i = end;
  }
  return [...definitions, ...rest].join('\n');
}
/** ctl's modules that `roots` import statically, each with the modules it imports (printed by esbuild). */
export function staticImports(roots) {
  const graph = new Map();
  const queue = [...roots];
  while (queue.length > 0) {
    const file = queue.pop();
    if (graph.has(file)) continue;
    const printed = jsPrint(readFileSync(file, 'utf8'));
    const imports = [...printed.matchAll(/^(?:import|export)\b[^;]*?(?:\bfrom\s*)?"(\.\.?\/[^"]+)";$/gm)].map(
      (match) => path.resolve(path.dirname(file), match[1]),
    );
    graph.set(file, imports);
    queue.push(...imports);
  }
  return graph;
}
/** The modules of `graph` that are in a cycle of imports (Tarjan's strongly connected components). */
export function inImportCycles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const cyclic = new Set();
  let next = 0;
  const visit = (file) => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const to of graph.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file), low.get(to)));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file), index.get(to)));
    }
    if (low.get(file) !== index.get(file)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file))
      for (const m of component) cyclic.add(m);
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cyclic;
}
