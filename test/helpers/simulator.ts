/**
 * The simulated cluster as the end-to-end, reliability and world tests load it: one module that
 * re-exports what they use of src/sim. The build (scripts/build.mjs) replaces its compiled form,
 * dist/test/helpers/simulator.js, with one file that holds it and every package it needs
 * (esbuild): the simulator's modules (zod, yaml, ajv and its own) cost a test file about 0.6 s of
 * CPU to load one by one, and 0.35 s as one file when the certificates' library was among them
 * (docs/reliability.md, "The suite's time"). So a test imports the simulator from here, never from src/sim, or it
 * would have two of each module (the unit tests of the simulator's parts import those parts).
 */
export * from '../../src/sim/artifacts/bundles.js';
export * from '../../src/sim/artifacts/openshift-scc.js';
export * from '../../src/sim/audit.js';
export * from '../../src/sim/cluster.js';
export { crdsFor } from '../../src/sim/crds.js';
export * from '../../src/sim/kube/faults.js';
export * from '../../src/sim/kube/registry.js';
export * from '../../src/sim/kube/types.js';
export * from '../../src/sim/olm/objects.js';
export * from '../../src/sim/rest/access.js';
export * from '../../src/sim/rest/faults.js';
export * from '../../src/sim/scenario.js';
export * from '../../src/sim/scenario/schema.js';
export * from '../../src/sim/tls.js';
export * from '../../src/sim/world/cluster-version.js';
export * from '../../src/sim/world/dialect.js';
export * from '../../src/sim/world/olm-bundles.js';
export * from '../../src/sim/world/releases.js';
export * from '../../src/sim/world/world.js';
