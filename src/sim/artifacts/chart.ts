/**
 * The simulator's helm chart `redis-enterprise-operator`, one per operator version: the same
 * objects as the bundle (operator-objects.ts), as helm v2 chart files.
 *
 * Each template is produced by evaluating its object for every combination of the two chart
 * values and wrapping the variants in `{{ if }}` blocks. The chart therefore renders exactly the
 * objects `renderChart` renders in TypeScript (used to seed a helm release without helm).
 */

import jsYaml from 'js-yaml';
import type { SimDialect as Dialect } from '../world/dialect.js';
import { admissionWebhookName } from '../world/releases.js';
import { crdsFor, recCrdRevision } from '../crds.js';
import {
  admissionService,
  admissionWebhook,
  type KubeManifest,
  operatorDeployment,
  operatorRole,
  operatorRoleBinding,
  operatorServiceAccount,
} from './operator-objects.js';
import { chartInstallsScc, SCC_CHART_TEMPLATE, sccChartTemplate, sccManifest } from './openshift-scc.js';

export const CHART_NAME = 'redis-enterprise-operator';

export interface ChartValues {
  /** `scc.install` absent: the chart version's default (openshift-scc.ts). */
  openshift: { mode: boolean; scc?: { install: boolean } };
  admission: { limitToNamespace: boolean };
  /**
   * The operator image's tag; default the chart's own version. As in the real chart, the
   * Deployment takes its image from `.Values.operator.image.tag` (redis-facts.md §12: chart
   * `_helpers.tpl`, `values.yaml`), so a tag the user set at install wins over a newer chart's
   * default and survives `helm upgrade --reset-then-reuse-values`.
   */
  operator?: { image?: { tag?: string } };
}

export const DEFAULT_CHART_VALUES: ChartValues = {
  openshift: { mode: false },
  admission: { limitToNamespace: true },
};

export interface ChartFile {
  /** Path inside the archive, below the chart's own folder. */
  path: string;
  content: string;
}

// A plain YAML scalar that cannot occur in real content; becomes `{{ .Release.Namespace }}`.
const NAMESPACE_TOKEN = 'zzreleasenamespacezz';

type TemplateObject = (version: string, values: ChartValues, namespace: string) => KubeManifest;

interface Template {
  file: string;
  build: TemplateObject;
  /** Versions with the same key render the same text: lets 70 versions share one rendering. */
  sameFor: (version: string) => string;
}

const EVERY_VERSION = () => '';

/** The chart's templates in helm's install order (ServiceAccount, Role, ..., webhook last). */
const TEMPLATES: readonly Template[] = [
  { file: 'templates/service_account.yaml', build: () => operatorServiceAccount(), sameFor: EVERY_VERSION },
  {
    file: 'templates/role.yaml',
    build: (_v, values) => operatorRole(values.openshift.mode ? 'openshift' : 'kubernetes'),
    sameFor: EVERY_VERSION,
  },
  { file: 'templates/role_binding.yaml', build: () => operatorRoleBinding(), sameFor: EVERY_VERSION },
  { file: 'templates/admission_service.yaml', build: () => admissionService(), sameFor: EVERY_VERSION },
  {
    file: 'templates/operator_deployment.yaml',
    build: (version, values) =>
      operatorDeployment(version, values.openshift.mode ? 'openshift' : 'kubernetes'),
    sameFor: (version) => version,
  },
  // caBundle is left out: the operator fills it in, and a chart upgrade must not reset it.
  {
    file: 'templates/webhook.yaml',
    build: (version, values, namespace) =>
      admissionWebhook(version, {
        name: chartWebhookName(version, values, namespace),
        namespace,
        caBundle: null,
        ...(values.admission.limitToNamespace ? { limitToNamespace: namespace } : {}),
      }),
    sameFor: (version) => admissionWebhookName(version),
  },
];

/** `redis-enterprise-admission-<namespace>` with `admission.limitToNamespace` (redis-facts.md §3). */
export function chartWebhookName(version: string, values: ChartValues, namespace: string): string {
  const base = admissionWebhookName(version);
  return values.admission.limitToNamespace ? `${base}-${namespace}` : base;
}

/**
 * A template's or file's YAML, written by js-yaml as the bundle files are (bundles.ts): a
 * helm-installed simulator builds every version's archive for its index's digests, once per
 * process, and with the `yaml` package's stringify that index took 0.92 s of CPU, with js-yaml
 * 0.68 s (docs/reliability.md, the fourth round). js-yaml quotes YAML 1.1's booleans (`y`,
 * `on`, ...) by default, as helm's Go reader (sigs.k8s.io/yaml) needs; the text helm renders
 * from it is checked by the helm tests against the objects `renderChart` gives.
 */
function yamlOf(object: unknown): string {
  return jsYaml.dump(object, { lineWidth: -1, noRefs: true });
}

function valuesFor(openshift: boolean, limit: boolean): ChartValues {
  return { openshift: { mode: openshift }, admission: { limitToNamespace: limit } };
}

const templateCache = new Map<string, string>();

function templateText(version: string, template: Template): string {
  const key = `${template.file}\0${template.sameFor(version)}`;
  let text = templateCache.get(key);
  if (text === undefined) {
    text = buildTemplateText(version, template.build);
    templateCache.set(key, text);
  }
  return text;
}

/** One template's text: the variants it really has, each behind the `if` that selects it. */
function buildTemplateText(version: string, build: TemplateObject): string {
  const render = (openshift: boolean, limit: boolean) =>
    yamlOf(build(version, valuesFor(openshift, limit), NAMESPACE_TOKEN))
      .replaceAll(NAMESPACE_TOKEN, '{{ .Release.Namespace }}')
      // The operator image's tag comes from the values, as in the real chart.
      .replaceAll(
        new RegExp(`(image: \\S+/[a-z-]*operator):${version.replaceAll('.', '\\.')}$`, 'gm'),
        '$1:{{ .Values.operator.image.tag }}',
      );
  const [plainDefault, plainLimited, openshiftDefault, openshiftLimited] = [
    render(false, false),
    render(false, true),
    render(true, false),
    render(true, true),
  ];
  const OPENSHIFT = '.Values.openshift.mode';
  const LIMIT = '.Values.admission.limitToNamespace';
  const dependsOnOpenshift = plainDefault !== openshiftDefault || plainLimited !== openshiftLimited;
  const dependsOnLimit = plainDefault !== plainLimited || openshiftDefault !== openshiftLimited;
  const ifElse = (condition: string, then: string, otherwise: string) =>
    `{{- if ${condition} }}\n${then}{{- else }}\n${otherwise}{{- end }}\n`;
  if (!dependsOnOpenshift && !dependsOnLimit) return plainDefault;
  if (!dependsOnLimit) return ifElse(OPENSHIFT, openshiftDefault, plainDefault);
  if (!dependsOnOpenshift) return ifElse(LIMIT, plainLimited, plainDefault);
  return ifElse(
    OPENSHIFT,
    ifElse(LIMIT, openshiftLimited, openshiftDefault),
    ifElse(LIMIT, plainLimited, plainDefault),
  );
}

function chartYaml(version: string): string {
  return yamlOf({
    apiVersion: 'v2',
    name: CHART_NAME,
    description: 'Redis Enterprise operator (ctl simulator chart)',
    type: 'application',
    version,
    appVersion: version,
    kubeVersion: '>=1.23.0-0',
  });
}

function valuesYaml(version: string): string {
  return [
    '# Values of the simulator chart of the Redis Enterprise operator.',
    'operator:',
    '  image:',
    '    # The operator image tag (both containers of the Deployment).',
    `    tag: ${version}`,
    'openshift:',
    '  # true: the RHEL operator image, OpenShift routes and SCC rules in the Role.',
    '  mode: false',
    '  scc:',
    '    # true: the chart installs the SCC redis-enterprise-scc-v2 (the default up to 7.8.6-15).',
    `    install: ${String(chartInstallsScc(version))}`,
    'admission:',
    '  # true: the webhook is named redis-enterprise-admission-<namespace> and only sees',
    '  # namespaces labelled namespace-name=<namespace>.',
    '  limitToNamespace: true',
    '',
  ].join('\n');
}

/** Every file of the chart for one operator version; CRDs follow the cluster's dialect. */
export function chartFiles(version: string, dialect: Dialect): ChartFile[] {
  return [
    { path: 'Chart.yaml', content: chartYaml(version) },
    { path: 'values.yaml', content: valuesYaml(version) },
    ...TEMPLATES.map((template) => ({ path: template.file, content: templateText(version, template) })),
    { path: SCC_CHART_TEMPLATE, content: sccChartTemplate(version, yamlOf) },
    ...crdFiles(dialect, version),
  ];
}

const crdFileCache = new Map<string, ChartFile[]>();

function crdFiles(dialect: Dialect, version: string): ChartFile[] {
  // The REC CRD changes with the release (recCrdRevision).
  const key = `${dialect} ${recCrdRevision(version)}`;
  let files = crdFileCache.get(key);
  if (!files) {
    const crds = crdsFor(dialect, version) as { metadata: { name: string } }[];
    files = crds.map((crd) => ({ path: `crds/${crd.metadata.name}.yaml`, content: yamlOf(crd) }));
    crdFileCache.set(key, files);
  }
  return files;
}

export interface RenderedChart {
  /** `templates/...` file name and its rendered objects, in install order. */
  templates: { path: string; object: KubeManifest }[];
  /** helm's release manifest: `---\n# Source: <chart>/<path>\n<yaml>` per template. */
  manifest: string;
  crds: KubeManifest[];
}

/** What `helm install` of this chart renders, without helm. */
export function renderChart(
  version: string,
  dialect: Dialect,
  namespace: string,
  values: ChartValues = DEFAULT_CHART_VALUES,
): RenderedChart {
  const tag = values.operator?.image?.tag;
  const templates = TEMPLATES.map(({ file, build }) => {
    const object = build(version, values, namespace);
    return {
      path: file,
      object: tag && object.kind === 'Deployment' ? withOperatorTag(object, version, tag) : object,
    };
  });
  if (values.openshift.mode && (values.openshift.scc?.install ?? chartInstallsScc(version))) {
    templates.push({ path: SCC_CHART_TEMPLATE, object: sccManifest(version) });
  }
  const manifest = templates
    .map(({ path, object }) => `---\n# Source: ${CHART_NAME}/${path}\n${yamlOf(object)}`)
    .join('')
    .trimEnd();
  return { templates, manifest, crds: crdsFor(dialect, version) as KubeManifest[] };
}

/** The Deployment with its operator image tag replaced (what the template does with the value). */
function withOperatorTag(deployment: KubeManifest, version: string, tag: string): KubeManifest {
  const copy = structuredClone(deployment);
  const containers = (copy as { spec?: { template?: { spec?: { containers?: { image?: string }[] } } } }).spec
    ?.template?.spec?.containers;
  for (const container of containers ?? []) {
    if (container.image?.endsWith(`:${version}`))
      container.image = `${container.image.slice(0, -version.length)}${tag}`;
  }
  return copy;
}
