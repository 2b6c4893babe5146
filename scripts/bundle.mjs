// The bundled build that bin/ctl.js runs: dist/src/main.js (tsc's output) and every dependency
// in a few ES module files under dist/bundle/. Loading hundreds of small files is most of a
// command's start-up (docs/performance.md); a bundle reads a handful. Code splitting keeps the
// lazy imports lazy: `ctl --help` never reads the Kubernetes client's chunk.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { writeHelpTexts } from './help-texts.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// tsc's output folder: dist/ by default, the folder scripts/build.mjs builds in when it says so.
const dist = path.resolve(process.argv[2] ?? path.join(root, 'dist'));
const outdir = path.join(dist, 'bundle');

rmSync(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: [path.join(dist, 'src', 'main.js')],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  chunkNames: 'chunks/[name]-[hash]',
  // Bundled CommonJS packages call require() for Node's modules and may read __filename or
  // __dirname (write-file-atomic seeds its temporary names with __filename); ES modules have
  // none of them. Each output file gets its own, and `define` points the free names at them.
  banner: {
    js: [
      "import { createRequire as __ctlCreateRequire } from 'node:module';",
      "import { dirname as __ctlDirnameOf } from 'node:path';",
      "import { fileURLToPath as __ctlFileURLToPath } from 'node:url';",
      'const require = __ctlCreateRequire(import.meta.url);',
      'const __ctlFilename = __ctlFileURLToPath(import.meta.url);',
      'const __ctlDirname = __ctlDirnameOf(__ctlFilename);',
    ].join(' '),
  },
  define: { __filename: '__ctlFilename', __dirname: '__ctlDirname' },
  // tr46 (under node-fetch, under the Kubernetes client) requires Node's deprecated `punycode`;
  // Node 22 warns about it (DEP0040) when the caller is not in node_modules, as a bundle is not.
  // The userland package is the one Node recommends.
  alias: { punycode: 'punycode/' },
  logLevel: 'warning',
  metafile: true,
});

// In a split bundle, `await import('pkg')` of a CommonJS package yields only `default`, so
// `const { named } = await import('pkg')` would be undefined in the bundle alone (tests of
// dist/src would not see it). Such packages must be imported statically, in a lazily loaded
// module (see src/api/undici.ts).
const { inputs } = result.metafile;
const broken = Object.entries(inputs).flatMap(([file, input]) =>
  input.imports
    .filter((i) => i.kind === 'dynamic-import' && inputs[i.path]?.format === 'cjs')
    .map((i) => `${file}: import() of the CommonJS module ${i.path}`),
);
if (broken.length > 0) {
  console.error(`bundle: dynamic imports of CommonJS modules:\n  ${broken.join('\n  ')}`);
  process.exit(1);
}

// The bundle carries third-party code, so the package carries its licences: one notice per
// package whose files went into the bundle (name, version, licence and the licence text it ships),
// in dist/bundle/THIRD_PARTY_NOTICES.md, which the npm package and the image include.
const packages = new Map();
for (const file of Object.keys(result.metafile.inputs)) {
  const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(file);
  if (!match) continue;
  const dir = path.join(root, match[1]);
  if (packages.has(dir)) continue;
  const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const licenceFiles = readdirSync(dir)
    .filter((name) => /^(licen[cs]e|copying|notice)([.-]|$)/i.test(name))
    .sort();
  packages.set(dir, {
    name: manifest.name,
    version: manifest.version,
    license:
      typeof manifest.license === 'string' ? manifest.license : (manifest.license?.type ?? 'see package'),
    text:
      licenceFiles.length > 0
        ? licenceFiles.map((name) => readFileSync(path.join(dir, name), 'utf8').trim()).join('\n\n')
        : undefined,
  });
}
const notices = [...packages.values()]
  .sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version))
  .map(
    (p) =>
      `## ${p.name} ${p.version}\n\nLicence: ${p.license}\n\n` +
      (p.text
        ? `\`\`\`text\n${p.text}\n\`\`\`\n`
        : `(the package ships no licence file; its package.json says ${p.license})\n`),
  );
writeFileSync(
  path.join(outdir, 'THIRD_PARTY_NOTICES.md'),
  `# Third-party notices\n\nctl's bundle (dist/bundle/) includes code of the following ${notices.length} packages.\n\n${notices.join('\n')}`,
);

// `ctl <command> --help` for scripts, from a file rendered by the tree itself (help-texts.mjs).
await writeHelpTexts(dist, outdir);
