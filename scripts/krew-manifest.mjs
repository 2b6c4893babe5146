// Fills in deploy/krew/rec.yaml for one release: `node scripts/krew-manifest.mjs <tarball> <url>`
// prints the krew manifest of the npm tarball (what `npm pack` made) published at <url>: its
// version (from the tarball's name) and the SHA-256 of its bytes. Nothing is fetched.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';

export function krewManifest(template, { version, uri, sha256 }) {
  return template
    .replaceAll('{{VERSION}}', version)
    .replaceAll('{{URI}}', uri)
    .replaceAll('{{SHA256}}', sha256);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [tarball, uri] = process.argv.slice(2);
  if (!tarball || !uri) {
    process.stderr.write(
      'usage: node scripts/krew-manifest.mjs <package.tgz> <https URL where it is published>\n',
    );
    process.exit(2);
  }
  const version = /-(\d+\.\d+\.\d+(?:-[\w.]+)?)\.tgz$/.exec(path.basename(tarball))?.[1];
  if (!version) {
    process.stderr.write(`${tarball}: not an npm pack tarball (<name>-<version>.tgz)\n`);
    process.exit(2);
  }
  const sha256 = createHash('sha256').update(readFileSync(tarball)).digest('hex');
  const template = readFileSync(new URL('../deploy/krew/rec.yaml', import.meta.url), 'utf8');
  process.stdout.write(krewManifest(template, { version, uri, sha256 }));
}
