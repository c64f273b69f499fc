import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { sdkError } from '../helpers/sdk.js';

// Production rules: no WEBHOOK_ALLOW_INSECURE, so URLs must be https on a public address. Literal public
// IPs keep these tests off DNS; nothing is ever sent here.
const PUBLIC_URL = 'https://93.184.216.34/hooks/herald';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => env?.close());

describe('webhook settings', () => {
  it('creates, lists, updates only the given fields, and deletes through the SDK; the secret is never returned', async () => {
    const { apiKey } = await env.createUser();
    const client = await env.sdk(apiKey);
    const created = await client.webhooks.createWebhookSettings({
      body: {
        name: 'Production',
        url: PUBLIC_URL,
        secret: 'top-secret-value',
        events: ['post.published', 'post.failed'],
        customHeaders: { 'X-Token': 'abc' },
      },
    });
    expect(created.response.status).toBe(200);
    const webhook = (created.data as any).webhook;
    expect(created.data).toMatchObject({ success: true });
    expect(webhook).toMatchObject({
      name: 'Production',
      url: PUBLIC_URL,
      events: ['post.published', 'post.failed'],
      isActive: true,
      customHeaders: { 'X-Token': 'abc' },
      failureCount: 0,
      lastFiredAt: null,
    });
    expect(webhook._id).toMatch(/^[0-9a-f]{24}$/);
    expect(webhook).not.toHaveProperty('secret');
    // Stored sealed, never in clear.
    const row = await env.ctx.db.kysely
      .selectFrom('webhook')
      .selectAll()
      .where('webhook_id', '=', webhook._id)
      .executeTakeFirstOrThrow();
    expect(row.secret).not.toContain('top-secret-value');
    expect(env.ctx.secrets.open(row.secret!)).toBe('top-secret-value');

    const listed = await client.webhooks.getWebhookSettings();
    expect((listed.data as any).webhooks).toHaveLength(1);
    expect(JSON.stringify(listed.data)).not.toContain('top-secret-value');

    const updated = await client.webhooks.updateWebhookSettings({ body: { _id: webhook._id, name: 'Renamed' } });
    expect((updated.data as any).webhook).toMatchObject({
      _id: webhook._id,
      name: 'Renamed',
      url: PUBLIC_URL,
      events: ['post.published', 'post.failed'],
      customHeaders: { 'X-Token': 'abc' },
    });
    // `webhookId` is accepted as the id too.
    const viaAlias = await client.webhooks.updateWebhookSettings({ body: { webhookId: webhook._id, isActive: false } });
    expect((viaAlias.data as any).webhook).toMatchObject({ name: 'Renamed', isActive: false });
    const kept = await env.ctx.db.kysely
      .selectFrom('webhook')
      .selectAll()
      .where('webhook_id', '=', webhook._id)
      .executeTakeFirstOrThrow();
    expect(env.ctx.secrets.open(kept.secret!)).toBe('top-secret-value');

    await client.webhooks.deleteWebhookSettings({ query: { id: webhook._id } });
    expect((await client.webhooks.getWebhookSettings()).data).toEqual({ webhooks: [] });
    const again = await sdkError(client.webhooks.deleteWebhookSettings({ query: { webhookId: webhook._id } }));
    expect(again.statusCode).toBe(404);
  });

  it('rejects bad settings with clear 400s naming the field', async () => {
    const { apiKey } = await env.createUser();
    const post = (body: Record<string, unknown>) =>
      env.request(apiKey, 'POST', '/v1/webhooks/settings', { url: PUBLIC_URL, ...body });
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ name: 'n'.repeat(51) }, 'name', /50/],
      [{ events: ['post.published', 'post.exploded'] }, 'events.1', /must be one of/],
      [{ url: 'http://93.184.216.34/hook' }, 'url', /https/],
      [{ url: 'https://127.0.0.1/hook' }, 'url', /private, loopback or link-local/],
      [{ url: 'https://10.1.2.3/hook' }, 'url', /private/],
      [{ url: 'https://169.254.169.254/latest/meta-data' }, 'url', /private/],
      [{ url: 'https://[::1]/hook' }, 'url', /private/],
      [{ url: 'https://[::ffff:192.168.1.1]/hook' }, 'url', /private/],
      [{ url: 'https://[::ffff:0:127.0.0.1]/hook' }, 'url', /private/],
      [{ url: 'https://[fe80::1]/hook' }, 'url', /private/],
      [{ url: 'https://localhost/hook' }, 'url', /private|resolved/],
      [{ url: 'not a url' }, 'url', /valid URL/],
      [{ url: 'ftp://93.184.216.34/x' }, 'url', /https/],
      [{ customHeaders: { Host: 'evil.example' } }, 'customHeaders.Host', /reserved/],
      [{ customHeaders: { 'Content-Length': '1' } }, 'customHeaders.Content-Length', /reserved/],
      [{ customHeaders: { 'X-Herald-Signature': 'forged' } }, 'customHeaders.X-Herald-Signature', /reserved/],
      [{ customHeaders: { 'webhook-signature': 'v1,forged' } }, 'customHeaders.webhook-signature', /reserved/],
      [{ customHeaders: { 'Bad Name': 'x' } }, 'customHeaders.Bad Name', /valid header name/],
      [{ customHeaders: { 'X-Inject': 'a\r\nX-Other: b' } }, 'customHeaders.X-Inject', /line breaks/],
      [{ customHeaders: { 'X-Long': 'v'.repeat(1001) } }, 'customHeaders.X-Long', /1000/],
      // An empty secret was stored as none: deliveries went out unsigned.
      [{ secret: '' }, 'secret', /empty/],
      [{ secret: '   ' }, 'secret', /empty/],
    ];
    for (const [body, field, message] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error, JSON.stringify(body)).toEqual(expect.any(String));
      expect(res.body.details.fields[field], JSON.stringify(res.body)).toEqual([expect.stringMatching(message)]);
    }
    const tooMany = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v']));
    expect((await post({ customHeaders: tooMany })).body.details.fields.customHeaders).toEqual(['at most 20 headers']);
    const noUrl = await env.request(apiKey, 'POST', '/v1/webhooks/settings', { name: 'x' });
    expect(noUrl.status).toBe(400);
    expect(noUrl.body.details.fields.url).toEqual(['is required']);
    // An update is validated the same way, and nothing was stored by any of the above.
    expect((await env.request(apiKey, 'GET', '/v1/webhooks/settings')).body.webhooks).toEqual([]);
    const ok = await post({ name: 'ok' });
    const put = await env.request(apiKey, 'PUT', '/v1/webhooks/settings', {
      _id: ok.body.webhook._id,
      url: 'https://192.168.0.10/',
    });
    expect(put.status).toBe(400);
    expect(put.body.details.fields.url).toBeDefined();
    const emptySecret = await env.request(apiKey, 'PUT', '/v1/webhooks/settings', {
      _id: ok.body.webhook._id,
      secret: '',
    });
    expect(emptySecret.status).toBe(400);
    expect(emptySecret.body.details.fields.secret).toEqual(['must not be empty']);
    const noId = await env.request(apiKey, 'PUT', '/v1/webhooks/settings', { name: 'x' });
    expect(noId.status).toBe(400);
    expect(noId.body.details.fields._id).toEqual(['is required']);
    expect((await env.request(apiKey, 'DELETE', '/v1/webhooks/settings')).status).toBe(400);
  });

  it('allows at most 10 webhooks per user', async () => {
    const { apiKey } = await env.createUser();
    for (let i = 0; i < 10; i++) {
      const res = await env.request(apiKey, 'POST', '/v1/webhooks/settings', { name: `h${i}`, url: PUBLIC_URL });
      expect(res.status).toBe(200);
    }
    const eleventh = await env.request(apiKey, 'POST', '/v1/webhooks/settings', { name: 'h10', url: PUBLIC_URL });
    expect(eleventh.status).toBe(400);
    expect(eleventh.body.code).toBe('webhook_limit_reached');
    expect(eleventh.body.error).toMatch(/10/);
    expect((await env.request(apiKey, 'GET', '/v1/webhooks/settings')).body.webhooks).toHaveLength(10);
  });

  it('keeps the limit under concurrent creates', async () => {
    const { apiKey } = await env.createUser();
    const results = await Promise.all(
      Array.from({ length: 14 }, (_, i) =>
        env.request(apiKey, 'POST', '/v1/webhooks/settings', { name: `c${i}`, url: PUBLIC_URL }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(10);
    expect(results.filter((r) => r.status === 400).map((r) => r.body.code)).toEqual(
      Array(4).fill('webhook_limit_reached'),
    );
    expect((await env.request(apiKey, 'GET', '/v1/webhooks/settings')).body.webhooks).toHaveLength(10);
  });

  it("answers 404 for another tenant's webhook on PUT, DELETE and test", async () => {
    const owner = await env.createUser();
    const stranger = await env.createUser();
    const hook = (await env.request(owner.apiKey, 'POST', '/v1/webhooks/settings', { name: 'mine', url: PUBLIC_URL }))
      .body.webhook;
    const client = await env.sdk(stranger.apiKey);
    expect(
      (await sdkError(client.webhooks.updateWebhookSettings({ body: { _id: hook._id, name: 'stolen' } }))).statusCode,
    ).toBe(404);
    expect((await sdkError(client.webhooks.deleteWebhookSettings({ query: { id: hook._id } }))).statusCode).toBe(404);
    expect((await sdkError(client.webhooks.testWebhook({ body: { webhookId: hook._id } }))).statusCode).toBe(404);
    expect((await client.webhooks.getWebhookSettings()).data).toEqual({ webhooks: [] });
    const row = await env.ctx.db.kysely
      .selectFrom('webhook')
      .selectAll()
      .where('webhook_id', '=', hook._id)
      .executeTakeFirstOrThrow();
    expect(row.name).toBe('mine');
  });

  it('refuses webhooks to callers restricted to some profiles, and writes to read-only keys', async () => {
    const { apiKey } = await env.createUser();
    const profile = (await env.request(apiKey, 'POST', '/v1/profiles', { name: 'P' })).body.profile;
    const scoped = (
      await env.request(apiKey, 'POST', '/v1/api-keys', {
        name: 'scoped',
        scope: 'profiles',
        profileIds: [profile._id],
      })
    ).body.apiKey.key;
    const res = await env.request(scoped, 'POST', '/v1/webhooks/settings', { url: PUBLIC_URL });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('webhooks_require_full_access');
    expect((await env.request(scoped, 'GET', '/v1/webhooks/logs')).status).toBe(403);
    const readOnly = (await env.request(apiKey, 'POST', '/v1/api-keys', { name: 'ro', permission: 'read' })).body.apiKey
      .key;
    expect((await env.request(readOnly, 'POST', '/v1/webhooks/settings', { url: PUBLIC_URL })).status).toBe(403);
    expect((await env.request(readOnly, 'GET', '/v1/webhooks/settings')).status).toBe(200);
  });

  it('requires authentication', async () => {
    expect((await env.request(null, 'GET', '/v1/webhooks/settings')).status).toBe(401);
    expect((await env.request('sk_' + '0'.repeat(64), 'GET', '/v1/webhooks/logs')).status).toBe(401);
  });
});
