import { describe, expect, it } from 'vitest';
import { mapXrpcError, networkError } from '../../../src/platforms/bluesky/api.js';

const NOW = new Date('2026-05-01T12:00:00Z');
const map = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  mapXrpcError(
    status,
    new Headers(headers),
    body,
    JSON.stringify(body),
    'https://pds.example/xrpc/com.atproto.repo.createRecord',
    NOW,
  );

describe('Bluesky XRPC error mapping', () => {
  it('maps ExpiredToken and InvalidToken (400 or 401) and AuthenticationRequired to auth', () => {
    expect(map(400, { error: 'ExpiredToken', message: 'Token has expired' })).toMatchObject({
      kind: 'auth',
      platformCode: 'ExpiredToken',
      revoked: false,
    });
    expect(map(401, { error: 'InvalidToken', message: 'Bad token' }).kind).toBe('auth');
    expect(map(401, { error: 'AuthenticationRequired', message: 'Invalid identifier or password' })).toMatchObject({
      kind: 'auth',
      message: 'Invalid identifier or password',
    });
  });

  it('maps 429 to rate_limited with the wait until ratelimit-reset', () => {
    const reset = String(NOW.getTime() / 1000 + 90);
    expect(map(429, { error: 'RateLimitExceeded' }, { 'ratelimit-reset': reset })).toMatchObject({
      kind: 'rate_limited',
      retryAfterMs: 90_000,
      status: 429,
    });
    expect(map(429, { error: 'RateLimitExceeded' }).retryAfterMs).toBeNull();
  });

  it('maps 5xx to unavailable and InvalidRequest or other 4xx to rejected', () => {
    expect(map(502, null).kind).toBe('unavailable');
    expect(map(503, { error: 'InternalServerError' }).kind).toBe('unavailable');
    expect(
      map(400, { error: 'InvalidRequest', message: 'Record/text must not be longer than 300 graphemes' }),
    ).toMatchObject({ kind: 'rejected', platformCode: 'InvalidRequest' });
    expect(map(413, { error: 'PayloadTooLarge' }).kind).toBe('rejected');
  });

  it('makes a lost connection ambiguous only for the call that creates the post', () => {
    const reset = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } });
    const refused = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    expect(networkError(reset, 'x', true).kind).toBe('ambiguous');
    expect(networkError(reset, 'x', false).kind).toBe('unavailable');
    expect(networkError(refused, 'x', true).kind).toBe('unavailable');
  });
});
