import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apiError, ApiStatusError, describeApiError, errorBody } from '../../../src/api/api-errors.js';
import { AuthError } from '../../../src/errors.js';
import type { HttpResponse } from '../../../src/api/http.js';

function response(status: number, body: unknown): HttpResponse {
  return { status, headers: {}, body };
}

describe('the management API error body', () => {
  it('reads the documented message, and the OpenAPI description when there is no message', () => {
    assert.deepEqual(errorBody(response(401, { error_code: 'password_expired', message: 'expired' })), {
      error_code: 'password_expired',
      message: 'expired',
    });
    assert.equal(
      describeApiError(response(400, { error_code: 'invalid_request', description: 'bad field ttl' })),
      'bad field ttl (invalid_request)',
    );
    assert.equal(
      errorBody(response(400, { error_code: 'x', message: 'the message', description: 'the description' }))
        .message,
      'the message',
    );
  });

  it('keeps the server text on one line and at most 300 characters', () => {
    const described = describeApiError(
      response(400, { description: `line one\nline two ${'x'.repeat(400)}` }),
    );
    assert.ok(!described.includes('\n'));
    assert.ok(described.length <= 300);
    assert.equal(describeApiError(response(502, {})), 'HTTP 502');
  });
});

describe('an error answer carries its HTTP status and error_code', () => {
  it('a 4xx other than 401 and 403: the status and error_code, no hint; a 5xx: the hint', () => {
    const refused = apiError(
      'POST /v2/modules',
      response(400, { error_code: 'invalid_module', message: 'no' }),
    );
    assert.ok(refused instanceof ApiStatusError);
    assert.equal(refused.status, 400);
    assert.equal(refused.errorCode, 'invalid_module');
    assert.equal(refused.hint, undefined);
    assert.equal(refused.message, 'POST /v2/modules failed with HTTP 400: no (invalid_module)');
    const internal = apiError('GET /v1/bdbs', response(500, 'oops'));
    assert.ok(internal instanceof ApiStatusError);
    assert.equal(internal.errorCode, undefined);
    assert.match(internal.hint ?? '', /internal error/);
    assert.ok(apiError('GET /v1/bdbs', response(403, {})) instanceof AuthError);
  });
});
