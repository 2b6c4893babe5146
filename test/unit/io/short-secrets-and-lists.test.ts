/**
 * Issue 35, finding 9: a password shorter than 4 characters is still redacted when a server
 * echoes it (as a word of its own, not inside other words), and a list printed for people is
 * capped with "and N more" (3,000 releases from a PackageManifest made 3,000 lines).
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { capList, moreLine } from '../../../src/io/cap-list.js';
import { REDACTED, Redactor } from '../../../src/io/redact.js';
import { describeCatalog, type PlanCatalog } from '../../../src/planning/catalog-notes.js';

describe('short passwords', () => {
  it('are redacted where a server echoes them, and only there', () => {
    const redactor = new Redactor();
    redactor.add('abc', 'password');
    assert.equal(
      redactor.redact("invalid password 'abc' for user x"),
      `invalid password '${REDACTED}' for user x`,
    );
    assert.equal(redactor.redact('password: abc'), `password: ${REDACTED}`);
    assert.equal(redactor.redact('{"password":"abc"}'), `{"password":"${REDACTED}"}`);
    // Inside longer words it is not the password.
    assert.equal(redactor.redact('abcd cabc fabcg'), 'abcd cabc fabcg');
  });
});

describe('capped lists', () => {
  it('shows the first ten and says how many more', () => {
    const items = Array.from({ length: 3000 }, (_, i) => i);
    const { shown, more } = capList(items);
    assert.equal(shown.length, 10);
    assert.equal(more, 2990);
    assert.equal(moreLine(more, 'things'), 'and 2,990 more things (-o json lists them all)');
    assert.deepEqual(capList([1, 2]), { shown: [1, 2], more: 0 });
  });

  it("the plan's newer releases from 3,000 channels are 10 lines and one more", () => {
    const catalog: PlanCatalog = {
      updated: '2026-11-01',
      ageDays: 1,
      stale: false,
      origin: 'built-in',
      advisories: [],
      available: Array.from({ length: 3000 }, (_, i) => ({
        operator: `9.${i}.0-1`,
        clusterVersion: null,
        foundIn: 'OperatorHub channel x',
      })),
    };
    const lines = describeCatalog(catalog);
    assert.equal(lines.filter((line) => line.text.startsWith('newer release available')).length, 10);
    assert.equal(lines.at(-1)?.text, 'and 2,990 more newer releases available (-o json lists them all)');
    // A catalog one day old is "1 day old", as the demo shows it the day after a release.
    assert.equal(lines[0]?.text, 'release catalog of 2026-11-01 (built-in, 1 day old)');
    const older = describeCatalog({ ...catalog, ageDays: 3, available: [] });
    assert.equal(older[0]?.text, 'release catalog of 2026-11-01 (built-in, 3 days old)');
  });
});
