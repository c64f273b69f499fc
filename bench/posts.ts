import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import { saveConnectedAccount } from '../src/domain/accounts/save-account.js';
import {
  api,
  measureBare,
  startBare,
  startHerald,
  wrk,
  type BenchResult,
  type RunningServer,
  type WrkResult,
} from './lib.js';

/**
 * Issue 3: POST /v1/posts (scheduled, two targets) on Herald vs bare Fastify, same machine, one after the
 * other. Each request carries different text (a counter in the wrk script), so the 24-hour duplicate
 * check passes and every request writes a post, two targets, two publish jobs and a post.scheduled event.
 */
export default async function postsBench(): Promise<BenchResult[]> {
  const bareRes = await measureBare();
  const barePost = await measureBarePost();
  const herald = await startHerald();
  let heraldRes;
  let dryRun;
  let stored = 0;
  try {
    const accounts = await connectAccounts(herald);
    const headers = { authorization: `Bearer ${herald.apiKey}`, 'content-type': 'application/json' };
    const template = postTemplate(accounts);
    await wrkCreatePosts(`${herald.url}/v1/posts`, headers, template, 2, 'w');
    heraldRes = await wrkCreatePosts(`${herald.url}/v1/posts`, headers, template, 8, 'm');
    if (heraldRes.non2xx > 0) throw new Error(`${heraldRes.non2xx} non-2xx responses from Herald`);
    stored = (await api(herald, 'GET', '/v1/posts?limit=1')).pagination.total;
    // The same requests to the dry run: authentication, body schema and the content rules of every
    // target, nothing read or written in the database, a small answer. What a POST costs before storing.
    dryRun = await wrkCreatePosts(`${herald.url}/v1/tools/validate/post`, headers, template, 8, 'v');
    if (dryRun.non2xx > 0) throw new Error(`${dryRun.non2xx} non-2xx responses from the dry run`);
  } finally {
    await herald.stop();
  }
  const ratio = heraldRes.rps / bareRes.rps;
  return [
    { name: 'bare fastify GET /v1/profiles', value: Math.round(bareRes.rps), unit: 'req/s' },
    {
      name: 'bare fastify POST /v1/posts (same bodies, parsed, answered from memory)',
      value: Math.round(barePost.rps),
      unit: 'req/s',
    },
    { name: 'herald POST /v1/posts (scheduled, 2 targets)', value: Math.round(heraldRes.rps), unit: 'req/s' },
    { name: 'herald POST /v1/posts p99', value: Number(heraldRes.p99Ms.toFixed(2)), unit: 'ms' },
    { name: 'posts stored during the run', value: stored, unit: 'posts' },
    {
      name: 'herald POST /v1/posts / bare',
      value: Number(ratio.toFixed(3)),
      unit: 'ratio',
      goal: '>= 0.25',
      pass: ratio >= 0.25,
    },
    {
      name: 'herald POST /v1/posts / bare POST (like for like)',
      value: Number((heraldRes.rps / barePost.rps).toFixed(3)),
      unit: 'ratio',
    },
    {
      name: 'herald POST /v1/tools/validate/post (same bodies, nothing stored)',
      value: Math.round(dryRun.rps),
      unit: 'req/s',
    },
    {
      name: 'herald dry run / bare (what POST could reach storing nothing)',
      value: Number((dryRun.rps / bareRes.rps).toFixed(3)),
      unit: 'ratio',
    },
  ];
}

/** The body of every measured request but its text: scheduled in a time zone, to a twitter and a bluesky account. */
function postTemplate(accountIds: string[]): Record<string, unknown> {
  return {
    scheduledFor: '2099-01-15T09:00:00',
    timezone: 'Europe/Berlin',
    platforms: [
      { platform: 'twitter', accountId: accountIds[0] },
      { platform: 'bluesky', accountId: accountIds[1] },
    ],
  };
}

/**
 * Bare Fastify answering the same POST requests (same bodies and headers, JSON parsed, a fixed answer):
 * the like-for-like baseline. The goal above is measured against the GET baseline, as every HTTP ratio.
 */
async function measureBarePost(): Promise<WrkResult> {
  const bare = await startBare();
  try {
    const headers = { authorization: 'Bearer sk_bench', 'content-type': 'application/json' };
    const template = postTemplate(['6745f1c2a9e0b3d4c5f60718', '6745f1c2a9e0b3d4c5f60719']);
    await wrkCreatePosts(`${bare.url}/v1/posts`, headers, template, 2, 'w');
    return await wrkCreatePosts(`${bare.url}/v1/posts`, headers, template, 8, 'm');
  } finally {
    await bare.stop();
  }
}

/** Connects a twitter and a bluesky account to the server's owner through the real account service. */
async function connectAccounts(herald: RunningServer): Promise<string[]> {
  const profile = (await api(herald, 'POST', '/v1/profiles', { name: 'Bench' })).profile;
  const ctx = await createContext(loadConfig({ DATA_DIR: herald.dataDir, LOG_LEVEL: 'silent' }), {
    log: pino({ level: 'silent' }),
  });
  try {
    const ids: string[] = [];
    for (const platform of ['twitter', 'bluesky'] as const) {
      const { account } = await saveConnectedAccount(ctx, {
        tenantId: profile.userId,
        profileId: profile._id,
        platform,
        profile: { platformUserId: `bench-${platform}`, username: `bench_${platform}` },
        tokens: { accessToken: 'bench-token' },
      });
      ids.push(account.account_id);
    }
    return ids;
  } finally {
    await ctx.close();
  }
}

/** wrk with a body that differs per request, so the 24-hour duplicate check lets every post through. */
function wrkCreatePosts(
  url: string,
  headers: Record<string, string>,
  template: Record<string, unknown>,
  durationSec: number,
  tag: string,
): Promise<WrkResult> {
  const [before, after] = JSON.stringify({ ...template, content: '@@' }).split('"@@"');
  const requestLua = [
    'local n = 0',
    `request = function() n = n + 1; return wrk.format(nil, nil, nil, ${JSON.stringify(before)} .. '"bench post ${tag}' .. n .. '"' .. ${JSON.stringify(after)}) end`,
  ].join('\n');
  return wrk({ url, method: 'POST', headers, durationSec, requestLua });
}
