import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redditSimulator, SANDBOX_FLAIRS } from '../../src/sandbox/reddit/index.js';
import { startSandbox, type SandboxServer } from '../../src/sandbox/server.js';
import { pngBytes } from '../helpers/platform-io.js';

/*
 * The Reddit simulator against PRAW's recorded real traffic (reference/reddit, betamax cassettes): each
 * cassette's requests are replayed in order against the simulator (the recorded subreddit, asset ids,
 * upload locations and post ids replaced by the simulator's own as its answers hand them out), and each
 * answer is held to the recorded one: status, content type, rate-limit headers and the JSON (or XML)
 * shape. Things (`t3` posts, `t5` subreddits) may carry fewer keys than Reddit's, never other ones.
 */

const CASSETTES = join(import.meta.dirname, '..', 'fixtures', 'reddit');
const UA = 'test:herald-recorded:1.0 (by /u/herald_tests)';

interface Interaction {
  request: { method: string; uri: string; body: unknown; headers: Record<string, string[]> };
  response: { status: { code: number }; headers: Record<string, string[]>; body: { string?: string } | null };
}

const header = (headers: Record<string, string[]>, name: string) =>
  Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1][0] ?? null;
const bodyText = (b: unknown) =>
  typeof b === 'string'
    ? b
    : b && typeof b === 'object' && 'string' in b
      ? String((b as { string: string }).string)
      : '';

function cassette(name: string): Interaction[] {
  return JSON.parse(readFileSync(join(CASSETTES, `${name}.json`), 'utf8')).interactions;
}

function learnAll(): void {
  for (const file of readdirSync(CASSETTES).filter((f) => f.endsWith('.json'))) {
    for (const { response } of cassette(file.replace(/\.json$/, ''))) {
      const text = bodyText(response.body);
      if (text.startsWith('{') || text.startsWith('[')) learn(JSON.parse(text));
    }
  }
}

/** Keys of things the simulator fills only in part (Reddit's have over a hundred). */
const PARTIAL = /(children\[\]\.data|^\.data)$/;

/** Every key each path of a recorded JSON answer has, across all the cassettes (Reddit added keys over the years). */
const KNOWN = new Map<string, Set<string>>();
function learn(value: unknown, path = ''): void {
  if (Array.isArray(value)) return value.forEach((v) => learn(v, `${path}[]`));
  if (value === null || typeof value !== 'object') return;
  const keys = KNOWN.get(path) ?? new Set<string>();
  KNOWN.set(path, keys);
  for (const [k, v] of Object.entries(value)) {
    keys.add(k);
    learn(v, `${path}.${k}`);
  }
}

/**
 * Where `ours` differs in shape from `recorded` (empty when it matches): a key no recording has at that
 * place, a recorded key missing (things excepted), a different JSON type.
 */
function shapeDiff(recorded: unknown, ours: unknown, path = ''): string[] {
  if (recorded === null || ours === null) return [];
  if (Array.isArray(recorded)) {
    if (!Array.isArray(ours)) return [`${path}: array expected`];
    if (recorded.length === 0 || ours.length === 0)
      return path.endsWith('errors') && ours.length !== recorded.length ? [`${path}: ${JSON.stringify(ours)}`] : [];
    // Tuples (error triples) and lists alike: element by element as far as both go.
    return shapeDiff(recorded[0], ours[0], `${path}[]`);
  }
  if (typeof recorded === 'object') {
    if (typeof ours !== 'object' || Array.isArray(ours)) return [`${path}: object expected`];
    const r = recorded as Record<string, unknown>;
    const o = ours as Record<string, unknown>;
    const out: string[] = [];
    const partial = PARTIAL.test(path) && ('title' in r || 'display_name' in r);
    const known = KNOWN.get(path) ?? new Set(Object.keys(r));
    for (const k of Object.keys(o)) if (!known.has(k)) out.push(`${path}.${k}: in no recorded answer`);
    if (!partial) for (const k of Object.keys(r)) if (!(k in o)) out.push(`${path}.${k}: missing`);
    for (const k of Object.keys(r)) if (k in o) out.push(...shapeDiff(r[k], o[k], `${path}.${k}`));
    return out;
  }
  return typeof recorded === typeof ours ? [] : [`${path}: ${typeof ours} instead of ${typeof recorded}`];
}

const xmlElements = (xml: string) => [...xml.matchAll(/<([A-Za-z]+)>/g)].map((m) => m[1]);

let sandbox: SandboxServer;
let token: string;
let tokenAnswer: { status: number; type: string | null; body: Record<string, unknown> };
const base = () => `${sandbox.url}/sandbox/reddit`;

beforeAll(async () => {
  learnAll();
  sandbox = await startSandbox([redditSimulator()]);
  const redirect = 'http://127.0.0.1:9/cb';
  const consent = await fetch(
    `${base()}/api/v1/authorize?client_id=rec&response_type=code&state=s1&redirect_uri=${encodeURIComponent(redirect)}&duration=permanent&scope=identity%20submit%20read%20flair%20mysubreddits%20edit`,
    { redirect: 'manual' },
  );
  const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
  const res = await fetch(`${base()}/api/v1/access_token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from('rec:secret').toString('base64')}`,
      'user-agent': UA,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirect }),
  });
  tokenAnswer = {
    status: res.status,
    type: res.headers.get('content-type'),
    body: (await res.json()) as Record<string, unknown>,
  };
  token = String(tokenAnswer.body.access_token);
});
afterAll(async () => sandbox?.close());

/** Replays one cassette (after its token request) and returns every mismatch found. */
async function replay(name: string, sr: string, extraForm: Record<string, string> = {}): Promise<string[]> {
  const problems: string[] = [];
  const ids = new Map<string, string>();
  let lease: { action: string; fields: { name: string; value: string }[]; asset: string } | null = null;
  let lastPost: string | null = null;
  const swap = (text: string) => {
    let out = text.replaceAll('<TEST_SUBREDDIT>', sr);
    for (const [from, to] of ids) out = out.replaceAll(from, to);
    return out;
  };
  for (const [i, { request, response }] of cassette(name).entries()) {
    if (request.uri.includes('/api/v1/access_token')) continue;
    const where = `${name} #${i} ${request.method} ${new URL(request.uri).pathname}`;
    let res: Response;
    if (request.uri.includes('amazonaws.com')) {
      // The upload: the simulator's leased fields, then the file (the recorded bytes are the test's own image).
      const form = new FormData();
      for (const f of lease!.fields) form.append(f.name, f.value);
      form.append('file', new Blob([new Uint8Array(pngBytes(4000))]), 'test.png');
      res = await fetch(`http:${lease!.action}`, { method: 'POST', body: form, headers: { 'user-agent': UA } });
    } else {
      let path = swap(request.uri.replace('https://oauth.reddit.com', ''));
      if (path.startsWith('/comments/') && lastPost) path = path.replace(/\/comments\/[^/]+/, `/comments/${lastPost}`);
      let body: string | undefined = request.body ? bodyText(request.body) : undefined;
      const contentType = header(request.headers, 'content-type');
      if (body && contentType?.startsWith('application/x-www-form-urlencoded')) {
        const form = new URLSearchParams(body);
        for (const [k, v] of [...form]) form.set(k, swap(v));
        for (const [k, v] of Object.entries(extraForm)) if (form.has(k)) form.set(k, v);
        body = form.toString();
      } else if (body) body = swap(body);
      res = await fetch(`${base()}${path}`, {
        method: request.method,
        headers: {
          authorization: `bearer ${token}`,
          'user-agent': UA,
          ...(contentType ? { 'content-type': contentType } : {}),
        },
        body,
      });
    }
    const text = await res.text();
    const recordedText = bodyText(response.body);
    if (res.status !== response.status.code)
      problems.push(`${where}: status ${res.status}, recorded ${response.status.code} (${text.slice(0, 200)})`);
    const recordedType = header(response.headers, 'content-type');
    if (recordedType && res.headers.get('content-type') !== recordedType)
      problems.push(`${where}: content-type ${res.headers.get('content-type')}, recorded ${recordedType}`);
    for (const h of ['x-ratelimit-remaining', 'x-ratelimit-used', 'x-ratelimit-reset', 'location']) {
      if (header(response.headers, h) !== null && res.headers.get(h) === null)
        problems.push(`${where}: no ${h} header`);
    }
    if (recordedText.startsWith('<?xml')) {
      expect(xmlElements(text), where).toEqual(xmlElements(recordedText));
      continue;
    }
    const recorded = JSON.parse(recordedText);
    const ours = JSON.parse(text);
    problems.push(...shapeDiff(recorded, ours).map((p) => `${where}: ${p}`));
    // Later requests name what this answer handed out: map the recorded ids to the simulator's.
    if (recorded.asset) {
      lease = { action: ours.args.action, fields: ours.args.fields, asset: ours.asset.asset_id };
      // The upload's Location (the submission's url) first: it contains the asset id.
      const recordedKey = recorded.args.fields.find((f: { name: string }) => f.name === 'key').value;
      ids.set(
        `https://reddit-uploaded-media.s3-accelerate.amazonaws.com/${recordedKey}`,
        `${base()}/s3/${ours.asset.asset_id}`,
      );
      ids.set(recorded.asset.asset_id, ours.asset.asset_id);
    }
    if (ours.json?.data?.id) lastPost = String(ours.json.data.id).replace(/^t3_/, '');
    else if (ours.json?.data?.websocket_url) lastPost = [...sandbox.state('reddit').posts].pop()!.id;
  }
  return problems;
}

describe('the Reddit simulator answers in the shapes of the recorded traffic', () => {
  it('the token endpoint: recorded keys and types, plus the refresh token of a permanent grant', () => {
    const recorded = cassette('TestSubreddit.test_submit__selftext')[0].response;
    expect(tokenAnswer.status).toBe(recorded.status.code);
    expect(tokenAnswer.type).toBe(header(recorded.headers, 'content-type'));
    const body = JSON.parse(bodyText(recorded.body));
    expect(shapeDiff(body, tokenAnswer.body).filter((p) => !p.startsWith('.refresh_token'))).toEqual([]);
    expect(tokenAnswer.body).toMatchObject({ token_type: 'bearer', refresh_token: expect.any(String) });
  });

  it.each([
    ['TestSubreddit.test_submit__selftext', 'test'],
    ['TestSubreddit.test_submit__url', 'test'],
    ['TestSubreddit.test_submit_image', 'test'],
    ['TestSubreddit.test_submit_image__without_websockets', 'test'],
    ['TestSubreddit.test_submit_gallery', 'test'],
  ])('%s replays with the same statuses, content types, headers and shapes', async (name, sr) => {
    expect(await replay(name, sr)).toEqual([]);
  });

  it('TestSubreddit.test_submit__flair replays against flairrequired with one of its flair ids', async () => {
    expect(
      await replay('TestSubreddit.test_submit__flair', 'flairrequired', { flair_id: SANDBOX_FLAIRS[0].id }),
    ).toEqual([]);
    const post = [...sandbox.state('reddit').posts].pop()!;
    expect(post).toMatchObject({
      destination: 'flairrequired',
      extra: { flairId: SANDBOX_FLAIRS[0].id, flairText: 'Test flair text' },
    });
  });

  it('refuses what the recorded requests would be refused for: no flair in flairrequired, an upload URL never uploaded', async () => {
    const submit = (form: Record<string, string>) =>
      fetch(`${base()}/api/submit`, {
        method: 'POST',
        headers: {
          authorization: `bearer ${token}`,
          'user-agent': UA,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({
          api_type: 'json',
          resubmit: 'True',
          sendreplies: 'True',
          title: 'Test Title',
          ...form,
        }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    const before = sandbox.state('reddit').posts.length;
    expect(await submit({ kind: 'self', sr: 'flairrequired', text: 'x' })).toEqual({
      status: 200,
      body: { json: { errors: [['SUBMIT_VALIDATION_FLAIR_REQUIRED', 'Your post must contain post flair.', 'flair']] } },
    });
    const image = await submit({
      kind: 'image',
      sr: 'test',
      url: `${base()}/s3/${createHash('md5').update(randomBytes(4)).digest('hex').slice(0, 13)}`,
    });
    expect(image.body.json.errors).toEqual([['BAD_URL', 'you should check that url', 'url']]);
    expect(sandbox.state('reddit').posts.length).toBe(before);
  });

  it('blocks a generic User-Agent and a token request without Basic client credentials', async () => {
    const generic = await fetch(`${base()}/api/v1/me`, {
      headers: { authorization: `bearer ${token}`, 'user-agent': 'node' },
    });
    expect(generic.status).toBe(403);
    const noBasic = await fetch(`${base()}/api/v1/access_token`, {
      method: 'POST',
      headers: { 'user-agent': UA, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=refresh_token&refresh_token=x&client_id=rec',
    });
    expect(noBasic.status).toBe(401);
  });
});
