/**
 * Loaded into a ctl child with `node --import` (plan-load-order.test.ts): records, in order, each
 * file of the bundle that Node loads and each connection the process opens, and writes the list
 * to the file named by CTL_TEST_LOAD_ORDER when the process exits. Node's in-thread module hooks
 * (module.registerHooks, Node 22.15 and later) see every import and require as it happens, and
 * the scripts bin/load-bundle.js compiles itself (main.js and its chunks) are seen as it makes
 * each vm.Script; ctl's own code is untouched.
 */
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import net from 'node:net';
import vm from 'node:vm';

const events: string[] = [];
const BUNDLE = '/dist/bundle/';

registerHooks({
  load(url, context, nextLoad) {
    const at = url.lastIndexOf(BUNDLE);
    if (at >= 0) events.push(`load ${url.slice(at + BUNDLE.length)}`);
    return nextLoad(url, context);
  },
});

const Script = vm.Script;
vm.Script = class extends Script {
  constructor(code: string, options?: vm.ScriptOptions) {
    const file = options?.filename ?? '';
    const at = file.replaceAll('\\', '/').lastIndexOf(BUNDLE);
    if (at >= 0) events.push(`load ${file.replaceAll('\\', '/').slice(at + BUNDLE.length)}`);
    super(code, options);
  }
};

// Every request goes out on a socket (TLS sockets are net sockets too): its connect is the mark.
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
  events.push('connect');
  return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
} as typeof connect;

process.on('exit', () => {
  const file = process.env.CTL_TEST_LOAD_ORDER;
  // Node's own modules the process loaded (process.moduleLoadList), for what a plan must not pay.
  const builtins = (process as unknown as { moduleLoadList: string[] }).moduleLoadList
    .filter((entry) => entry.startsWith('NativeModule '))
    .map((entry) => `builtin ${entry.slice('NativeModule '.length)}`);
  if (file) writeFileSync(file, `${[...events, ...builtins].join('\n')}\n`);
});
