// Server-side printing: the `meta.k8s.io/v1` Table that `kubectl get` asks for. kubectl prints the
// cells as given (upper-casing the column names), so every column the user sees is computed here,
// the way kube-apiserver's printers (pkg/printers/internalversion) and the CRD table convertor
// (apiextensions-apiserver tableconvertor) compute them.
import { JSONPath } from 'jsonpath-plus';

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name?: string;
    namespace?: string;
    creationTimestamp?: string;
    [k: string]: unknown;
  };
  [k: string]: unknown;
}

/** A CRD version's `additionalPrinterColumns` entry. */
export interface TableColumnSpec {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  priority?: number;
  format?: string;
}

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface Table {
  kind: 'Table';
  apiVersion: 'meta.k8s.io/v1';
  metadata: { resourceVersion?: string };
  columnDefinitions: TableColumnDefinition[];
  rows: { cells: unknown[]; object: unknown }[];
}

// ---------------------------------------------------------------------------------------------
// Durations, as k8s.io/apimachinery/pkg/util/duration prints them
// ---------------------------------------------------------------------------------------------

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** `duration.HumanDuration`: ~2-3 significant figures ("45s", "5m3s", "3h12m", "2d3h", "3y12d"). */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / SECOND);
  // Up to 2 s in the future counts as "now": clocks of client and server drift.
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24) % 365;
    const years = Math.trunc(hours / 24 / 365);
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** `duration.ShortHumanDuration`: one unit only ("45s", "5m", "3h", "2d", "3y"). */
export function shortHumanDuration(ms: number): string {
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 24) return `${hours}h`;
  if (hours < 24 * 365) return `${Math.trunc(hours / 24)}d`;
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** `translateTimestampSince`: the AGE cell of every built-in printer. */
function ageSince(timestamp: unknown, now: Date): string {
  if (typeof timestamp !== 'string' || timestamp === '') return '<unknown>';
  const time = Date.parse(timestamp);
  if (Number.isNaN(time)) return '<unknown>';
  return humanDuration(now.getTime() - time);
}

// ---------------------------------------------------------------------------------------------
// Table assembly
// ---------------------------------------------------------------------------------------------

const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources ' +
  'may allow a client to request the generation of an appropriate name automatically. Name is primarily ' +
  'intended for creation idempotence and configuration definition. Cannot be updated. More info: ' +
  'https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const AGE_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. ' +
  'It is represented in RFC3339 form and is in UTC.';

function column(
  name: string,
  type = 'string',
  extra: Partial<TableColumnDefinition> = {},
): TableColumnDefinition {
  return { name, type, format: '', description: '', priority: 0, ...extra };
}

const nameColumn = () => column('Name', 'string', { format: 'name', description: NAME_DESCRIPTION });
const ageColumn = () => column('Age', 'string', { description: AGE_DESCRIPTION });
const createdAtColumn = () => column('Created At', 'date', { description: AGE_DESCRIPTION });
const wide = (name: string, description = '') => column(name, 'string', { priority: 1, description });

interface Printer {
  columns: TableColumnDefinition[];
  cells: (object: KubeObject, now: Date) => unknown[];
}

/**
 * The Table for a list of objects of one kind. `columns` are the CRD version's
 * additionalPrinterColumns for a custom resource (an empty list gets the API server's default
 * Age column); `undefined` selects the built-in printer of `kind`, with the columns a server of
 * Kubernetes 1.<serverMinor> prints (absent: the newest columns).
 */
export function buildTable(
  objects: KubeObject[],
  columns: TableColumnSpec[] | undefined,
  kind: string,
  now: Date = new Date(),
  serverMinor: number = Number.POSITIVE_INFINITY,
): Table {
  const printer = columns === undefined ? builtInPrinter(kind, serverMinor) : customResourcePrinter(columns);
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: {},
    columnDefinitions: printer.columns,
    rows: objects.map((object) => ({
      cells: printer.cells(object, now),
      object: {
        kind: 'PartialObjectMetadata',
        apiVersion: 'meta.k8s.io/v1',
        metadata: object.metadata,
      },
    })),
  };
}

// ---------------------------------------------------------------------------------------------
// Custom resources: additionalPrinterColumns
// ---------------------------------------------------------------------------------------------

/** What the API server serves for a CRD version without additionalPrinterColumns. */
const DEFAULT_CRD_COLUMNS: TableColumnSpec[] = [
  {
    name: 'Age',
    type: 'date',
    jsonPath: '.metadata.creationTimestamp',
    description: AGE_DESCRIPTION,
  },
];

function customResourcePrinter(specs: TableColumnSpec[]): Printer {
  const effective = specs.length > 0 ? specs : DEFAULT_CRD_COLUMNS;
  return {
    columns: [
      nameColumn(),
      ...effective.map((spec) =>
        column(spec.name, spec.type, {
          format: spec.format ?? '',
          priority: spec.priority ?? 0,
          description:
            spec.description ?? `Custom resource definition column (in JSONPath format): ${spec.jsonPath}`,
        }),
      ),
    ],
    cells: (object, now) => [
      object.metadata.name ?? '',
      ...effective.map((spec) => customColumnCell(spec, object, now)),
    ],
  };
}

/**
 * One additionalPrinterColumn cell. Like the API server, only the FIRST match of the path counts
 * (`.status.internalEndpoints[*].port` shows the first port), a missing value is a null cell, and
 * a value of the wrong type for the column is null too.
 */
function customColumnCell(spec: TableColumnSpec, object: KubeObject, now: Date): unknown {
  const matches = evaluateJsonPath(object, spec.jsonPath);
  if (matches.length === 0) return null;
  const value = matches[0];
  if (value === null || value === undefined) return null;
  switch (spec.type) {
    case 'string':
      return printValue(value);
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date': {
      if (typeof value !== 'string') return null;
      const time = Date.parse(value);
      return Number.isNaN(time) ? '<invalid>' : humanDuration(now.getTime() - time);
    }
    default:
      return null;
  }
}

/**
 * Evaluates a Kubernetes JSONPath (`.status.state`, `.items[*].port`, `{.a.b}`, filters) and
 * returns every match.
 */
export function evaluateJsonPath(object: unknown, kubePath: string): unknown[] {
  let path = kubePath.trim();
  if (path.startsWith('{') && path.endsWith('}')) path = path.slice(1, -1);
  if (!path.startsWith('$')) path = `$${path.startsWith('.') || path.startsWith('[') ? '' : '.'}${path}`;
  try {
    return JSONPath({ path, json: object as object, wrap: true }) as unknown[];
  } catch {
    return [];
  }
}

/** client-go jsonpath's PrintResults: scalars as text, maps and lists as compact JSON. */
function printValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return JSON.stringify(sortKeys(value));
  return String(value);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => [k, sortKeys(v)]),
  );
}

// ---------------------------------------------------------------------------------------------
// Built-in kinds
// ---------------------------------------------------------------------------------------------

type Json = Record<string, unknown>;

function obj(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function int(value: unknown, fallback = 0): number {
  return typeof value === 'number' ? Math.trunc(value) : fallback;
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function orNone(value: string): string {
  return value === '' ? '<none>' : value;
}

const spec = (o: KubeObject) => obj(o.spec);
const status = (o: KubeObject) => obj(o.status);
const podTemplateContainers = (o: KubeObject) => list(obj(obj(spec(o).template).spec).containers).map(obj);

/** `layoutContainerCells`: container names and images, comma-joined. */
function containerCells(containers: Json[]): [string, string] {
  return [containers.map((c) => str(c.name)).join(','), containers.map((c) => str(c.image)).join(',')];
}

/** `metav1.LabelSelectorAsSelector(...).String()`: requirements sorted by key. */
function selectorString(selector: unknown): string {
  const s = obj(selector);
  const requirements: [string, string][] = [];
  for (const [key, value] of Object.entries(obj(s.matchLabels)))
    requirements.push([key, `${key}=${str(value)}`]);
  for (const expression of list(s.matchExpressions).map(obj)) {
    const key = str(expression.key);
    const values = list(expression.values).map(str).sort().join(',');
    const operator = str(expression.operator);
    if (operator === 'In') requirements.push([key, `${key} in (${values})`]);
    else if (operator === 'NotIn') requirements.push([key, `${key} notin (${values})`]);
    else if (operator === 'Exists') requirements.push([key, key]);
    else if (operator === 'DoesNotExist') requirements.push([key, `!${key}`]);
  }
  return requirements
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, text]) => text)
    .join(',');
}

function labelMapString(labels: unknown): string {
  return Object.entries(obj(labels))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => `${key}=${str(value)}`)
    .join(',');
}

const age = (o: KubeObject, now: Date) => ageSince(o.metadata.creationTimestamp, now);
const createdAt = (o: KubeObject) => {
  const time = Date.parse(str(o.metadata.creationTimestamp));
  return Number.isNaN(time) ? null : new Date(time).toISOString().replace(/\.\d{3}Z$/, 'Z');
};

const genericPrinter: Printer = {
  columns: [nameColumn(), ageColumn()],
  cells: (o, now) => [o.metadata.name ?? '', age(o, now)],
};

/** Roles, cluster roles and CRDs print RFC 3339 creation times instead of ages. */
const createdAtPrinter: Printer = {
  columns: [nameColumn(), createdAtColumn()],
  cells: (o) => [o.metadata.name ?? '', createdAt(o)],
};

const deploymentPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Ready', 'string', {
      description: 'Number of the pod with ready state',
    }),
    column('Up-to-date', 'string', {
      description:
        'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
    }),
    column('Available', 'string', {
      description:
        'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
    }),
    ageColumn(),
    wide('Containers', 'Names of each container in the template.'),
    wide('Images', 'Images referenced by each container in the template.'),
    wide(
      'Selector',
      'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.',
    ),
  ],
  cells: (o, now) => {
    const [containers, images] = containerCells(podTemplateContainers(o));
    return [
      o.metadata.name ?? '',
      `${int(status(o).readyReplicas)}/${int(spec(o).replicas, 1)}`,
      int(status(o).updatedReplicas),
      int(status(o).availableReplicas),
      age(o, now),
      containers,
      images,
      selectorString(spec(o).selector),
    ];
  },
};

const statefulSetPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Ready', 'string', {
      description: 'Number of the pod with ready state',
    }),
    ageColumn(),
    wide('Containers', 'Names of each container in the template.'),
    wide('Images', 'Images referenced by each container in the template.'),
  ],
  cells: (o, now) => {
    const [containers, images] = containerCells(podTemplateContainers(o));
    return [
      o.metadata.name ?? '',
      `${int(status(o).readyReplicas)}/${int(spec(o).replicas, 1)}`,
      age(o, now),
      containers,
      images,
    ];
  },
};

const replicaSetPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Desired', 'integer', {
      description: 'Replicas is the number of desired pods.',
    }),
    column('Current', 'integer', {
      description: 'Replicas is the most recently observed number of replicas.',
    }),
    column('Ready', 'integer', {
      description: 'The number of pods targeted by this ReplicaSet with a Ready Condition.',
    }),
    ageColumn(),
    wide('Containers', 'Names of each container in the template.'),
    wide('Images', 'Images referenced by each container in the template.'),
    wide('Selector', 'Selector is a label query over pods that should match the replica count.'),
  ],
  cells: (o, now) => {
    const [containers, images] = containerCells(podTemplateContainers(o));
    return [
      o.metadata.name ?? '',
      int(spec(o).replicas, 1),
      int(status(o).replicas),
      int(status(o).readyReplicas),
      age(o, now),
      containers,
      images,
      selectorString(spec(o).selector),
    ];
  },
};

const podPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Ready', 'string', {
      description: 'The aggregate readiness state of this pod for accepting traffic.',
    }),
    column('Status', 'string', {
      description: 'The aggregate status of the containers in this pod.',
    }),
    column('Restarts', 'string', {
      description:
        'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    }),
    ageColumn(),
    wide(
      'IP',
      'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.',
    ),
    wide('Node', 'NodeName indicates in which node this pod is scheduled.'),
    wide('Nominated Node', 'nominatedNodeName is set only when this pod preempts other pods on the node.'),
    wide('Readiness Gates', 'If specified, all readiness gates will be evaluated for pod readiness.'),
  ],
  cells: (o, now) => podCells(o, now),
};

/** A simplified `printPod`: readiness, the aggregate status reason, restarts. */
function podCells(pod: KubeObject, now: Date): unknown[] {
  const podSpec = spec(pod);
  const podStatus = status(pod);
  const containerStatuses = list(podStatus.containerStatuses).map(obj);
  const totalContainers = list(podSpec.containers).length;
  let reason = str(podStatus.reason) || str(podStatus.phase);
  let restarts = 0;
  let lastRestart = 0;
  let readyContainers = 0;

  const noteRestarts = (containerStatus: Json) => {
    restarts += int(containerStatus.restartCount);
    const finishedAt = Date.parse(str(obj(obj(containerStatus.lastState).terminated).finishedAt));
    if (!Number.isNaN(finishedAt) && finishedAt > lastRestart) lastRestart = finishedAt;
  };

  let initializing = false;
  const initStatuses = list(podStatus.initContainerStatuses).map(obj);
  for (const [index, initStatus] of initStatuses.entries()) {
    noteRestarts(initStatus);
    const state = obj(initStatus.state);
    const terminated = obj(state.terminated);
    const waiting = obj(state.waiting);
    if (state.terminated !== undefined && int(terminated.exitCode) === 0) continue;
    if (state.terminated !== undefined) {
      reason = `Init:${str(terminated.reason) || (terminated.signal ? `Signal:${int(terminated.signal)}` : `ExitCode:${int(terminated.exitCode)}`)}`;
    } else if (str(waiting.reason) !== '' && str(waiting.reason) !== 'PodInitializing') {
      reason = `Init:${str(waiting.reason)}`;
    } else {
      reason = `Init:${index}/${list(podSpec.initContainers).length}`;
    }
    initializing = true;
    break;
  }

  if (!initializing) {
    let hasRunning = false;
    for (const containerStatus of [...containerStatuses].reverse()) {
      noteRestarts(containerStatus);
      const state = obj(containerStatus.state);
      const waiting = obj(state.waiting);
      const terminated = obj(state.terminated);
      if (str(waiting.reason) !== '') {
        reason = str(waiting.reason);
      } else if (str(terminated.reason) !== '') {
        reason = str(terminated.reason);
      } else if (state.terminated !== undefined) {
        reason = terminated.signal
          ? `Signal:${int(terminated.signal)}`
          : `ExitCode:${int(terminated.exitCode)}`;
      } else if (containerStatus.ready === true && state.running !== undefined) {
        hasRunning = true;
        readyContainers++;
      }
    }
    if (reason === 'Completed' && hasRunning) {
      const ready = list(podStatus.conditions)
        .map(obj)
        .find((condition) => condition.type === 'Ready');
      reason = ready?.status === 'True' ? 'Running' : 'NotReady';
    }
  }

  if (pod.metadata.deletionTimestamp !== undefined) {
    reason = str(podStatus.reason) === 'NodeLost' ? 'Unknown' : 'Terminating';
  }

  const restartsCell =
    lastRestart > 0 ? `${restarts} (${humanDuration(now.getTime() - lastRestart)} ago)` : `${restarts}`;
  const gates = list(podSpec.readinessGates).map(obj);
  const conditions = list(podStatus.conditions).map(obj);
  const gatesCell =
    gates.length === 0
      ? '<none>'
      : `${gates.filter((gate) => conditions.some((c) => c.type === gate.conditionType && c.status === 'True')).length}/${gates.length}`;
  return [
    pod.metadata.name ?? '',
    `${readyContainers}/${totalContainers}`,
    reason,
    restartsCell,
    age(pod, now),
    orNone(str(podStatus.podIP)),
    orNone(str(podSpec.nodeName)),
    orNone(str(podStatus.nominatedNodeName)),
    gatesCell,
  ];
}

const secretPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Type', 'string', {
      description: 'Used to facilitate programmatic handling of secret data.',
    }),
    column('Data', 'string', { description: 'Data contains the secret data.' }),
    ageColumn(),
  ],
  cells: (o, now) => [o.metadata.name ?? '', str(o.type), Object.keys(obj(o.data)).length, age(o, now)],
};

const configMapPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Data', 'string', {
      description: 'Data contains the configuration data.',
    }),
    ageColumn(),
  ],
  cells: (o, now) => [
    o.metadata.name ?? '',
    Object.keys(obj(o.data)).length + Object.keys(obj(o.binaryData)).length,
    age(o, now),
  ],
};

const namespacePrinter: Printer = {
  columns: [
    nameColumn(),
    column('Status', 'string', { description: 'The status of the namespace' }),
    ageColumn(),
  ],
  cells: (o, now) => [o.metadata.name ?? '', str(status(o).phase), age(o, now)],
};

const eventPrinter: Printer = {
  columns: [
    column('Last Seen', 'string', {
      description: 'The time at which the most recent occurrence of this event was recorded.',
    }),
    column('Type', 'string', {
      description: 'Type of this event (Normal, Warning), new types could be added in the future',
    }),
    column('Reason', 'string', {
      description:
        "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
    }),
    column('Object', 'string', {
      description: 'The object that this event is about.',
    }),
    wide(
      'Subobject',
      'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.',
    ),
    wide('Source', 'The component reporting this event. Should be a short machine understandable string.'),
    column('Message', 'string', {
      description: 'A human-readable description of the status of this operation.',
    }),
    wide(
      'First Seen',
      'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)',
    ),
    wide('Count', 'The number of times this event has occurred.'),
    column('Name', 'string', {
      priority: 1,
      format: 'name',
      description: NAME_DESCRIPTION,
    }),
  ],
  cells: (o, now) => {
    const involved = obj(o.involvedObject);
    const series = obj(o.series);
    const firstSeen =
      str(o.firstTimestamp) !== '' ? ageSince(o.firstTimestamp, now) : ageSince(o.eventTime, now);
    let lastSeen = str(o.lastTimestamp) !== '' ? ageSince(o.lastTimestamp, now) : firstSeen;
    let count = int(o.count);
    if (o.series !== undefined) {
      lastSeen = ageSince(series.lastObservedTime, now);
      count = int(series.count);
    } else if (count === 0) {
      count = 1; // singleton events of the events.k8s.io API carry no count
    }
    const involvedKind = str(involved.kind).toLowerCase();
    const target = str(involved.name) !== '' ? `${involvedKind}/${str(involved.name)}` : involvedKind;
    const source = obj(o.source);
    const component = str(source.component) || str(o.reportingComponent);
    const host = str(source.host) || str(o.reportingInstance);
    return [
      lastSeen,
      str(o.type),
      str(o.reason),
      target,
      str(involved.fieldPath),
      host !== '' ? `${component}, ${host}` : component,
      str(o.message).trim(),
      firstSeen,
      count,
      o.metadata.name ?? '',
    ];
  },
};

const servicePrinter: Printer = {
  columns: [
    nameColumn(),
    column('Type', 'string', {
      description: 'type determines how the Service is exposed.',
    }),
    column('Cluster-IP', 'string', {
      description: 'clusterIP is the IP address of the service.',
    }),
    column('External-IP', 'string', {
      description:
        'List of IP addresses for which nodes in the cluster will also accept traffic for this service.',
    }),
    column('Port(s)', 'string', {
      description: 'The list of ports that are exposed by this service.',
    }),
    ageColumn(),
    wide('Selector', 'Route service traffic to pods with label keys and values matching this selector.'),
  ],
  cells: (o, now) => {
    const s = spec(o);
    const type = str(s.type) || 'ClusterIP';
    const ports = list(s.ports)
      .map(obj)
      .map((p) => {
        const protocol = str(p.protocol) || 'TCP';
        return p.nodePort ? `${int(p.port)}:${int(p.nodePort)}/${protocol}` : `${int(p.port)}/${protocol}`;
      })
      .join(',');
    const externalIPs = list(s.externalIPs).map(str);
    const ingress = list(obj(status(o).loadBalancer).ingress)
      .map(obj)
      .map((i) => str(i.ip) || str(i.hostname));
    let external = '<none>';
    if (type === 'ExternalName') external = str(s.externalName) || '<none>';
    else if (type === 'LoadBalancer') external = [...ingress, ...externalIPs].join(',') || '<pending>';
    else if (externalIPs.length > 0) external = externalIPs.join(',');
    return [
      o.metadata.name ?? '',
      type,
      orNone(str(s.clusterIP)),
      external,
      orNone(ports),
      age(o, now),
      orNone(labelMapString(s.selector)),
    ];
  },
};

const serviceAccountPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Secrets', 'string', {
      description:
        'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.',
    }),
    ageColumn(),
  ],
  cells: (o, now) => [o.metadata.name ?? '', list(o.secrets).length, age(o, now)],
};

function subjectsOfKind(o: KubeObject, kind: string): string {
  return list(o.subjects)
    .map(obj)
    .filter((subject) => subject.kind === kind)
    .map((subject) =>
      kind === 'ServiceAccount' ? `${str(subject.namespace)}/${str(subject.name)}` : str(subject.name),
    )
    .join(', ');
}

const roleBindingPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Role', 'string', {
      description:
        'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace.',
    }),
    ageColumn(),
    wide('Users', 'Users in the roleBinding'),
    wide('Groups', 'Groups in the roleBinding'),
    wide('ServiceAccounts', 'ServiceAccounts in the roleBinding'),
  ],
  cells: (o, now) => {
    const roleRef = obj(o.roleRef);
    return [
      o.metadata.name ?? '',
      `${str(roleRef.kind)}/${str(roleRef.name)}`,
      age(o, now),
      subjectsOfKind(o, 'User'),
      subjectsOfKind(o, 'Group'),
      subjectsOfKind(o, 'ServiceAccount'),
    ];
  },
};

const webhookConfigurationPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Webhooks', 'integer', {
      description: 'Webhooks indicates the number of webhooks included in the configuration.',
    }),
    ageColumn(),
  ],
  cells: (o, now) => [o.metadata.name ?? '', list(o.webhooks).length, age(o, now)],
};

// Jobs, Leases, PodDisruptionBudgets and PersistentVolumeClaims as kube-apiserver prints them:
// pkg/printers/internalversion/printers.go (jobColumnDefinitions, printJob; leaseColumnDefinitions,
// printLease; podDisruptionBudgetColumnDefinitions, printPodDisruptionBudget;
// persistentVolumeClaimColumnDefinitions, printPersistentVolumeClaim), read at
// github.com/yongruilin/kubernetes (a kubernetes/kubernetes fork) commit
// 144a7980762c245f12c2a7b457c8aaef18496071, and pkg/apis/core/helper (GetAccessModesAsString,
// GetPersistentVolumeClaimClass). Where the columns changed between the minors the simulator
// serves, the table follows the minor its /version reports (kubectl prints the columns it gets):
// - Job: the Status column came with kubernetes/kubernetes#123226 ("`kubectl get job` now displays
//   the status for the listed jobs"), in the v1.30 release notes (Changes by Kind, Feature);
//   before it a Job printed NAME COMPLETIONS DURATION AGE. (v1.34 adds a SuccessCriteriaMet
//   status, #132832 in CHANGELOG-1.34.md; where it falls in printJob's order is not read here,
//   so it is not served.)
// - PersistentVolumeClaim: the VolumeAttributesClass column came with the VolumeAttributesClass
//   API (KEP-3751, kubernetes/kubernetes#121104, merged for v1.29, alpha there); 1.28 prints
//   NAME STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS AGE.

/** The first minor whose Job table has the Status column. */
export const JOB_STATUS_SINCE_MINOR = 30;
/** The first minor whose PersistentVolumeClaim table has the VolumeAttributesClass column. */
export const PVC_VOLUME_ATTRIBUTES_CLASS_SINCE_MINOR = 29;

/** `hasJobCondition`: the first condition of that type decides, and only a "True" one counts. */
function hasJobCondition(job: KubeObject, type: string): boolean {
  const condition = list(status(job).conditions)
    .map(obj)
    .find((c) => c.type === type);
  return condition?.status === 'True';
}

function jobStatusCell(job: KubeObject): string {
  if (hasJobCondition(job, 'Complete')) return 'Complete';
  if (hasJobCondition(job, 'Failed')) return 'Failed';
  if (job.metadata.deletionTimestamp !== undefined) return 'Terminating';
  if (hasJobCondition(job, 'Suspended')) return 'Suspended';
  if (hasJobCondition(job, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

/** "succeeded/completions"; without completions "n/1", or "n/1 of p" for a parallel work queue. */
function jobCompletionsCell(job: KubeObject): string {
  const succeeded = int(status(job).succeeded);
  const completions = spec(job).completions;
  if (typeof completions === 'number') return `${succeeded}/${Math.trunc(completions)}`;
  const parallelism = int(spec(job).parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

/** Empty before the Job started; the time so far while it runs; start to completion after. */
function jobDurationCell(job: KubeObject, now: Date): string {
  const started = Date.parse(str(status(job).startTime));
  if (Number.isNaN(started)) return '';
  const completed = Date.parse(str(status(job).completionTime));
  return humanDuration((Number.isNaN(completed) ? now.getTime() : completed) - started);
}

const jobWideColumns = () => [
  wide('Containers', 'Names of each container in the template.'),
  wide('Images', 'Images referenced by each container in the template.'),
  wide('Selector', 'A label query over pods that should match the pod count.'),
];

/** printJob: Status (1.30 on), Completions, Duration, Age; the template's containers when wide. */
function jobPrinter(withStatus: boolean): Printer {
  return {
    columns: [
      nameColumn(),
      ...(withStatus ? [column('Status', 'string', { description: 'Status of the job.' })] : []),
      column('Completions', 'string', {
        description: 'The number of pods which reached phase Succeeded.',
      }),
      column('Duration', 'string', { description: 'Time required to complete the job.' }),
      ageColumn(),
      ...jobWideColumns(),
    ],
    cells: (o, now) => {
      const [containers, images] = containerCells(podTemplateContainers(o));
      return [
        o.metadata.name ?? '',
        ...(withStatus ? [jobStatusCell(o)] : []),
        jobCompletionsCell(o),
        jobDurationCell(o, now),
        age(o, now),
        containers,
        images,
        selectorString(spec(o).selector),
      ];
    },
  };
}

const jobPrinterWithStatus = jobPrinter(true);
const jobPrinterBeforeStatus = jobPrinter(false);

/** `intstr.IntOrString.String()`: a number as its digits, a percentage as written. */
function intOrString(value: unknown): string {
  return typeof value === 'number' ? String(Math.trunc(value)) : str(value);
}

const podDisruptionBudgetPrinter: Printer = {
  columns: [
    nameColumn(),
    column('Min Available', 'string', {
      description: 'The minimum number of pods that must be available.',
    }),
    column('Max Unavailable', 'string', {
      description: 'The maximum number of pods that may be unavailable.',
    }),
    column('Allowed Disruptions', 'integer', {
      description: 'Calculated number of pods that may be disrupted at this time.',
    }),
    ageColumn(),
  ],
  // An absent bound prints N/A; a PDB gives one of the two.
  cells: (o, now) => [
    o.metadata.name ?? '',
    spec(o).minAvailable === undefined || spec(o).minAvailable === null
      ? 'N/A'
      : intOrString(spec(o).minAvailable),
    spec(o).maxUnavailable === undefined || spec(o).maxUnavailable === null
      ? 'N/A'
      : intOrString(spec(o).maxUnavailable),
    int(status(o).disruptionsAllowed),
    age(o, now),
  ],
};

/** `helper.GetAccessModesAsString`: each mode once, always in the order RWO, ROX, RWX, RWOP. */
function accessModesString(modes: unknown): string {
  const given = new Set(list(modes).map(str));
  return (
    [
      ['ReadWriteOnce', 'RWO'],
      ['ReadOnlyMany', 'ROX'],
      ['ReadWriteMany', 'RWX'],
      ['ReadWriteOncePod', 'RWOP'],
    ] as const
  )
    .filter(([mode]) => given.has(mode))
    .map(([, short]) => short)
    .join(',');
}

/** `helper.GetPersistentVolumeClaimClass`: the beta annotation first, then spec.storageClassName. */
function claimClass(claim: KubeObject): string {
  const annotations = obj(claim.metadata.annotations);
  const beta = 'volume.beta.kubernetes.io/storage-class';
  if (beta in annotations) return str(annotations[beta]);
  return str(spec(claim).storageClassName);
}

/**
 * printPersistentVolumeClaim. Capacity and access modes are the bound volume's (status), shown
 * only once spec.volumeName is set; the capacity is the stored quantity as written (the API server
 * would print its canonical form, which for a quantity it stored itself is the same text).
 */
function persistentVolumeClaimPrinter(withAttributesClass: boolean): Printer {
  return {
    columns: [
      nameColumn(),
      column('Status', 'string', {
        description: 'phase represents the current phase of PersistentVolumeClaim.',
      }),
      column('Volume', 'string', {
        description: 'volumeName is the binding reference to the PersistentVolume backing this claim.',
      }),
      column('Capacity', 'string', {
        description: 'capacity represents the actual resources of the underlying volume.',
      }),
      column('Access Modes', 'string', {
        description: 'accessModes contains the actual access modes the volume backing the PVC has.',
      }),
      column('StorageClass', 'string', { description: 'StorageClass of the pvc' }),
      ...(withAttributesClass
        ? [column('VolumeAttributesClass', 'string', { description: 'VolumeAttributesClass of the pvc' })]
        : []),
      ageColumn(),
      wide('VolumeMode', 'volumeMode defines what type of volume is required by the claim.'),
    ],
    cells: (o, now) => {
      const claimSpec = spec(o);
      const claimStatus = status(o);
      const phase = o.metadata.deletionTimestamp !== undefined ? 'Terminating' : str(claimStatus.phase);
      const volume = str(claimSpec.volumeName);
      const bound = volume !== '';
      const attributesClass =
        typeof claimSpec.volumeAttributesClassName === 'string'
          ? claimSpec.volumeAttributesClassName
          : '<unset>';
      return [
        o.metadata.name ?? '',
        phase,
        volume,
        bound ? str(obj(claimStatus.capacity).storage) || '0' : '',
        bound ? accessModesString(claimStatus.accessModes) : '',
        claimClass(o),
        ...(withAttributesClass ? [attributesClass] : []),
        age(o, now),
        typeof claimSpec.volumeMode === 'string' ? claimSpec.volumeMode : '<unset>',
      ];
    },
  };
}

const persistentVolumeClaimPrinterWithAttributesClass = persistentVolumeClaimPrinter(true);
const persistentVolumeClaimPrinterBeforeAttributesClass = persistentVolumeClaimPrinter(false);

const leasePrinter: Printer = {
  columns: [
    nameColumn(),
    column('Holder', 'string', {
      description: 'holderIdentity contains the identity of the holder of a current lease.',
    }),
    ageColumn(),
  ],
  cells: (o, now) => [o.metadata.name ?? '', str(spec(o).holderIdentity), age(o, now)],
};

const BUILT_IN_PRINTERS: Readonly<Record<string, Printer>> = {
  Deployment: deploymentPrinter,
  StatefulSet: statefulSetPrinter,
  Lease: leasePrinter,
  PodDisruptionBudget: podDisruptionBudgetPrinter,
  ReplicaSet: replicaSetPrinter,
  Pod: podPrinter,
  Secret: secretPrinter,
  ConfigMap: configMapPrinter,
  Namespace: namespacePrinter,
  Event: eventPrinter,
  Service: servicePrinter,
  ServiceAccount: serviceAccountPrinter,
  Role: createdAtPrinter,
  ClusterRole: createdAtPrinter,
  CustomResourceDefinition: createdAtPrinter,
  RoleBinding: roleBindingPrinter,
  ClusterRoleBinding: roleBindingPrinter,
  ValidatingWebhookConfiguration: webhookConfigurationPrinter,
  MutatingWebhookConfiguration: webhookConfigurationPrinter,
};

/** Printers whose columns depend on the server's minor (see the sources above the Job printer). */
const VERSIONED_PRINTERS: Readonly<Record<string, (minor: number) => Printer>> = {
  Job: (minor) => (minor >= JOB_STATUS_SINCE_MINOR ? jobPrinterWithStatus : jobPrinterBeforeStatus),
  PersistentVolumeClaim: (minor) =>
    minor >= PVC_VOLUME_ATTRIBUTES_CLASS_SINCE_MINOR
      ? persistentVolumeClaimPrinterWithAttributesClass
      : persistentVolumeClaimPrinterBeforeAttributesClass,
};

/** The built-in printer of `kind` on a server of Kubernetes 1.<minor>; NAME and AGE for others. */
function builtInPrinter(kind: string, minor: number): Printer {
  return VERSIONED_PRINTERS[kind]?.(minor) ?? BUILT_IN_PRINTERS[kind] ?? genericPrinter;
}
