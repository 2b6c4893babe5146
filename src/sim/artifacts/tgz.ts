import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';

export interface ArchiveFile {
  path: string;
  content: string | Buffer;
}

// A fixed timestamp makes the archive, and so the digest in index.yaml, the same on every start.
const FIXED_MTIME = new Date('2024-01-01T00:00:00Z');

/**
 * A gzipped tar of `files`, built in memory and byte-for-byte deterministic (fixed mtime,
 * owner and mode; gzip without a timestamp), as `helm package` output would be.
 */
export async function packTgz(files: readonly ArchiveFile[]): Promise<Buffer> {
  const archive = pack();
  for (const file of files) {
    archive.entry(
      { name: file.path, mode: 0o644, mtime: FIXED_MTIME, uid: 0, gid: 0, uname: '', gname: '' },
      file.content,
    );
  }
  archive.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of archive) chunks.push(Buffer.from(chunk as Uint8Array));
  return gzipSync(Buffer.concat(chunks));
}
