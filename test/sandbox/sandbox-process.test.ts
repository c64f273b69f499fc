import { Zernio } from '@getlatedev/node';
import { afterAll, describe, expect, it } from 'vitest';
import { processDatabase, runTs, startServer, waitFor, type Proc } from '../helpers/processes.js';
import { freePort } from '../helpers/sandbox-env.js';

const procs: Proc[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  for (const c of cleanups) await c();
});

describe('herald sandbox (standalone simulators)', () => {
  it('serves every simulator until SIGINT', async () => {
    const p = runTs('src/cli.ts', ['sandbox', '--port', '0'], {});
    procs.push(p);
    let url = '';
    await waitFor(
      () => {
        const m = /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(p.stderr());
        if (m) url = m[1];
        if (p.child.exitCode !== null) throw new Error(`sandbox exited: ${p.stderr()}`);
        return Boolean(m);
      },
      60_000,
      'the sandbox to listen',
    );
    const list = (await (await fetch(`${url}/sandbox`)).json()) as { simulators: string[] };
    expect(list.simulators).toContain('telegram');
    const me = (await (
      await fetch(`${url}/sandbox/telegram/bot1000001:SANDBOX_herald_bot_token_000000/getMe`)
    ).json()) as any;
    expect(me.ok).toBe(true);
    p.child.kill('SIGINT');
    expect(await p.exited).toBe(0);
  }, 120_000);
});

describe('SANDBOX=1 (simulators inside Herald)', () => {
  it('walks the README flow: key, profile, connect Telegram and an OAuth platform, publish, see it on _inspect', async () => {
    const db = processDatabase();
    cleanups.push(db.cleanup);
    const [port, sandboxPort] = [await freePort(), await freePort()];
    const server = await startServer({
      ...db.env,
      PORT: String(port),
      SANDBOX: '1',
      SANDBOX_PORT: String(sandboxPort),
    });
    procs.push(server);
    const apiKey = /\b(sk_[0-9a-f]{64})\b/.exec(server.stdout())?.[1];
    expect(apiKey).toBeTruthy();
    const sandbox = `http://127.0.0.1:${sandboxPort}`;
    const sdk = new Zernio({ apiKey: apiKey!, baseURL: `http://127.0.0.1:${port}` });

    const profileId = ((await sdk.profiles.createProfile({ body: { name: 'Sandbox demo' } })).data as any).profile._id;
    // The chat's administrator posts an access code in it: the proof of control a direct connect asks for.
    const code = ((await sdk.connect.telegram.getTelegramConnectStatus({ query: { profileId } })).data as any).code;
    await fetch(`${sandbox}/sandbox/telegram/_updates`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chatId: '@herald_demo', text: code }),
    });
    const telegram = (
      (await sdk.connect.telegram.initiateTelegramConnect({ body: { chatId: '@herald_demo', profileId } })).data as any
    ).account;
    expect(telegram).toMatchObject({ platform: 'telegram', username: 'herald_demo' });

    // OAuth: a plain GET of authUrl that follows redirects ends with the account connected.
    const { authUrl } = (
      await sdk.connect.getConnectUrl({ path: { platform: 'linkedin' }, query: { profileId } as any })
    ).data as any;
    expect(authUrl.startsWith(`${sandbox}/sandbox/linkedin/`)).toBe(true);
    const consent = await fetch(authUrl);
    expect(consent.status).toBe(200);
    const accounts = ((await sdk.accounts.listAccounts()).data as any).accounts;
    expect(accounts.map((a: any) => a.platform).sort()).toEqual(['linkedin', 'telegram']);

    await sdk.posts.createPost({
      body: {
        content: 'Hello from the Herald sandbox',
        platforms: [{ platform: 'telegram', accountId: telegram._id }],
        publishNow: true,
      } as any,
    });
    let posts: any[] = [];
    await waitFor(
      async () => {
        posts = ((await (await fetch(`${sandbox}/sandbox/telegram/_inspect`)).json()) as any).posts;
        return posts.length > 0;
      },
      30_000,
      'the post to reach the Telegram simulator',
    );
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({
      text: 'Hello from the Herald sandbox',
      extra: { chatId: String(posts[0].author) },
    });

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 180_000);
});
