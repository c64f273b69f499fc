import { describe, expect, it } from 'vitest';
import { FACEBOOK_HTTP } from '../../../src/platforms/facebook/api.js';
import { metaSignature, metaWebhook } from '../../../src/platforms/graph/webhook.js';
import type { PlatformWebhookRequest } from '../../../src/platforms/types.js';

/* Meta webhooks (graph/webhook.ts): the verification handshake and the X-Hub-Signature-256 check. */

const hook = metaWebhook({
  object: 'page',
  fields: ['messages'],
  appId: '100000000000001',
  appSecret: 'app-secret',
  graphBase: 'http://127.0.0.1:1/v24.0',
  http: FACEBOOK_HTTP,
  entry: (e) => [{ account: { platformUserId: String(e.id) }, batch: { messages: [] } }],
});

const req = (over: Partial<PlatformWebhookRequest>): PlatformWebhookRequest => ({
  method: 'POST',
  headers: {},
  query: {},
  rawBody: Buffer.alloc(0),
  secret: 'verify-me',
  ...over,
});

describe('Meta webhooks', () => {
  it('answers the handshake with the challenge only for the registered verify token', () => {
    const ok = hook.receive(
      req({
        method: 'GET',
        query: { 'hub.mode': 'subscribe', 'hub.verify_token': 'verify-me', 'hub.challenge': '1158201444' },
      }),
    );
    expect(ok).toEqual({ kind: 'reply', status: 200, contentType: 'text/plain', body: '1158201444' });
    const wrong = hook.receive(
      req({ method: 'GET', query: { 'hub.mode': 'subscribe', 'hub.verify_token': 'guess', 'hub.challenge': '1' } }),
    );
    expect(wrong).toMatchObject({ kind: 'refused', status: 403 });
  });

  it('accepts a notification signed with the app secret and refuses a missing or forged signature', () => {
    const body = Buffer.from(JSON.stringify({ object: 'page', entry: [{ id: '42', time: 1 }] }));
    const ok = hook.receive(
      req({ rawBody: body, headers: { 'x-hub-signature-256': metaSignature('app-secret', body) } }),
    );
    expect(ok).toEqual({
      kind: 'accepted',
      deliveries: [{ account: { platformUserId: '42' }, batch: { messages: [] } }],
    });
    expect(hook.receive(req({ rawBody: body }))).toMatchObject({ kind: 'refused', status: 401 });
    expect(
      hook.receive(req({ rawBody: body, headers: { 'x-hub-signature-256': metaSignature('other-secret', body) } })),
    ).toMatchObject({ kind: 'refused', status: 401 });
    const tampered = Buffer.from(body.toString().replace('42', '43'));
    expect(
      hook.receive(req({ rawBody: tampered, headers: { 'x-hub-signature-256': metaSignature('app-secret', body) } })),
    ).toMatchObject({ kind: 'refused', status: 401 });
  });
});
