// Reads the Redis Enterprise for Kubernetes release notes of a redis/docs checkout
// (content/operate/kubernetes/release-notes/**.md) into per-release facts: the operator version
// (from the title), the cluster image tags of its "Downloads"/"Images" section (Kubernetes
// `redislabs/redis:<tag>`, OpenShift `registry.connect.redhat.com/redislabs/redis-enterprise:<tag>`
// or `redislabs/redis:<tag>.rhelN-openshift`), the variants published beside them
// (`<tag>.minimal`), the OLM operator bundle, and the headings and bold lead-ins of its
// "Breaking changes" and "Known limitations" sections (what the rules cite). Only facts the
// notes state; nothing is inferred here.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export const NOTES_DIR = 'content/operate/kubernetes/release-notes';

const OPERATOR_IN_TITLE = /(?:^|\s)v?(\d+\.\d+\.\d+-\d+)(?=\s|$|\))/;
const TAG = String.raw`v?\d+\.\d+\.\d+-\d+(?:\.\d+)?(?:\.[a-z][a-z0-9-]*)*`;
const IMAGE = new RegExp(String.raw`(?:^|[\s\x60(])((?:[\w.-]+/)+[\w.-]+):(${TAG})(?=[\x60\s),.;]|$)`, 'g');
const LABEL = /^\s*(?:[-*]\s+)?\*\*([^*]+?)\*\*/;
const OLM_BUNDLE = /OLM operator bundle\*{0,2}\s*:?\s*\*{0,2}\s*`v?(\d+\.\d+\.\d+-\d+\.\d+)`/g;

/** Every notes file under the checkout, relative to it, sorted. */
export function listNotes(docs) {
  const root = path.join(docs, NOTES_DIR);
  const found = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith('.md') && name !== '_index.md')
        found.push(path.relative(docs, full).split(path.sep).join('/'));
    }
  };
  walk(root);
  return found;
}

function frontMatter(text) {
  const match = /^---\n([\s\S]*?)\n---/.exec(text);
  const fields = {};
  for (const line of (match?.[1] ?? '').split('\n')) {
    const kv = /^([A-Za-z]+):\s*(.*)$/.exec(line);
    if (kv) fields[kv[1].toLowerCase()] = kv[2].replace(/^["']|["']$/g, '');
  }
  return fields;
}

/** The lines of a `## <heading>` section (up to the next `## `), or '' when absent. */
function section(text, heading) {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => new RegExp(`^##\\s+${heading}\\s*$`, 'i').test(l.trim()));
  if (start < 0) return '';
  const end = lines.findIndex((l, i) => i > start && /^##\s/.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** Bold lead-ins (`- **Custom modules are not supported** ...`) and `###`/`####` headings of a section. */
function items(text) {
  const out = [];
  for (const line of text.split('\n')) {
    const bold = /^\s*[-*]\s+\*\*(.+?)\*\*/.exec(line);
    // Newer notes keep the ticket in a comment after the text (`<!--RED-96301-->`): kept with
    // the lead-in, so the reviewed list (reviewed.mjs) can match the item by it.
    const ticket = /<!--\s*(RED-?\d+)\s*-->/.exec(line)?.[1];
    if (bold)
      out.push(ticket && !bold[1].includes(ticket) ? `${bold[1].trim()} (${ticket})` : bold[1].trim());
    const heading = /^#{3,4}\s+(.+?)\s*$/.exec(line);
    if (heading && !/^(new limitations|existing limitations)$/i.test(heading[1])) out.push(heading[1].trim());
  }
  return out;
}

/**
 * The image references of the notes' "Redis Enterprise" (later "Redis Software") bullets (with their `(or ...)`
 * continuation lines), whatever the section is called (Downloads, Images, OpenShift images).
 * The label decides, not the repository: one note lists the RS image as `redislabs/operator:`.
 */
function redisEnterpriseImages(text) {
  const refs = [];
  let inBullet = false;
  for (const line of text.split('\n')) {
    const label = LABEL.exec(line);
    if (label) inBullet = /^redis (enterprise|software)$/i.test(label[1].trim());
    else if (!/^\s+\S/.test(line)) inBullet = false;
    if (!inBullet) continue;
    for (const [, repository, raw] of line.matchAll(IMAGE)) {
      const registry = repository.startsWith('registry.connect.redhat.com/') ? 'redhat' : 'docker';
      refs.push({ repository, registry, tag: raw.replace(/^v/, '') });
    }
  }
  return refs;
}

function unique(list) {
  return [...new Set(list)];
}

/** One notes file's facts; undefined when its title names no operator release. */
export function readNote(docs, file) {
  const text = readFileSync(path.join(docs, file), 'utf8').replace(/\r\n/g, '\n');
  const meta = frontMatter(text);
  const title = meta.title ?? meta.linktitle ?? '';
  const operator = OPERATOR_IN_TITLE.exec(title)?.[1] ?? OPERATOR_IN_TITLE.exec(meta.linktitle ?? '')?.[1];
  if (!operator) return undefined;
  const kubernetes = [];
  const openshift = [];
  const variants = [];
  for (const ref of redisEnterpriseImages(text)) {
    const suffix = /^\d+\.\d+\.\d+-\d+(?:\.\d+)?\.([a-z][a-z0-9-]*)$/.exec(ref.tag)?.[1];
    const isOpenshift =
      (suffix !== undefined && /^rhel\d+-openshift$/.test(suffix)) || ref.registry === 'redhat';
    if (suffix && !/^rhel\d+-openshift$/.test(suffix)) {
      if (!isOpenshift) variants.push(suffix);
    } else if (isOpenshift) openshift.push(ref.tag);
    else kubernetes.push(ref.tag);
  }
  const bundles = [...text.matchAll(OLM_BUNDLE)].map((m) => m[1]);
  return {
    file,
    operator,
    kubernetesTags: unique(kubernetes),
    openshiftTags: unique(openshift),
    variants: unique(variants),
    olmBundles: unique(bundles),
    breakingChanges: items(section(text, 'Breaking changes') || subsection(text, 'Breaking changes')),
    knownLimitations: items(section(text, 'Known limitations')),
    text,
  };
}

/** A `### <heading>` section (up to the next heading of level 2 or 3). */
function subsection(text, heading) {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => new RegExp(`^###\\s+${heading}\\s*$`, 'i').test(l.trim()));
  if (start < 0) return '';
  const end = lines.findIndex((l, i) => i > start && /^#{2,3}\s/.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** Every notes file's facts, by file. */
export function readAllNotes(docs) {
  return listNotes(docs)
    .map((file) => readNote(docs, file))
    .filter((note) => note !== undefined);
}
