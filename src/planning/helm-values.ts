/**
 * The user values of the operator's helm release that can keep the OLD operator. The chart
 * takes the operator image from `.Values.operator.image.{repository,tag}`, and a value the user
 * set at install survives `--reset-then-reuse-values` (chart `_helpers.tpl`, `values.yaml`;
 * redis-facts.md §12). So a pinned tag is overridden for the target with
 * `--set operator.image.tag=<target>` (shown in the plan's command); a pinned repository (a
 * mirror) is kept and shown, since the target tag must then exist in that mirror.
 *
 * Values come from `helm get values <release> -o json` at run time (src/exec/helm.ts) and, for
 * the plan, from the release record helm keeps in its Secret (see releaseConfigOf). Only these
 * two fields are kept: other values may hold secrets.
 */

import { parseJson } from '../json-read.js';
import { gunzipSync } from 'node:zlib';

export interface PinnedOperatorImage {
  tag?: string | undefined;
  repository?: string | undefined;
}

/** `operator.image.{tag,repository}` of a values object (helm get values -o json). */
export function pinnedOperatorImage(values: unknown): PinnedOperatorImage {
  const operator = field(values, 'operator');
  const image = field(operator, 'image');
  const tag = field(image, 'tag');
  const repository = field(image, 'repository');
  return {
    tag: typeof tag === 'string' || typeof tag === 'number' ? String(tag) : undefined,
    repository: typeof repository === 'string' ? repository : undefined,
  };
}

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

/** The `--set` arguments that make the release run the target, and what to say about the pins. */
export function operatorImageOverrides(
  pinned: PinnedOperatorImage,
  target: string,
): { set: string[]; notes: string[] } {
  const set: string[] = [];
  const notes: string[] = [];
  if (pinned.tag !== undefined && pinned.tag.replace(/^v/, '') !== target) {
    set.push(`operator.image.tag=${target}`);
    notes.push(
      `the release pins operator.image.tag=${pinned.tag}: overridden with --set operator.image.tag=${target}`,
    );
  }
  if (pinned.repository !== undefined) {
    notes.push(
      `the release pins operator.image.repository=${pinned.repository}: kept, so ${pinned.repository}:${target} must exist there`,
    );
  }
  return { set, notes };
}

/**
 * The largest release record read, inflated: the chart's templates and CRDs, its values and its
 * manifest; the largest charts' records come near helm's own 1 MiB Secret compressed, about 10
 * MiB inflated.
 */
export const MAX_RELEASE_BYTES = 32 * 1024 * 1024;

/**
 * The user-supplied values (`config`) of a helm release record: helm's Secret driver stores the
 * release as base64(gzip(JSON)) in `data.release`, which the Secret base64-encodes once more.
 * `undefined` when it cannot be read (never throws: the run reads the values with helm anyway).
 */
export function releaseConfigOf(secretData: Record<string, string> | undefined): unknown {
  const raw = secretData?.release;
  if (!raw) return undefined;
  try {
    const inner = Buffer.from(Buffer.from(raw, 'base64').toString('utf8'), 'base64');
    // Inflated within a bound: the Secret holds at most 1 MiB, but a gzip bomb of that size
    // inflates to a gigabyte (a plan's memory went to 1.5 GB). Past the bound gunzipSync throws.
    const json =
      inner[0] === 0x1f && inner[1] === 0x8b
        ? gunzipSync(inner, { maxOutputLength: MAX_RELEASE_BYTES }).toString('utf8')
        : inner.toString('utf8');
    return (parseJson(json, 'the helm release record') as { config?: unknown }).config;
  } catch {
    return undefined;
  }
}
