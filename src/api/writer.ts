/**
 * The management API's changes, bound to one run: with `--dry-run` they print the request they
 * would send and send nothing (ARCHITECTURE.md: "Dry-run lives in the writers"), so the steps
 * never branch on it to write. Reads stay on ApiClient.
 */

import type { Io } from '../io/io.js';
import type { ServerDryRun } from '../io/server-dry-run.js';
import type { ApiClient } from './client.js';
import type { ApiBdb, ApiModule } from './types.js';

export interface ApiWriteOptions {
  dryRun: boolean;
  io: Io;
  /** `--dry-run=server`: the management API has no dry run, so its writes are named as not judged. */
  server?: ServerDryRun | undefined;
}

const NO_API_DRY_RUN = 'the management API has no dry run';

export class ApiWriter {
  constructor(
    private readonly api: ApiClient,
    private readonly options: ApiWriteOptions,
  ) {}

  /** POST /v1/bdbs/<uid>/upgrade; undefined in dry-run (nothing was asked, so nothing to wait for). */
  async upgradeBdb(
    uid: number,
    version: string,
    versionKey: 'redis_version' | 'engine_version',
  ): Promise<(ApiBdb & { action_uid?: string }) | undefined> {
    if (this.options.dryRun) {
      this.options.io.info(
        `would POST /v1/bdbs/${uid}/upgrade: ${JSON.stringify({ [versionKey]: version })}`,
      );
      this.options.server?.cannotJudge(`POST /v1/bdbs/${uid}/upgrade`, NO_API_DRY_RUN);
      return undefined;
    }
    return this.api.upgradeBdb(uid, version, versionKey);
  }

  /** POST /v2/modules; undefined in dry-run. */
  async uploadModule(
    fileName: string,
    content: Uint8Array,
  ): Promise<(ApiModule & { action_uid: string }) | undefined> {
    if (this.options.dryRun) {
      this.options.io.info(`would upload module ${fileName} (POST /v2/modules)`);
      this.options.server?.cannotJudge(`POST /v2/modules ${fileName}`, NO_API_DRY_RUN);
      return undefined;
    }
    return this.api.uploadModule(fileName, content);
  }
}
