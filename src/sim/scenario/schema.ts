/**
 * The scenario file (SIMULATOR.md "Scenario file") as a zod schema. Objects are strict, so a
 * misspelt key is an error instead of a silently ignored setting. Defaults that depend on
 * other fields (webhook name, API version, database namespaces and uids) are filled in later
 * by `resolve` in expand.ts; here they stay optional.
 */

import * as z from 'zod';
import { SIM_DIALECTS } from '../world/dialect.js';
import { MODULE_KINDS } from '../world/module-kinds.js';
import { softwareVersionOf } from '../world/releases.js';
import { BUILT_IN_ROLES } from '../rest/access.js';

const BUILT_IN_ROLE_NAMES = BUILT_IN_ROLES.map((role) => role.name);

// DNS-1123 label: namespaces, REC and REDB names all become parts of Service and Pod names.
const KUBE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export const kubeName = () =>
  z
    .string()
    .max(63)
    .regex(
      KUBE_NAME,
      'expected a Kubernetes name: lower-case letters, digits and "-", starting and ending alphanumeric',
    );

/** `7.4.6-2`: an operator release. */
const OPERATOR_VERSION = /^\d+\.\d+\.\d+-\d+$/;
/** `7.4.6-22`, `8.0.18-36.14` (with the operator build), `7.4.6-22.rhel8-openshift`. */
const VERSION_TAG = /^\d+\.\d+\.\d+-\d+(\.\d+)?(\.[a-z0-9]+(-[a-z0-9]+)*)?$/;
/** `7.4.6-22`: what the management API reports as its server version. */
const SERVER_VERSION = /^\d+\.\d+\.\d+-\d+$/;
/** `7.2`: a database (Redis) version. */
const DATABASE_VERSION = /^\d+\.\d+$/;
/** `2.8.4`: a module's semantic version. */
const MODULE_VERSION = /^\d+\.\d+\.\d+$/;
/** `rhel8/x86_64`: the keys of a module's `platforms` map in the REST API. */
const PLATFORM = /^[a-z][a-z0-9.]*\/[a-z0-9_]+$/;

const versionString = (pattern: RegExp, example: string) =>
  z.string().regex(pattern, `expected a version such as "${example}"`);

export const UPGRADE_POLICY = z.enum(['major', 'latest']);
/**
 * The management roles (rest-api/permissions.md "Roles"; the simulator's table: rest/access.ts).
 * user_manager exists from RS 7.8.2 only: expand.ts checkRoles refuses it on an older cluster.
 */
export const USER_ROLES = [
  'admin',
  'cluster_member',
  'cluster_viewer',
  'db_member',
  'db_viewer',
  'user_manager',
  'none',
] as const;

/** Fixed rather than random so demos, docs and rehearsals can quote it; the simulator is local only. */
export const DEFAULT_ADMIN = { username: 'admin@example.com', password: 'change-me', role: 'admin' } as const;

const userSchema = z
  .strictObject({
    username: z.string().min(1),
    /** Absent: a new random password (a captured scenario never carries one), written to <dir>/env. */
    password: z.string().min(1).optional(),
    /**
     * The user object's `role` (objects/user.md). Absent: see defaultRole.
     */
    role: z.enum(USER_ROLES).optional(),
    /**
     * An RBAC user: its roles by name, built-in (Admin, Cluster Member, Cluster Viewer, DB Member,
     * DB Viewer, None, User Manager) or `cluster.roles`; the API serves `role_uids`, not `role`.
     */
    roles: z.array(z.string().min(1)).min(1).optional(),
    passwordExpired: z.boolean().default(false),
    /**
     * Ours. false: the user signs in (its `role`/`roles` decide what it may do) but is no user
     * object: GET /v1/users does not list it and GET /v1/users/<uid> answers 404, as for an LDAP
     * user, whose groups are mapped to roles at sign-in (redis/docs rs/security/access-control/ldap).
     * Absent: listed.
     */
    listed: z.boolean().optional(),
  })
  .transform((user) => ({ ...user, role: user.role ?? defaultRole(user) }));

/**
 * The `role` of a user that gives none. A user with RBAC `roles` gets what the API gives a user
 * created with `role_uids` alone: `db_viewer`, the user object's default `role` (redis/docs
 * content/operate/rs/references/rest-api/objects/user.md, `role` with db_viewer in bold;
 * requests/users/_index.md, "Create user": a body of `role_uids` only is answered with
 * `"role": "db_viewer"`). What it may do is its roles' management roles, never `role`
 * (rest/access.ts rolesOf). A user with neither: `admin` (ours: SIMULATOR.md's users are admins
 * unless they say otherwise, and the scenario's first user is who a rehearsal signs in as).
 */
function defaultRole(user: { roles?: string[] | undefined }): (typeof USER_ROLES)[number] {
  return user.roles ? 'db_viewer' : 'admin';
}

/** A role of the cluster's own (objects/role.md): its name and management role. */
const roleSchema = z.strictObject({
  name: z.string().min(1),
  management: z.enum(USER_ROLES),
  /**
   * The databases (name or namespace/name) the role is limited to (objects/role.md `resources`):
   * RS 8.2 and later, db_member and db_viewer roles only (expand.ts checkRoles).
   */
  databases: z.array(z.string().min(1)).min(1).optional(),
});

const moduleSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z][A-Za-z0-9_-]*$/, 'expected a module name such as "search" or "ReJSON"'),
  version: versionString(MODULE_VERSION, '2.8.4'),
  platforms: z
    .array(z.string().regex(PLATFORM, 'expected an <os>/<arch> platform such as "rhel9/x86_64"'))
    .min(1),
  /**
   * Where it came from (world/module-kinds.ts): bundled with the cluster's RS, custom (uploaded),
   * or deprecated (RedisGraph, RedisGears 2). Absent: from its name and the cluster's RS.
   */
  kind: z.enum(MODULE_KINDS).optional(),
});

const databaseSchema = z.strictObject({
  name: kubeName(),
  namespace: kubeName().optional(),
  version: versionString(DATABASE_VERSION, '7.2'),
  uid: z.number().int().min(1).optional(),
  modules: z
    .array(
      z.strictObject({ name: z.string().min(1), version: versionString(MODULE_VERSION, '2.8.4').optional() }),
    )
    .default([]),
  activeActive: z.boolean().default(false),
  /** Active-Active only: the `remoteClusters` it also runs on (its REAADB lists them, and this cluster). */
  participants: z.array(kubeName()).default([]),
  upgradePolicy: UPGRADE_POLICY.nullable().default(null),
  memorySize: z.string().optional(),
  /** The REDB's spec.shardCount; `shards` (SIMULATOR.md's key) says the same, and wins. */
  shardCount: z.number().int().min(1).optional(),
  /**
   * Master shards (bdb `shards_count`, 1-512); default 1. Shards are placed on the nodes as Redis
   * Software's default (sparse) policy does, a replica never on its master's node
   * (src/sim/rest/shards.ts).
   */
  shards: z.number().int().min(1).max(512).optional(),
  /** bdb `replication`; default true. false: the database is down for its node's whole restart. */
  replication: z.boolean().optional(),
});

/**
 * Another participating cluster of Active-Active databases (src/sim/rest/remote-clusters.ts).
 * Ours besides the fixed keys: `operator`, the operator release it runs, whose RS (the world's
 * release table) its API then reports, unless `rsVersion` says otherwise.
 */
const remoteClusterSchema = z
  .strictObject({
    name: kubeName(),
    /** What its GET /v1/nodes (software_version) and GET /v1/cluster report. */
    rsVersion: versionString(SERVER_VERSION, '7.22.2-179').optional(),
    /** The operator release it runs (`8.0.20-26`): its RS is that release's (`8.0.20-96`). */
    operator: z
      .string()
      .regex(/^\d+\.\d+\.\d+-\d+$/, 'expected an operator version such as "8.0.20-26"')
      .refine(
        (v) => softwareVersionOf(v) !== undefined,
        'an operator release the simulated world does not know',
      )
      .optional(),
    /** false: its management API accepts connections and never answers. */
    reachable: z.boolean().default(true),
  })
  .transform((remote) => ({
    ...remote,
    rsVersion:
      remote.rsVersion ?? (remote.operator ? softwareVersionOf(remote.operator) : undefined) ?? '7.22.2-179',
  }));

const faultSchema = z
  .strictObject({
    api: z.enum(['rest', 'kube']),
    /** `"POST /v1/bdbs/*\/upgrade"`, `"*"` (every request) or `"watch"` (kube watches). */
    match: z.string().min(1),
    status: z.number().int().min(100).max(599).optional(),
    /** How many matching requests fail; absent = every one (subject to `rate`). */
    times: z.number().int().min(1).optional(),
    /** Fraction of matching requests that fail, drawn from a generator seeded with `seed`. */
    rate: z.number().gt(0).max(1).optional(),
    /** echo (management API only): an error answer that quotes the request, credentials included. */
    kind: z.enum(['reset', 'delay', 'status', 'echo']).optional(),
    delayMs: z.number().int().min(0).optional(),
    seed: z.number().int().optional(),
    dropAfterSeconds: z.number().gt(0).optional(),
  })
  .refine((fault) => fault.kind !== 'echo' || fault.api === 'rest', {
    message: 'kind echo is for the management API only (api: rest)',
    path: ['kind'],
  });

/**
 * Expands into many entries so a scale scenario needs no thousand-line file. Generated
 * modules come first, then generated databases, both after the explicit ones.
 */
const generateSchema = z.strictObject({
  databases: z
    .strictObject({
      count: z.number().int().min(1),
      /** Spread round-robin over the scenario namespace plus `<namespace>-02 … -NN` (all watched). */
      namespaces: z.number().int().min(1).default(1),
      version: versionString(DATABASE_VERSION, '7.2'),
      prefix: kubeName().default('db'),
      /** Every Nth generated database uses one of the generated modules; 0 = none. */
      moduleEvery: z.number().int().min(0).default(0),
    })
    .optional(),
  modules: z
    .strictObject({
      count: z.number().int().min(1),
      prefix: z
        .string()
        .regex(/^[A-Za-z][A-Za-z0-9_-]*$/)
        .default('module'),
      version: versionString(MODULE_VERSION, '1.0.0').default('1.0.0'),
      platforms: z.array(z.string().regex(PLATFORM)).min(1).default(['rhel8/x86_64', 'rhel9/x86_64']),
    })
    .optional(),
});

/** How `redis-enterprise-scc-v2` is installed and bound (platform: openshift; SIMULATOR.md). */
const openshiftSchema = z
  .strictObject({
    /** users: the SCC's `users` list; rbac: ClusterRole + RoleBinding `system:openshift:scc:<scc>`. */
    sccBinding: z.enum(['users', 'rbac']).default('users'),
    /** bundle: applied from openshift/scc.yaml; helm: rendered by the operator's chart. */
    sccOwner: z.enum(['bundle', 'helm']).default('bundle'),
    /** The release whose openshift/scc.yaml the installed SCC matches; default: the operator's. */
    sccVersion: versionString(OPERATOR_VERSION, '7.8.6-15').optional(),
    /** Namespaces of other clusters bound to the same SCC. */
    sharedWith: z.array(kubeName()).default([]),
  })
  .prefault({});

/** The Subscription of an OperatorHub install (operators.coreos.com/v1alpha1). */
const olmSchema = z.strictObject({
  /**
   * spec.channel: `production`, a release line such as `7.8.6`, a bundle's own channel
   * (`7.22.2-43.0`), or any other name, which the catalog does not have: OLM then answers
   * ResolutionFailed and offers nothing (src/sim/olm/catalog.ts).
   */
  channel: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]*$/, 'expected a channel such as "production", "stable" or "7.8.6"')
    .default('production'),
  /** spec.installPlanApproval. */
  approval: z.enum(['Manual', 'Automatic']).default('Manual'),
  /**
   * spec.startingCSV: `redis-enterprise-operator.v<operator.version>`, optionally with a rebuild
   * suffix as Red Hat's certified bundles name them (`...v7.4.6-2.0`); with one, every CSV of
   * the simulated catalog carries a suffix (src/sim/olm/catalog.ts).
   */
  startingCSV: z.string().min(1).optional(),
  /**
   * Ours, not SIMULATOR.md's: which newer releases' CSVs list the installed CSV in spec.skips.
   * `catalog` (default): as Red Hat's certified CSVs list it (src/sim/world/olm-bundles.ts);
   * `all`: every newer one, so OLM offers the channel's head; `none`: no edge from the
   * installed CSV (OLM stays AtLatestKnown); a list of operator versions: only those (OLM
   * offers the newest of them in the channel first).
   */
  skips: z
    .union([
      z.enum(['catalog', 'all', 'none']),
      z.array(z.string().regex(/^\d+\.\d+\.\d+-\d+$/, 'expected an operator version such as "7.8.6-19"')),
    ])
    .default('catalog'),
  /**
   * The CSV's Deployment names the operator image by digest only (`repository@sha256:...`), as
   * bundles built for disconnected installs do; undocumented for Redis's certified bundle, so
   * the simulator plays both (default: by tag, as the release bundle's Deployment).
   */
  operatorImageByDigest: z.boolean().default(false),
  /**
   * Who signs the webhook OLM makes from the CSV's webhookdefinitions. `olm` (default): OLM's
   * own CA and serving certificate (Secret `<deployment>-service-cert`, its CA in the caBundle;
   * olm.operatorframework.io "Adding admission and conversion webhooks"); `operator`: the
   * operator's Secret admission-tls, as the simulator had it before.
   */
  webhookCa: z.enum(['olm', 'operator']).default('olm'),
  /**
   * Ours: how OLM's install of a new CSV fails first. `none` (default); `InstallCheckFailed`:
   * the CSV goes Failed ("install timeout", as while a slow Deployment comes up) and OLM moves
   * it back on its next sync, after which it succeeds; `InvalidStrategy`: Failed for good (a bundle
   * whose install strategy cannot be parsed: OLM's re-check on each sync fails it the same way).
   * operator-lifecycle-manager `pkg/controller/operators/olm/operator.go`.
   */
  installFailure: z.enum(['none', 'InstallCheckFailed', 'InvalidStrategy']).default('none'),
});

const KUBE_MINOR = /^1\.\d+$/;
const platformSupportSchema = z.strictObject({
  supported: z
    .array(z.string().regex(/^\d+\.\d+$/, 'expected a minor version such as "1.33" or "4.20"'))
    .default([]),
  deprecated: z
    .array(z.string().regex(/^\d+\.\d+$/, 'expected a minor version such as "1.32" or "4.19"'))
    .default([]),
});

/**
 * `releases:` (SIMULATOR.md third round): a release of the simulated world beyond its built-in
 * list (src/sim/world/world.ts). `openshift` and `variants` are ours.
 */
const releaseSchema = z.strictObject({
  operator: versionString(OPERATOR_VERSION, '8.2.0-25'),
  rs: versionString(VERSION_TAG, '8.2.0-80.25'),
  databaseVersions: z.array(versionString(DATABASE_VERSION, '8.6')).min(1).optional(),
  defaultDatabaseVersion: versionString(DATABASE_VERSION, '8.6').optional(),
  kubernetes: platformSupportSchema.optional(),
  openshift: platformSupportSchema.optional(),
  variants: z.array(z.enum(['minimal'])).optional(),
});

const digestHash = () => z.string().regex(/^sha256:[a-f0-9]{64}$/, 'expected "sha256:" and 64 hex digits');

/** An image spec besides the node image (SIMULATOR.md "Scenario keys for real-world situations"). */
const imageSpecSchema = z.strictObject({
  repository: z.string().min(1).optional(),
  versionTag: z.string().min(1).optional(),
  digestHash: digestHash().optional(),
});

export const scenarioFileSchema = z.strictObject({
  name: kubeName(),
  description: z
    .string()
    .min(1)
    .refine((text) => !text.includes('\n'), 'expected one line'),
  dialect: z.enum(SIM_DIALECTS).default('engine'),
  platform: z.enum(['kubernetes', 'openshift']).default('kubernetes'),
  namespace: kubeName().default('redis'),
  /** Absent: 1.32, or on OpenShift the Kubernetes of `openshiftVersion` (4.N runs 1.(N+13)). */
  kubernetesVersion: z
    .string()
    .regex(KUBE_MINOR, 'expected a Kubernetes minor version such as "1.32"')
    .optional(),
  /**
   * Ours (platform: openshift): served as ClusterVersion `version`'s status.desired.version.
   * `4.16` or `4.16.8`; absent: the OpenShift of kubernetesVersion.
   */
  openshiftVersion: z
    .string()
    .regex(/^4\.\d+(\.\d+)?$/, 'expected an OpenShift version such as "4.16" or "4.16.8"')
    .optional(),
  releases: z.array(releaseSchema).default([]),
  timing: z
    .strictObject({
      operatorStart: z.number().min(0).default(1),
      podRestart: z.number().min(0).default(2),
      databaseUpgrade: z.number().min(0).default(1),
      /**
       * Seconds a replicated database is unavailable when the node of one of its master shards
       * stops, before the replica is promoted (the docs give no figure).
       */
      failover: z.number().min(0).default(1),
    })
    .prefault({}),
  operator: z.strictObject({
    version: versionString(OPERATOR_VERSION, '7.4.6-2'),
    installedBy: z.enum(['bundle', 'helm', 'olm']).default('bundle'),
    /** installedBy: olm (OperatorHub): the Subscription (SIMULATOR.md, docs/simulator-internals.md "OperatorHub"). */
    olm: olmSchema.optional(),
    /** installedBy: helm: the release name (default `redis-enterprise`); ignored otherwise. */
    helmRelease: kubeName().max(53).optional(),
    watchNamespaces: z.array(kubeName()).default([]),
    /** The values the user gave at install: what `helm get values` shows (installedBy: helm). */
    helmValues: z.record(z.string(), z.unknown()).optional(),
    /** What the `redb-role` RoleBindings in watched namespaces point at. */
    roleRefKind: z.enum(['Role', 'ClusterRole']).default('Role'),
  }),
  admission: z
    .strictObject({
      enabled: z.boolean().default(true),
      webhookName: z.string().max(253).regex(DNS_SUBDOMAIN, 'expected a Kubernetes object name').optional(),
    })
    .prefault({}),
  cluster: z
    .strictObject({
      name: kubeName().default('rec'),
      nodes: z.number().int().min(1).default(3),
      /** Absent: the RS image the operator release ships (world/releases.ts defaultClusterTag). */
      versionTag: versionString(VERSION_TAG, '7.4.6-22').optional(),
      repository: z.string().min(1).default('redislabs/redis'),
      autoUpgrade: z.boolean().default(false),
      upgradePolicy: UPGRADE_POLICY.nullable().default(null),
      digestHash: digestHash().nullable().default(null),
      /** Image specs besides the node image; each may pin a digest. */
      imageSpecs: z
        .strictObject({
          rigger: imageSpecSchema.optional(),
          bootstrapper: imageSpecSchema.optional(),
          callHomeClient: imageSpecSchema.optional(),
        })
        .default({}),
      /** Where the licence is: a Secret (spec.licenseSecretName) or inline (spec.license). */
      licenseIn: z.enum(['secret', 'spec']).default('secret'),
      /** OnDelete: the operator deletes pods itself and status.currentRevision is not promoted. */
      statefulSetStrategy: z.enum(['RollingUpdate', 'OnDelete']).default('RollingUpdate'),
      /** false: with auto-upgrade the operator rolls to its default image without writing versionTag. */
      autoUpgradeWritesSpec: z.boolean().default(true),
      license: z.enum(['Valid', 'Invalid', 'Expired']).default('Valid'),
      /** spec.securityContext.resourceLimits.allowAutoAdjustment (keeps the SCC on OpenShift). */
      allowAutoAdjustment: z.boolean().default(false),
      apiVersion: versionString(SERVER_VERSION, '7.4.6-22').optional(),
      users: z
        .array(userSchema)
        .min(1)
        .default([{ ...DEFAULT_ADMIN, passwordExpired: false }]),
      roles: z.array(roleSchema).default([]),
    })
    .superRefine((cluster, context) => {
      // Role names are unique on a cluster, the built-in roles' included: POST /v1/roles answers
      // `name_already_exists` ("An object of the same type and name exists", redis/docs
      // content/operate/rs/references/rest-api/requests/roles/_index.md, "Create role" error
      // codes). So an entry named like a built-in role (Admin, DB Viewer, ...) or like an earlier
      // entry could not exist on a real cluster; taken silently, its management role and its
      // databases would be lost. Names are compared as written: the docs do not say that the
      // check ignores case, so `db_viewer` or `admin` are names of their own.
      cluster.roles.forEach((role, index) => {
        const builtIn = BUILT_IN_ROLE_NAMES.includes(role.name);
        const earlier = cluster.roles.findIndex((other) => other.name === role.name);
        if (!builtIn && earlier === index) return;
        context.addIssue({
          code: 'custom',
          path: ['roles', index, 'name'],
          message: builtIn
            ? `"${role.name}" is the name of a built-in role, and role names are unique on a cluster: give this role a name of its own, or drop the entry and name the built-in role in users[].roles`
            : `a second role named "${role.name}" (the first is cluster.roles[${earlier}]), and role names are unique on a cluster: give it a name of its own, or merge the two entries`,
        });
      });
      const known = new Set([...BUILT_IN_ROLE_NAMES, ...cluster.roles.map((role) => role.name)]);
      cluster.users.forEach((user, index) => {
        for (const name of user.roles ?? []) {
          if (!known.has(name))
            context.addIssue({
              code: 'custom',
              path: ['users', index, 'roles'],
              message: `no role named "${name}": name a built-in role (${BUILT_IN_ROLE_NAMES.join(', ')}) or one of cluster.roles`,
            });
        }
      });
    })
    .prefault({}),
  openshift: openshiftSchema,
  modules: z.array(moduleSchema).default([]),
  databases: z.array(databaseSchema).default([]),
  remoteClusters: z.array(remoteClusterSchema).default([]),
  faults: z.array(faultSchema).default([]),
  api: z
    .strictObject({
      /**
       * The cluster setting allow_modules_upload (RS 8.2 and later, RS 8.2's default: off):
       * disabled: POST /v2/modules answers 403 modules_upload_disabled. On an older RS, which has
       * no such setting, disabled is a scenario error (expand.ts checkModulesUpload).
       */
      modulesUpload: z.enum(['enabled', 'disabled']).default('enabled'),
      /** What a pre-7.8.2 API answers to an authorize with only the Basic header. */
      headerFormAnswer: z.union([z.literal(400), z.literal(401)]).default(400),
      /**
       * GET /v1/cluster's documented `created_time`: `present` (a moment in the day before the
       * simulator started; each simulator is another cluster) or `absent`, for an API that leaves
       * it out (ctl then tells clusters apart by the REC uid and the cluster name alone).
       */
      clusterCreatedTime: z.enum(['present', 'absent']).default('present'),
    })
    .prefault({}),
  /** Extra Kubernetes objects, seeded as they are (any kind the emulator serves). */
  objects: z.array(z.record(z.string(), z.unknown())).default([]),
  generate: generateSchema.optional(),
});

export type ScenarioFile = z.output<typeof scenarioFileSchema>;
export type ScenarioUser = Omit<z.output<typeof userSchema>, 'password'> & { password: string };
export type ScenarioModule = z.output<typeof moduleSchema>;
export type ScenarioFault = z.output<typeof faultSchema>;
export type ScenarioRemoteCluster = z.output<typeof remoteClusterSchema>;
export type ScenarioTiming = ScenarioFile['timing'];

export interface ScenarioDatabase extends Omit<
  z.output<typeof databaseSchema>,
  'namespace' | 'uid' | 'modules'
> {
  namespace: string;
  /** The bdb uid in the management API; assigned 1, 2, … in file order when not given. */
  uid: number;
  /** Modules in use, each with the installed version it resolves to. */
  modules: { name: string; version: string }[];
}

/** A loaded scenario: validated, generators expanded, every default filled in. */
export interface Scenario extends Omit<
  ScenarioFile,
  | 'generate'
  | 'operator'
  | 'admission'
  | 'cluster'
  | 'databases'
  | 'kubernetesVersion'
  | 'openshiftVersion'
  | 'timing'
> {
  /** `failover` may be left out by code that builds a timing (tests): then the default, 1 s. */
  timing: Omit<ScenarioTiming, 'failover'> & { failover?: number };
  kubernetesVersion: string;
  /** platform: openshift: the full OpenShift version (`4.16.0`); null on Kubernetes. */
  openshiftVersion: string | null;
  operator: Omit<ScenarioFile['operator'], 'helmRelease' | 'olm'> & {
    helmRelease: string | null;
    /** installedBy: olm: the Subscription, every default filled in; otherwise null. */
    olm: {
      channel: string;
      approval: 'Manual' | 'Automatic';
      startingCSV: string;
      operatorImageByDigest: boolean;
      skips: 'catalog' | 'all' | 'none' | string[];
      webhookCa: 'olm' | 'operator';
      installFailure: 'none' | 'InstallCheckFailed' | 'InvalidStrategy';
    } | null;
  };
  admission: { enabled: boolean; webhookName: string };
  cluster: Omit<ScenarioFile['cluster'], 'apiVersion' | 'users' | 'versionTag'> & {
    versionTag: string;
    apiVersion: string;
    users: ScenarioUser[];
  };
  databases: ScenarioDatabase[];
}
