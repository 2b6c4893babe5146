import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseYaml } from '../../../src/io/yaml-from-outside.js';
import { booleanTextField } from '../../../src/kube/kubeconfig-text-fields.js';

/** A kubeconfig's users list with one user, its `user:` body as given (YAML flow mapping). */
const userOf = (body: string) => parseYaml(`users: [{name: u, user: ${body}}]\n`);

describe('booleanTextField: a boolean where kubectl reads text (client-go api/v1 types)', () => {
  it('finds it in a text field, a list of text, a map of text, a list of entries', () => {
    const cases: [unknown, string][] = [
      [parseYaml('current-context: on\n'), 'current-context'],
      [
        parseYaml('clusters: [{name: c, cluster: {server: x, proxy-url: off}}]\n'),
        'clusters[0].cluster.proxy-url',
      ],
      [parseYaml('contexts: [{name: a}, {name: Y}]\n'), 'contexts[1].name'],
      [userOf('{as-groups: [a, no]}'), 'users[0].user.as-groups[1]'],
      [userOf('{as-user-extra: {k: [a, yes]}}'), 'users[0].user.as-user-extra.k[1]'],
      [
        userOf('{auth-provider: {name: oidc, config: {refresh: on}}}'),
        'users[0].user.auth-provider.config.refresh',
      ],
      [userOf('{exec: {command: x, args: [--flag, n]}}'), 'users[0].user.exec.args[1]'],
      [userOf('{exec: {command: x, env: [{name: A, value: NO}]}}'), 'users[0].user.exec.env[0].value'],
      [userOf('{token: TRUE}'), 'users[0].user.token'],
    ];
    for (const [document, path] of cases) assert.equal(booleanTextField(document), path);
  });

  it("kubectl's own booleans, extensions and fields it does not know are not judged", () => {
    const document = parseYaml(
      [
        'clusters: [{name: c, cluster: {server: x, insecure-skip-tls-verify: yes, disable-compression: on, extensions: [{name: e, extension: yes}]}}]',
        'users: [{name: u, user: {exec: {command: x, provideClusterInfo: y}, unknown: n}}]',
        'preferences: {colors: yes}',
        'extensions: [{name: e, extension: {a: off}}]',
        'something-new: on',
        'contexts: [{name: "no", context: {cluster: c, user: u, namespace: "off"}}]',
        '',
      ].join('\n'),
    );
    assert.equal(booleanTextField(document), undefined);
    // Types other than a mapping are left to the readers after it.
    for (const other of [null, [], 'x', { clusters: 'x' }, { users: [null, 1] }]) {
      assert.equal(booleanTextField(other), undefined);
    }
  });
});
