/**
 * Operator installs owned by the Operator Lifecycle Manager (OperatorHub on OpenShift). OLM
 * owns the operator Deployment through a ClusterServiceVersion (owner reference of kind
 * ClusterServiceVersion, labels `olm.owner`, `olm.owner.kind`, `olm.owner.namespace`:
 * operator-framework/operator-lifecycle-manager `pkg/lib/ownerutil`) and puts back anything else
 * applied over it; it is upgraded through its Subscription and InstallPlan (DOCS
 * `kubernetes/upgrade/upgrade-olm.md`, redis-facts.md §12). Field names:
 * operator-framework/api `pkg/operators/v1alpha1/{subscription,installplan,clusterserviceversion}_types.go`;
 * the PackageManifest (which channel holds which CSV): operator-framework/operator-lifecycle-manager
 * `pkg/package-server/apis/operators/v1/packagemanifest_types.go`.
 *
 * OLM installs a channel's head (`status.channels[].currentCSV`): an InstallPlan is made for the
 * newest CSV of the subscribed channel that upgrades the installed one. So the target is reached
 * through a channel whose head IS the target ("To upgrade to an older version, specify the
 * desired version for your Update Channel", upgrade-olm.md), and only the InstallPlan whose
 * spec.clusterServiceVersionNames holds the target CSV is approved.
 */

import { array, getPath, record, str } from '../json-read.js';
import { type DigestLookup, digestVariable } from './cluster-patch.js';
import { type KubeTarget, kubectl, oc, shellQuote } from './equivalent-commands.js';
import { fromShellVariable } from './json-shell-variables.js';
import {
  compareOperatorVersions,
  formatOperatorVersion,
  operatorVersionFromImage,
  parseOperatorVersion,
} from '../release/versions.js';
import type { ClusterReads, CustomResourceType, KubeObject } from '../kube/reads.js';
import { parseImageReference } from '../release/image-reference.js';
import { clusterTagFor, variantOf } from '../release/catalog.js';
import type { Platform } from './snapshot-model.js';

export const SUBSCRIPTION_RESOURCE: CustomResourceType = {
  group: 'operators.coreos.com',
  version: 'v1alpha1',
  plural: 'subscriptions',
};
export const INSTALL_PLAN_RESOURCE: CustomResourceType = {
  group: 'operators.coreos.com',
  version: 'v1alpha1',
  plural: 'installplans',
};
export const CSV_RESOURCE: CustomResourceType = {
  group: 'operators.coreos.com',
  version: 'v1alpha1',
  plural: 'clusterserviceversions',
};
/** The apiVersion of the Subscription and InstallPlan objects the operator step reads and patches. */
export const OLM_API_VERSION = `${SUBSCRIPTION_RESOURCE.group}/${SUBSCRIPTION_RESOURCE.version}`;
/** Served by OLM's package server (an aggregated API), read-only. */
export const PACKAGE_MANIFEST_RESOURCE: CustomResourceType = {
  group: 'packages.operators.coreos.com',
  version: 'v1',
  plural: 'packagemanifests',
};

/** One channel of the package: its head and every CSV it holds. */
export interface OlmChannel {
  name: string;
  /** status.channels[].currentCSV: the CSV OLM installs from this channel. */
  currentCSV?: string | undefined;
  /** status.channels[].entries[].name. */
  entries: string[];
}

export interface OlmInstallPlan {
  name: string;
  /** spec.clusterServiceVersionNames. */
  csvs: string[];
  approved: boolean;
  phase?: string | undefined;
}

export interface OlmSubscription {
  name: string;
  /** spec.name: the package. */
  package?: string | undefined;
  channel?: string | undefined;
  /** spec.installPlanApproval: Automatic or Manual. */
  approval?: string | undefined;
  source?: string | undefined;
  sourceNamespace?: string | undefined;
  installedCSV?: string | undefined;
  currentCSV?: string | undefined;
  state?: string | undefined;
  /** status.installPlanRef.name. */
  installPlan?: string | undefined;
  /** status.lastUpdated: OLM rewrites it when it resolves the Subscription again. */
  lastUpdated?: string | undefined;
}

export interface OlmSnapshot {
  /** The ClusterServiceVersion that owns the operator Deployment. */
  csv: string;
  /** The operator's Subscription (the one whose installedCSV or currentCSV is that CSV). */
  subscription?: OlmSubscription | undefined;
  /** The InstallPlans of the namespace, pending ones first. */
  installPlans: OlmInstallPlan[];
  /** Why the Subscription could not be read (permissions, no OLM CRDs). */
  readError?: string | undefined;
  /** The channels of the Subscription's package, from its PackageManifest; undefined when unread. */
  channels?: OlmChannel[] | undefined;
  /** Why the PackageManifest could not be read (permissions, no package server). */
  packageError?: string | undefined;
  /**
   * The namespace's ClusterServiceVersions in phase Failed, with OLM's reason and message;
   * undefined when the CSVs could not be listed.
   */
  failedCsvs?: OlmFailedCsv[] | undefined;
}

/** A ClusterServiceVersion OLM left in phase Failed (status.reason, status.message). */
export interface OlmFailedCsv {
  name: string;
  reason: string;
  message: string;
}

/** The CSV owning the Deployment, from its owner reference or OLM's labels; undefined when OLM does not own it. */
export function olmOwnerOf(deployment: KubeObject | undefined): string | undefined {
  if (!deployment) return undefined;
  const byReference = (deployment.metadata?.ownerReferences ?? []).find(
    (ref) => ref.kind === 'ClusterServiceVersion',
  );
  if (byReference?.name) return byReference.name;
  const labels = deployment.metadata?.labels ?? {};
  return labels['olm.owner.kind'] === 'ClusterServiceVersion' ? labels['olm.owner'] : undefined;
}

/**
 * The operator version a Deployment runs: its image tag, or, when the image is named by digest
 * only (as an OLM bundle may name it), the version of the CSV that owns the Deployment.
 */
export function operatorVersionOfDeployment(deployment: KubeObject, image: string): string | undefined {
  const parsed = operatorVersionFromImage(image);
  return parsed ? formatOperatorVersion(parsed) : csvVersion(olmOwnerOf(deployment));
}

function toSubscription(object: KubeObject): OlmSubscription {
  const spec = record(object.spec);
  const status = record(object.status);
  return {
    name: object.metadata?.name ?? '',
    package: str(spec.name),
    channel: str(spec.channel),
    approval: str(spec.installPlanApproval),
    source: str(spec.source),
    sourceNamespace: str(spec.sourceNamespace),
    installedCSV: str(status.installedCSV),
    currentCSV: str(status.currentCSV),
    state: str(status.state),
    installPlan: str(getPath(status, ['installPlanRef', 'name'])),
    lastUpdated: str(status.lastUpdated),
  };
}

function toInstallPlan(object: KubeObject): OlmInstallPlan {
  return {
    name: object.metadata?.name ?? '',
    csvs: array(getPath(object, ['spec', 'clusterServiceVersionNames'])).filter(
      (name): name is string => typeof name === 'string',
    ),
    approved: getPath(object, ['spec', 'approved']) === true,
    phase: str(getPath(object, ['status', 'phase'])),
  };
}

function toChannels(manifest: KubeObject): OlmChannel[] {
  return array(getPath(manifest, ['status', 'channels'])).map((value) => {
    const channel = record(value);
    return {
      name: str(channel.name) ?? '',
      currentCSV: str(channel.currentCSV),
      entries: array(channel.entries)
        .map((entry) => str(record(entry).name))
        .filter((name): name is string => name !== undefined),
    };
  });
}

/** The CSV as a failed one, or nothing when its phase is not Failed. */
function failedCsvOf(object: KubeObject): OlmFailedCsv[] {
  const status = record(object.status);
  if (str(status.phase) !== 'Failed') return [];
  return [
    {
      name: object.metadata?.name ?? '',
      reason: str(status.reason) ?? '',
      message: str(status.message) ?? '',
    },
  ];
}

type OlmReads = Pick<ClusterReads, 'listCustomObjects' | 'getCustomObject'>;

/** The package's PackageManifest in the namespace (a get by name: a list holds every package of every catalog). */
async function readPackageManifest(
  kube: OlmReads,
  namespace: string,
  packageName: string,
): Promise<KubeObject | undefined> {
  if (kube.getCustomObject) return kube.getCustomObject(PACKAGE_MANIFEST_RESOURCE, namespace, packageName);
  const all = await kube.listCustomObjects(PACKAGE_MANIFEST_RESOURCE, namespace);
  return all.find((object) => object.metadata?.name === packageName);
}

/** Reads the Subscription, the InstallPlans and the package's channels of an OLM-owned operator. */
export async function readOlm(kube: OlmReads, namespace: string, csv: string): Promise<OlmSnapshot> {
  let olm: OlmSnapshot;
  try {
    const [subscriptions, plans, csvs] = await Promise.all([
      kube.listCustomObjects(SUBSCRIPTION_RESOURCE, namespace),
      kube.listCustomObjects(INSTALL_PLAN_RESOURCE, namespace).catch(() => [] as KubeObject[]),
      kube.listCustomObjects(CSV_RESOURCE, namespace).catch(() => undefined),
    ]);
    const all = subscriptions.map(toSubscription);
    const subscription =
      all.find((s) => s.installedCSV === csv || s.currentCSV === csv) ??
      all.find((s) => s.package?.startsWith('redis-enterprise')) ??
      (all.length === 1 ? all[0] : undefined);
    const installPlans = plans
      .map(toInstallPlan)
      .sort((a, b) => Number(a.phase !== 'RequiresApproval') - Number(b.phase !== 'RequiresApproval'));
    olm = { csv, subscription, installPlans, failedCsvs: csvs?.flatMap(failedCsvOf) };
  } catch (error) {
    return { csv, installPlans: [], readError: (error as Error).message };
  }
  const packageName = olm.subscription?.package;
  if (!packageName) return olm;
  try {
    const manifest = await readPackageManifest(kube, namespace, packageName);
    if (!manifest)
      return { ...olm, packageError: `no PackageManifest ${packageName} in namespace ${namespace}` };
    return { ...olm, channels: toChannels(manifest) };
  } catch (error) {
    return { ...olm, packageError: (error as Error).message };
  }
}

/** InstallPlan objects, as the run re-reads them. */
export const installPlanOf = toInstallPlan;
/** A Subscription object, as the run re-reads it. */
export const subscriptionOf = toSubscription;

/**
 * `redis-enterprise-operator.v7.8.2-6` -> `7.8.2-6`. Certified bundles may carry a rebuild
 * suffix (`redis-enterprise-operator.v7.22.0-11.2`): the operator release is before it.
 */
export function csvVersion(csv: string | undefined): string | undefined {
  const match = csv ? /\.v(\d+\.\d+\.\d+-\d+)(?:\.\d+)?$/.exec(csv) : null;
  return match?.[1];
}

/** How OLM reaches the target: which CSV, through which channel, by which InstallPlan. */
export interface OlmRoute {
  /** The CSV of the target release (from the package's channels, else OLM's naming). */
  targetCsv: string;
  /** The subscribed channel. */
  channel: string | undefined;
  /** The head of the subscribed channel, when the PackageManifest was read. */
  channelHead: string | undefined;
  /** The subscribed channel's head is the target: no switch needed. */
  channelHasTarget: boolean;
  /** The channel to subscribe to (the current one when it has the target). */
  targetChannel: string | undefined;
  /** The unfinished InstallPlan whose clusterServiceVersionNames hold the target CSV. */
  plan: OlmInstallPlan | undefined;
  /** Why ctl cannot tell how OLM reaches the target; undefined when it can. */
  problem?: string | undefined;
}

/** An InstallPlan OLM has not finished with: what it offers still stands. */
export const isUnfinishedPlan = (plan: OlmInstallPlan): boolean =>
  plan.phase !== 'Complete' && plan.phase !== 'Failed';

/** The channel the Subscription is in, as the PackageManifest lists it (its head: currentCSV). */
export function subscribedChannel(olm: OlmSnapshot): OlmChannel | undefined {
  return olm.channels?.find((channel) => channel.name === olm.subscription?.channel);
}

/** The route to `target` (an operator version) from what the snapshot (or the run's re-read) holds. */
export function olmRoute(olm: OlmSnapshot, target: string): OlmRoute {
  const sub = olm.subscription;
  const known = [
    ...(olm.channels ?? []).flatMap((c) => [c.currentCSV ?? '', ...c.entries]),
    ...olm.installPlans.flatMap((p) => p.csvs),
    sub?.currentCSV ?? '',
  ];
  const targetCsv = known.find((csv) => csvVersion(csv) === target) ?? `redis-enterprise-operator.v${target}`;
  const plan = olm.installPlans.find((p) => p.csvs.includes(targetCsv) && isUnfinishedPlan(p));
  const current = subscribedChannel(olm);
  // An unfinished plan of the target: OLM offers it already, approving it is enough.
  const channelHasTarget = current?.currentCSV === targetCsv || plan !== undefined;
  const base = { targetCsv, channel: sub?.channel, channelHead: current?.currentCSV, plan };
  if (channelHasTarget) return { ...base, channelHasTarget, targetChannel: sub?.channel };
  if (!olm.channels) {
    return {
      ...base,
      channelHasTarget: false,
      targetChannel: undefined,
      problem: `the PackageManifest of ${sub?.package ?? 'the package'} could not be read (${olm.packageError ?? olm.readError ?? 'no Subscription'}), so ctl cannot tell which channel offers ${targetCsv}`,
    };
  }
  // Several channels may have the target as head (its release line, `production` before a newer
  // release): the release line's, whose head stays on that line, first.
  const heads = olm.channels.filter((c) => c.currentCSV === targetCsv);
  const line = target.split('-')[0];
  const chosen = heads.find((c) => c.name === line) ?? heads[0];
  if (chosen) return { ...base, channelHasTarget: false, targetChannel: chosen.name };
  const holding = olm.channels.filter((c) => c.entries.includes(targetCsv)).map((c) => c.name);
  return {
    ...base,
    channelHasTarget: false,
    targetChannel: undefined,
    problem:
      holding.length > 0
        ? `no channel of ${sub?.package ?? 'the package'} has ${targetCsv} as its head (channels ${holding.join(', ')} hold it, but OLM installs a channel's head)`
        : `no channel of ${sub?.package ?? 'the package'} offers ${targetCsv}`,
  };
}

export function subscriptionChannelCommand(
  kube: KubeTarget,
  sub: string,
  namespace: string,
  channel: string,
): string {
  return `${oc(kube, 'patch', 'subscription', sub, '-n', namespace)} --type merge -p ${shellQuote(JSON.stringify({ spec: { channel } }))}`;
}

export function approveInstallPlanCommand(kube: KubeTarget, name: string, namespace: string): string {
  return approveInstallPlanWord(kube, shellQuote(name), namespace);
}

/** The approval with the plan's name as a shell word already (a `"$(...)"` that reads it). */
function approveInstallPlanWord(kube: KubeTarget, nameWord: string, namespace: string): string {
  return `${oc(kube, 'patch', 'installplan')} ${nameWord} -n ${shellQuote(namespace)} --type merge -p '{"spec":{"approved":true}}'`;
}

/**
 * The commands that upgrade an OLM-owned operator to `target`, in order: switch the
 * Subscription to the channel whose head is the target, wait for OLM's InstallPlan, approve the
 * plan whose CSV is the target (Manual approval only), wait for that CSV to succeed (DOCS
 * `kubernetes/upgrade/upgrade-olm.md`). These are what the run does, step by step.
 */
export function olmUpgradeCommands(
  kube: KubeTarget,
  olm: OlmSnapshot,
  namespace: string,
  target: string,
): { description: string; command: string }[] {
  const sub = olm.subscription?.name ?? 'SUBSCRIPTION';
  const route = olmRoute(olm, target);
  const { targetCsv, plan } = route;
  const commands: { description: string; command: string }[] = [];
  if (!route.channelHasTarget) {
    const channel = route.targetChannel ?? target.split('-')[0] ?? target;
    commands.push({
      description: `Switch Subscription ${sub} from channel ${route.channel ?? '?'} to ${channel}, whose head is ${targetCsv}`,
      command: subscriptionChannelCommand(kube, sub, namespace, channel),
    });
  }
  if (olm.subscription?.approval !== 'Automatic' && !plan?.approved) {
    if (plan)
      commands.push({
        description: `Approve InstallPlan ${plan.name} (${targetCsv}), and no other`,
        command: approveInstallPlanCommand(kube, plan.name, namespace),
      });
    else {
      commands.push(
        {
          description: `Wait for OLM to offer ${targetCsv}`,
          command: `${oc(kube, 'wait', `subscription/${sub}`, '-n', namespace)} --for=jsonpath='{.status.currentCSV}'=${shellQuote(targetCsv)} --timeout=5m`,
        },
        {
          description: `Approve the InstallPlan of ${targetCsv}, and no other`,
          command: approveInstallPlanWord(
            kube,
            `"$(${oc(kube, 'get', 'subscription', sub, '-n', namespace)} -o jsonpath='{.status.installPlanRef.name}')"`,
            namespace,
          ),
        },
      );
    }
  }
  commands.push({
    description: `Wait for ${targetCsv} to succeed (OLM rolls the operator)`,
    command: `${oc(kube, 'wait', `csv/${targetCsv}`, '-n', namespace)} --for=jsonpath='{.status.phase}'=Succeeded --timeout=10m`,
  });
  return commands;
}

/** One entry of a CSV's `spec.relatedImages` (operator-framework/api RelatedImage). */
export interface RelatedImage {
  name: string | undefined;
  image: string;
}

/**
 * `spec.relatedImages` of a CSV. An entry without an image (or with an empty one) is left out:
 * kubectl's jsonpath prints it as an empty image, and the plan's printed command skips it the same way.
 */
export function relatedImagesOf(csv: KubeObject | undefined): RelatedImage[] {
  return array(getPath(csv, ['spec', 'relatedImages'])).flatMap((entry) => {
    const image = str(record(entry).image);
    return image === undefined || image === '' ? [] : [{ name: str(record(entry).name), image }];
  });
}

/**
 * The relatedImages name Redis's certified bundle gives each image spec's image (certified-operators
 * operators/redis-enterprise-operator-cert/7.22.0-11.2/manifests/...clusterserviceversion.yaml:
 * redis-enterprise-node, services-rigger, bootstrapper, call-home-client). The cluster resource
 * may name another repository for the same image (the OpenShift registry, a mirror, Docker Hub),
 * so the name decides before the repository does. A node image at a `.minimal` tag (the minimal
 * base image, redis.io kubernetes/security/minimal-base-image.md: "the same version tag as the
 * standard image, with a `.minimal` suffix") is `redis-enterprise-node-minimal`, which the
 * certified CSVs relate from 8.0.18-11.0 on (8.0.18-11.0, 8.2.0-13.0: spec.relatedImages).
 */
export function relatedImageName(image: { field: string; node: boolean }, tag?: string): string | undefined {
  if (image.node) return isMinimalTag(tag) ? MINIMAL_NODE_NAME : 'redis-enterprise-node';
  return RELATED_NAMES[image.field];
}

const MINIMAL_NODE_NAME = 'redis-enterprise-node-minimal';

function isMinimalTag(tag: string | undefined): boolean {
  return variantOf(tag) === 'minimal';
}

const RELATED_NAMES: Record<string, string> = {
  redisEnterpriseServicesRiggerImageSpec: 'services-rigger',
  bootstrapperImageSpec: 'bootstrapper',
  'usageMeter.callHomeClient.imageSpec': 'call-home-client',
};

/**
 * The digest a CSV relates for an image (`<repository>@sha256:...`; certified bundles name their
 * related images by digest): the first entry of that name, else the first entry of that
 * repository. Undefined when the CSV relates neither, or names it by tag only (an entry of the
 * name found by tag is the answer: no other entry is tried).
 */
export function relatedDigest(
  relatedImages: readonly RelatedImage[],
  repository: string | undefined,
  name?: string,
): string | undefined {
  const entry = relatedEntry(relatedImages, repository, name);
  // `repo@` names no digest: as none (the printed command's variable is empty then too).
  return (entry ? parseImageReference(entry.image).digest : undefined) || undefined;
}

/** The entry relatedDigest takes its digest from: the first of that name, else the first of that repository. */
export function relatedEntry(
  relatedImages: readonly RelatedImage[],
  repository: string | undefined,
  name?: string,
): RelatedImage | undefined {
  const byName = name === undefined ? undefined : relatedImages.find((entry) => entry.name === name);
  const byRepository =
    repository === undefined
      ? undefined
      : relatedImages.find((entry) => parseImageReference(entry.image).repository === repository);
  return byName ?? byRepository;
}

/**
 * The RS tag whose node image the target CSV relates: the release's own, the one `--to` picks
 * without --cluster-version (src/planning/resolve.ts). The certified bundle relates one node
 * image, the release's, by digest and without its tag (certified-operators
 * operators/redis-enterprise-operator-cert/7.22.0-11.2/manifests/...clusterserviceversion.yaml,
 * redis-enterprise-node), so its digest is no other tag's. The run and the plan both ask this.
 */
export function olmNodeReleaseTag(
  operatorTarget: string,
  platform: Platform,
  currentTag: string | undefined,
): string | undefined {
  return clusterTagFor(operatorTarget, platform, currentTag);
}

/** Where a digest is looked up in the target CSV's spec.relatedImages: by name, else by repository. */
export interface RelatedImageLookup {
  name: string | undefined;
  repository: string | undefined;
}

/**
 * The one rule for the digest an image spec gets under OLM, for the run (src/steps/olm-digests.ts,
 * through relatedDigest) and the plan's printed command (plannedOlmDigests, the same in awk): the
 * entry of the image's related name, else of its repository. None (undefined) for the node image
 * at a tag other than the release's own (olmNodeReleaseTag), or for an image with neither name
 * nor repository: the cluster patch is refused then, with the fix. The minimal node image is
 * looked up by its name only: the CSV relates it in the same repository as the full image, listed
 * first, so by repository the full image's digest would go next to the `.minimal` tag and the
 * nodes would pull the full image (a digestHash is pulled "instead of the image tag", the REC
 * CRD). A CSV without that name gives no digest, and both stop.
 */
export function relatedImageLookup(
  repository: string | undefined,
  tag: string,
  image: { field: string; node: boolean },
  releaseTag: string | undefined,
): RelatedImageLookup | undefined {
  if (image.node && tag !== releaseTag) return undefined;
  const name = relatedImageName(image, tag);
  if (name === MINIMAL_NODE_NAME) return { name, repository: undefined };
  return name === undefined && repository === undefined ? undefined : { name, repository };
}

/**
 * Why the target CSV gives no digest, for the refusal of the plan and of the run: the node image
 * at another tag than the release's own is known before the CSV is read.
 */
export function olmDigestGap(
  digests: { csv: string; releaseTag: string | undefined },
  tag: string,
  refused: readonly { node?: boolean | undefined }[],
): string {
  const release = digests.releaseTag;
  if (refused.some((move) => move.node) && release !== undefined && otherVariantOnly(tag, release)) {
    // Not "relates ... only": from 8.0.18-11.0 the CSV relates both node images of its release
    // (relatedImageName). The node image's digest is taken for the release's tag in the variant
    // the cluster runs (olmNodeReleaseTag keeps it), and --cluster-version names the other one.
    return `ctl takes the node image's digest from ${digests.csv} for the ${variantName(release)} the cluster runs (${release}) only, and --cluster-version ${tag} is the ${variantName(tag)} of that release; leave --cluster-version out to stay on the ${variantName(release)}, or remove the digest`;
  }
  if (refused.some((move) => move.node) && tag !== release) {
    return `${digests.csv} relates the node image of ${release ?? 'its release'} only, not of --cluster-version ${tag}; leave --cluster-version out, or remove the digest`;
  }
  const minimal = refused.some((move) => move.node) && isMinimalTag(tag);
  return `${digests.csv} spec.relatedImages has no digest for it${minimal ? ` (the ${tag} image is looked up as ${MINIMAL_NODE_NAME} only)` : ''}`;
}

/** The same release's tag in another image variant: `8.2.0-78.18` and `8.2.0-78.18.minimal`. */
function otherVariantOnly(tag: string, releaseTag: string): boolean {
  return variantOf(tag) !== variantOf(releaseTag) && withoutVariant(tag) === withoutVariant(releaseTag);
}

function withoutVariant(tag: string): string {
  const variant = variantOf(tag);
  return variant === undefined ? tag : tag.slice(0, -(variant.length + 1));
}

/** A node image by its variant, as redis.io names them (kubernetes/security/minimal-base-image.md). */
function variantName(tag: string): string {
  const variant = variantOf(tag);
  if (variant === undefined) return 'standard image';
  return variant === 'minimal' ? 'minimal base image' : `${variant} image`;
}

export interface PlannedDigests {
  /** The target CSV the digests come from. */
  csv: string;
  /** The RS tag whose node image the CSV relates (olmNodeReleaseTag). */
  releaseTag: string | undefined;
  /** Each pinned image's digest as a shell variable (src/planning/json-shell-variables.ts). */
  digestOf: DigestLookup;
  /**
   * `NAME=$(kubectl get csv ...)` for each variable digestOf gave, in that order: run before the
   * patch on its line (`A=$(...) && kubectl patch ...`), they read the digests from the CSV.
   */
  assignments: string[];
}

/**
 * relatedImageLookup in awk, over the lines `name<TAB>image` the printed kubectl gives: the first
 * entry named $RELATED_NAME, else the first whose repository (parseImageReference: before the
 * first `@`, then before the first `:` after the last `/`) is $RELATED_REPOSITORY; then the
 * digest, after the first `@`, or nothing for an image by tag. Name and repository come in the
 * environment (ENVIRON, POSIX awk), never in the program: a value from the cluster is data.
 */
const PICK_RELATED_DIGEST =
  'BEGIN { FS = "\\t"; n = ENVIRON["RELATED_NAME"]; r = ENVIRON["RELATED_REPOSITORY"] } ' +
  'function repository(s, i) { i = index(s, "@"); if (i) s = substr(s, 1, i - 1); ' +
  'i = match(s, /:[^\\/]*$/); return i ? substr(s, 1, i - 1) : s } ' +
  '$2 == "" { next } ' +
  '!named && n != "" && $1 == n { named = 1; image = $2 } ' +
  '!found && r != "" && repository($2) == r { found = 1; other = $2 } ' +
  'END { if (!named) image = other; if (sub(/^[^@]*@/, "", image)) print image }';

/**
 * For the plan, made before the target CSV is installed: each pinned digest is read, when the
 * printed command runs, from where the run takes it (the target CSV's spec.relatedImages, by
 * relatedImageLookup: src/steps/olm-digests.ts), into a shell variable the patch's JSON takes.
 * kubectl prints each related image as `name<TAB>image` (jsonpath range with `{"\t"}` and
 * `{"\n"}`, kubernetes.io/docs/reference/kubectl/jsonpath/; a missing name prints empty, as
 * `--allow-missing-template-keys` defaults to true) and awk picks the digest as the run does; an
 * image named by tag prints nothing, so the patch's `${NAME:?}` stops the line then, as the run
 * stops. An image the rule gives no lookup gets no digest (the patch is refused with the fix).
 */
export function plannedOlmDigests(
  olm: OlmSnapshot,
  target: string,
  where: { kube: KubeTarget; namespace: string; platform: Platform; currentTag: string | undefined },
): PlannedDigests {
  const csv = olmRoute(olm, target).targetCsv;
  const releaseTag = olmNodeReleaseTag(target, where.platform, where.currentTag);
  const assignments = new Map<string, string>();
  const digestOf: DigestLookup = (repository, tag, image) => {
    const lookup = relatedImageLookup(repository, tag, image, releaseTag);
    if (lookup === undefined) return undefined;
    const variable = digestVariable(image.field);
    const read = kubectl(
      where.kube,
      'get',
      'csv',
      csv,
      '-n',
      where.namespace,
      '-o',
      'jsonpath={range .spec.relatedImages[*]}{.name}{"\\t"}{.image}{"\\n"}{end}',
    );
    const environment = [
      ...(lookup.name === undefined ? [] : [`RELATED_NAME=${shellQuote(lookup.name)}`]),
      ...(lookup.repository === undefined ? [] : [`RELATED_REPOSITORY=${shellQuote(lookup.repository)}`]),
    ];
    const pick = [...environment, 'awk', shellQuote(PICK_RELATED_DIGEST)].join(' ');
    assignments.set(variable, `${variable}=$(${read} | ${pick})`);
    return fromShellVariable(variable);
  };
  return {
    csv,
    releaseTag,
    digestOf,
    get assignments() {
      return [...assignments.values()];
    },
  };
}

/**
 * The channel head an intermediate hop goes to under OLM. OLM installs only a channel's head,
 * so a hop release the hop rules name (src/planning/hops.ts) is replaced by the newest head of
 * its own release line that is not older than it and still before `goal` (the heads of the
 * package's channels, from its PackageManifest). The rule it was chosen for still holds: a
 * newer build of the same line has the same RS line and the same minimums. Undefined when
 * nothing is known of the channels or no head fits: the hop stays, and the operator-method
 * check says which heads there are.
 */
export function olmHeadForHop(olm: OlmSnapshot | undefined, hop: string, goal: string): string | undefined {
  const heads = (olm?.channels ?? []).flatMap((channel) => {
    const version = csvVersion(channel.currentCSV);
    return version ? [version] : [];
  });
  if (heads.includes(hop)) return hop;
  const hopVersion = parseOperatorVersion(hop);
  const goalVersion = parseOperatorVersion(goal);
  if (!hopVersion || !goalVersion) return undefined;
  const line = hop.split('-')[0];
  return heads
    .filter((head) => head.split('-')[0] === line)
    .filter((head) => {
      const parsed = parseOperatorVersion(head);
      return (
        parsed !== undefined &&
        compareOperatorVersions(parsed, hopVersion) >= 0 &&
        compareOperatorVersions(parsed, goalVersion) < 0
      );
    })
    .sort((a, b) => compareOperatorVersions(parseOperatorVersion(a)!, parseOperatorVersion(b)!))
    .at(-1);
}
