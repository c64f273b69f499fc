import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { csvForm, multipartBody } from '../helpers/multipart.js';
import { createTenant } from '../helpers/posts.js';
import { changedTables, countRows } from '../helpers/row-counts.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ now: '2026-03-01T00:00:00.000Z', env: { RATE_LIMIT_DISABLED: 'true' } });
});
afterAll(async () => env?.close());

async function upload(
  apiKey: string,
  csv: string | Buffer,
  opts: { query?: string; headers?: Record<string, string> } = {},
) {
  const form = csvForm(csv);
  const res = await env.app.inject({
    method: 'POST',
    url: `/v1/posts/bulk-upload${opts.query ?? ''}`,
    headers: { authorization: `Bearer ${apiKey}`, ...form.headers, ...opts.headers },
    payload: form.payload,
  });
  return { status: res.statusCode, body: JSON.parse(res.body), headers: res.headers };
}

const listPosts = async (apiKey: string) =>
  (await env.request(apiKey, 'GET', '/v1/posts?limit=100&sortBy=created-asc')).body.posts;

describe('POST /v1/posts/bulk-upload', () => {
  it('creates a post per good row with the fields of POST /v1/posts, and names each bad row (207)', async () => {
    const t = await createTenant(env);
    const bsky = await t.account('bluesky');
    const tg = await t.account('telegram');
    // A spreadsheet export: BOM, `;` separators, CRLF, a quoted cell holding `;`, quotes and a line break.
    const csv =
      '\ufeffpost_content;platforms;profiles;accounts;schedule_time;tz;custom_content_telegram;media_urls\r\n' +
      `"Launch; day ""one""\nsee you";bluesky,telegram;${t.profileId};;2026-03-08 02:30;America/New_York;Telegram words;https://cdn.example.com/a.png\r\n` +
      `Second;;;${tg};2026-03-10T09:00:00Z;;;\r\n` +
      `Bad time;bluesky;${t.profileId};;next tuesday;;;\r\n` +
      `Nobody;bluesky;no-such-profile;;2026-03-10T09:00:00Z;;;\r\n` +
      `${'x'.repeat(301)};bluesky;${t.profileId};;2026-03-10T09:00:00Z;;;\r\n`;
    const res = await upload(t.apiKey, csv);
    expect(res.status).toBe(207);
    expect(res.body).toMatchObject({ success: false, totalRows: 5, created: 2, failed: 3, dryRun: false });
    expect(res.body.errors.map((e: any) => [e.row, e.code])).toEqual([
      [3, 'invalid_date'],
      [4, 'profile_not_found'],
      [5, 'validation_error'],
    ]);
    // The text rule's message is the one POST /v1/posts gives for the same body.
    const direct = await env.request(t.apiKey, 'POST', '/v1/posts', {
      content: 'x'.repeat(301),
      scheduledFor: '2026-03-10T09:00:00Z',
      platforms: [{ platform: 'bluesky', accountId: bsky }],
    });
    expect(direct.status).toBe(400);
    expect(res.body.errors[2].error).toBe(direct.body.error);

    const [first, second] = res.body.posts;
    expect(first.content).toBe('Launch; day "one"\nsee you');
    // 02:30 does not exist on 8 March 2026 in New York: shifted forward by the gap, as POST /v1/posts does.
    expect(first.scheduledFor).toBe('2026-03-08T07:30:00.000Z');
    expect(first.status).toBe('scheduled');
    expect(first.mediaItems).toEqual([{ url: 'https://cdn.example.com/a.png' }]);
    expect(first.platforms.map((p: any) => [p.platform, p.accountId._id, p.customContent])).toEqual([
      ['bluesky', bsky, undefined],
      ['telegram', tg, 'Telegram words'],
    ]);
    expect(second.platforms.map((p: any) => p.accountId._id)).toEqual([tg]);
    const stored = await listPosts(t.apiKey);
    expect(stored.map((p: any) => p._id)).toEqual([first._id, second._id]);
  });

  it('dry run: the same answer, every bad row by number, and nothing stored anywhere', async () => {
    const t = await createTenant(env);
    await t.account('telegram');
    const rows = Array.from({ length: 40 }, (_, i) => {
      const row = i + 1;
      if (row % 10 === 0) return `Row ${row},telegram,${t.profileId},not a time`;
      return `Row ${row},telegram,${t.profileId},2026-04-01T10:00:00Z`;
    });
    // Row 41 repeats row 1: the same content to the same account within 24 hours.
    rows.push(`Row 1,telegram,${t.profileId},2026-04-01T10:00:00Z`);
    const csv = `content,platforms,profiles,scheduledFor\n${rows.join('\n')}\n`;
    const before = await countRows(env.ctx);
    const dry = await upload(t.apiKey, csv, { query: '?dryRun=true' });
    expect(changedTables(before, await countRows(env.ctx))).toEqual({});
    expect(dry.status).toBe(207);
    expect(dry.body).toMatchObject({ dryRun: true, totalRows: 41, created: 36, failed: 5, posts: [] });
    expect(dry.body.errors.map((e: any) => e.row)).toEqual([10, 20, 30, 40, 41]);
    expect(dry.body.errors[4].code).toBe('duplicate_content');

    const real = await upload(t.apiKey, csv);
    expect(real.body.errors).toEqual(dry.body.errors);
    expect(real.body).toMatchObject({ dryRun: false, created: 36, failed: 5 });
    expect((await env.request(t.apiKey, 'GET', '/v1/posts?limit=1')).body.pagination.total).toBe(36);
    // Uploading the same file again creates nothing twice: every scheduled row is now a duplicate.
    const again = await upload(t.apiKey, csv);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ success: false, created: 0, failed: 41 });
    expect(new Set(again.body.errors.map((e: any) => e.code))).toEqual(new Set(['duplicate_content', 'invalid_date']));
  });

  it('takes dryRun as a form field too', async () => {
    const t = await createTenant(env);
    await t.account('telegram');
    const form = multipartBody([
      { name: 'dryRun', content: 'true' },
      {
        name: 'file',
        filename: 'p.csv',
        content: `content,platforms,profiles,publish_now\nNow,telegram,${t.profileId},true\n`,
      },
    ]);
    const res = await env.app.inject({
      method: 'POST',
      url: '/v1/posts/bulk-upload',
      headers: { authorization: `Bearer ${t.apiKey}`, ...form.headers },
      payload: form.payload,
    });
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ success: true, dryRun: true, created: 1, failed: 0, posts: [] });
    expect(await listPosts(t.apiKey)).toEqual([]);
  });

  it('keeps a row all or nothing: one bad target stores nothing of its row', async () => {
    const t = await createTenant(env);
    const bsky = await t.account('bluesky');
    const tg = await t.account('telegram');
    // 301 characters: over Bluesky's 300, within Telegram's 4,096.
    const csv = `content,accounts,schedule_time\n${'y'.repeat(301)},${tg} ${bsky},2026-04-01T10:00:00Z\nFine,${tg},2026-04-01T10:00:00Z\n`;
    const before = await countRows(env.ctx);
    const res = await upload(t.apiKey, csv);
    expect(res.body).toMatchObject({ created: 1, failed: 1 });
    expect(res.body.errors[0]).toMatchObject({ row: 1, code: 'validation_error' });
    // One post, its one target, its publish job and its post.scheduled event: nothing of row 1.
    expect(changedTables(before, await countRows(env.ctx))).toMatchObject({
      post: [before.post, before.post + 1],
      post_target: [before.post_target, before.post_target + 1],
    });
  });

  it('applies the plan: 20 posts a month on Free, the rest refused with post_limit_reached, in row order', async () => {
    const t = await createTenant(env, { plan: 'free' });
    const rows = Array.from({ length: 25 }, (_, i) => `Draft ${i + 1},true`);
    const csv = `content,is_draft,accounts\n${rows.map((r) => `${r},`).join('\n')}\n`;
    const dry = await upload(t.apiKey, csv, { query: '?dryRun=true' });
    expect(dry.body.errors.map((e: any) => [e.row, e.code])).toEqual(
      [21, 22, 23, 24, 25].map((r) => [r, 'post_limit_reached']),
    );
    const real = await upload(t.apiKey, csv);
    expect(real.status).toBe(207);
    expect(real.body).toMatchObject({ created: 20, failed: 5 });
    expect(real.body.posts.map((p: any) => p.content)).toEqual(rows.slice(0, 20).map((r) => r.split(',')[0]));
  });

  it("keeps a profile-scoped key inside its profiles: another profile's name, id or account is not found", async () => {
    const t = await createTenant(env);
    await t.account('telegram');
    const other = (await env.request(t.apiKey, 'POST', '/v1/profiles', { name: 'Hidden brand' })).body.profile._id;
    const hiddenAccount = await t.account('telegram', { profileId: other });
    const key = (
      await env.request(t.apiKey, 'POST', '/v1/api-keys', {
        name: 'scoped',
        scope: 'profiles',
        profileIds: [t.profileId],
      })
    ).body.apiKey.key;
    const csv =
      'content,platforms,profiles,accounts,publish_now\n' +
      `A,telegram,${other},,true\n` +
      `B,telegram,Hidden brand,,true\n` +
      `C,,,${hiddenAccount},true\n` +
      `D,telegram,${t.profileId},,true\n`;
    const res = await upload(key, csv);
    expect(res.body.errors.map((e: any) => [e.row, e.code])).toEqual([
      [1, 'profile_not_found'],
      [2, 'profile_not_found'],
      [3, 'account_not_found'],
    ]);
    expect(res.body.created).toBe(1);
  });

  it('replays the same upload with the same Idempotency-Key, and refuses the key with another file', async () => {
    const t = await createTenant(env);
    await t.account('telegram');
    const csv = `content,platforms,profiles,schedule_time\nOnce,telegram,${t.profileId},2026-04-01T10:00:00Z\n`;
    const headers = { 'idempotency-key': 'bulk-1' };
    const first = await upload(t.apiKey, csv, { headers });
    const second = await upload(t.apiKey, csv, { headers });
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toEqual(first.body);
    expect((await listPosts(t.apiKey)).length).toBe(1);
    const other = await upload(t.apiKey, csv.replace('Once', 'Other'), { headers });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('idempotency_key_mismatch');
  });

  it('is reachable through the official client (multipart built by the SDK, dryRun in the query)', async () => {
    const t = await createTenant(env);
    await t.account('telegram');
    const csv = `content,platforms,profiles,schedule_time\nVia SDK,telegram,${t.profileId},2026-04-01T10:00:00Z\n`;
    const { data, response } = await t.sdk.posts.bulkUploadPosts({
      body: { file: new Blob([csv], { type: 'text/csv' }) },
      query: { dryRun: true },
    });
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ success: true, totalRows: 1, created: 1, dryRun: true });
  });

  it('refuses a file it cannot read as a whole, in the envelope, storing nothing', async () => {
    const t = await createTenant(env);
    const head = 'content,platforms,profiles,schedule_time\n';
    const before = await countRows(env.ctx);
    const cases: [string | Buffer, number, string][] = [
      [`${head}"never closed,telegram,${t.profileId},2026-04-01T10:00:00Z\n`, 400, 'invalid_csv'],
      ['content,shedule_time\nx,2026-04-01T10:00:00Z\n', 400, 'csv_unknown_column'],
      ['content,schedule_time\nx,2026-04-01T10:00:00Z\n', 400, 'csv_missing_column'],
      [head, 400, 'csv_empty'],
      ['', 400, 'csv_empty'],
      [head + `x,telegram,${t.profileId},2026-04-01T10:00:00Z\n`.repeat(5001), 400, 'too_many_rows'],
      [head + '\n'.repeat(1_000_000), 400, 'too_many_lines'],
      [Buffer.from([0x63, 0x6f, 0xff, 0xfe, 0x0a]), 400, 'csv_not_utf8'],
      [Buffer.from('\ufffec\u0000', 'utf16le'), 400, 'csv_not_utf8'],
      [Buffer.alloc(16 * 1024 * 1024 + 1, 'a'), 413, 'file_too_large'],
    ];
    for (const [csv, status, code] of cases) {
      const res = await upload(t.apiKey, csv);
      expect([res.status, res.body.code]).toEqual([status, code]);
      expect(res.body.error).toEqual(expect.any(String));
    }
    const send = (payload: string | Buffer, headers: Record<string, string>) =>
      env.app.inject({
        method: 'POST',
        url: '/v1/posts/bulk-upload',
        headers: { authorization: `Bearer ${t.apiKey}`, ...headers },
        payload,
      });
    const json = await send('{"file":"content"}', { 'content-type': 'application/json' });
    expect([json.statusCode, JSON.parse(json.body).code]).toEqual([415, 'unsupported_media_type']);
    const none = await send('', {});
    expect([none.statusCode, JSON.parse(none.body).code]).toEqual([400, 'file_required']);
    const twoFiles = multipartBody([
      { name: 'file', filename: 'a.csv', content: head },
      { name: 'file', filename: 'b.csv', content: head },
    ]);
    const two = await send(twoFiles.payload, twoFiles.headers);
    expect([two.statusCode, JSON.parse(two.body).code]).toEqual([400, 'too_many_files']);
    const truncated = csvForm(head);
    const cut = await send(truncated.payload.subarray(0, truncated.payload.length - 20), truncated.headers);
    expect([cut.statusCode, JSON.parse(cut.body).code]).toEqual([400, 'invalid_multipart']);
    const wrongField = multipartBody([{ name: 'csv', filename: 'a.csv', content: head }]);
    const wrong = await send(wrongField.payload, wrongField.headers);
    expect([wrong.statusCode, JSON.parse(wrong.body).code]).toEqual([400, 'unexpected_file_field']);
    const disagree = await upload(t.apiKey, head, { query: '?dryRun=false' });
    expect(disagree.status).toBe(400);
    expect(changedTables(before, await countRows(env.ctx))).toEqual({});
  });
});
