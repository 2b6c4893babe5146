import type { ResourceRegistry } from '../registry.js';
import type { KubeStore } from '../store.js';
import type { KubeObject } from '../types.js';

/**
 * Objects carrying this annotation (any value but `default`) are left alone by the built-in
 * controllers: whoever set it (the simulated operator, a test) drives them instead.
 */
export const CONTROLLER_ANNOTATION = 'sim.ctl.dev/controller';

export interface ControllerContext {
  store: KubeStore;
  registry: ResourceRegistry;
  /** False when a claim or the annotation hands the object to someone else. */
  ownedByDefaultController(object: KubeObject): boolean;
}

/** An in-process reconciler fed by the store's change events. */
export interface Controller {
  readonly name: string;
  start(context: ControllerContext): void;
  stop(): void;
}

export type Claim = (object: KubeObject) => boolean;

/** Runs the controllers and keeps the list of claims that opt workloads out of them. */
export class ControllerManager {
  readonly #store: KubeStore;
  readonly #registry: ResourceRegistry;
  readonly #controllers: Controller[] = [];
  readonly #claims = new Set<Claim>();
  #started = false;

  constructor(store: KubeStore, registry: ResourceRegistry) {
    this.#store = store;
    this.#registry = registry;
  }

  add(controller: Controller): void {
    this.#controllers.push(controller);
    if (this.#started) controller.start(this.#context());
  }

  get<T extends Controller>(name: string): T | undefined {
    return this.#controllers.find((c) => c.name === name) as T | undefined;
  }

  /**
   * Takes objects away from the built-in controllers while the predicate says so (e.g. the
   * operator's Deployment during a simulated restart). Returns the function that gives them back.
   */
  claim(predicate: Claim): () => void {
    this.#claims.add(predicate);
    return () => this.#claims.delete(predicate);
  }

  ownedByDefaultController(object: KubeObject): boolean {
    const mark = object.metadata.annotations?.[CONTROLLER_ANNOTATION];
    if (mark !== undefined && mark !== 'default') return false;
    for (const claim of this.#claims) if (claim(object)) return false;
    return true;
  }

  startAll(): void {
    this.#started = true;
    for (const controller of this.#controllers) controller.start(this.#context());
  }

  stopAll(): void {
    this.#started = false;
    for (const controller of this.#controllers) controller.stop();
  }

  #context(): ControllerContext {
    return {
      store: this.#store,
      registry: this.#registry,
      ownedByDefaultController: (object) => this.ownedByDefaultController(object),
    };
  }
}

/** Reconciles keys one at a time on a later tick, so store events never nest into writes. */
export class WorkQueue {
  readonly #pending = new Set<string>();
  readonly #handler: (key: string) => void;
  #scheduled: NodeJS.Immediate | undefined;
  #stopped = false;

  constructor(handler: (key: string) => void) {
    this.#handler = handler;
  }

  add(key: string): void {
    if (this.#stopped) return;
    this.#pending.add(key);
    this.#scheduled ??= setImmediate(() => this.#drain());
  }

  stop(): void {
    this.#stopped = true;
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#pending.clear();
  }

  #drain(): void {
    this.#scheduled = undefined;
    const keys = [...this.#pending];
    this.#pending.clear();
    for (const key of keys) {
      try {
        this.#handler(key);
      } catch {
        // A write lost a race (409) or the object vanished: the next event reconciles again.
      }
    }
  }
}
