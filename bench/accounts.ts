import { api, connectTelegramChat, freePort, hasWrk, startBare, startHerald, wrk, type BenchResult } from './lib.js';

/**
 * Issue 4: the accounts API and the connect flow, in SANDBOX=1 mode (simulators in-process).
 * - GET /v1/accounts with 20 connected Telegram chats, against bare Fastify;
 * - full OAuth connects per second (GET /v1/connect/linkedin, then the auto-approving consent page,
 *   the callback's code exchange and profile read, the account save and its log), sequentially.
 */
export default async function accountsBench(): Promise<BenchResult[]> {
  if (!hasWrk()) throw new Error('wrk is not installed (apt-get install -y wrk)');
  const bare = await startBare();
  let bareRes;
  try {
    await wrk({ url: `${bare.url}/v1/profiles`, durationSec: 2 });
    bareRes = await wrk({ url: `${bare.url}/v1/profiles` });
  } finally {
    await bare.stop();
  }
  const sandboxPort = await freePort();
  const herald = await startHerald({ SANDBOX: '1', SANDBOX_PORT: String(sandboxPort) });
  try {
    const profileId = (await api(herald, 'POST', '/v1/profiles', { name: 'Bench' })).profile._id;
    for (let i = 0; i < 20; i++) await connectTelegramChat(herald, sandboxPort, profileId, `-100${1000000000 + i}`);
    const headers = { authorization: `Bearer ${herald.apiKey}` };
    await wrk({ url: `${herald.url}/v1/accounts`, headers, durationSec: 2 });
    const list = await wrk({ url: `${herald.url}/v1/accounts`, headers });
    if (list.non2xx > 0) throw new Error(`${list.non2xx} non-2xx answers to GET /v1/accounts`);

    const connects = 30;
    const started = performance.now();
    for (let i = 0; i < connects; i++) {
      const { authUrl } = await api(herald, 'GET', `/v1/connect/linkedin?profileId=${profileId}`);
      const res = await fetch(authUrl);
      if (res.status !== 200) throw new Error(`connect ${i} ended with ${res.status}`);
      await res.text();
    }
    const perSecond = connects / ((performance.now() - started) / 1000);
    const ratio = list.rps / bareRes.rps;
    return [
      { name: 'bare fastify GET /v1/profiles', value: Math.round(bareRes.rps), unit: 'req/s' },
      { name: 'herald GET /v1/accounts (20 accounts)', value: Math.round(list.rps), unit: 'req/s' },
      { name: 'herald GET /v1/accounts p99', value: Number(list.p99Ms.toFixed(2)), unit: 'ms' },
      { name: 'herald GET /v1/accounts / bare', value: Number(ratio.toFixed(3)), unit: 'ratio' },
      { name: 'OAuth connects through the sandbox (sequential)', value: Number(perSecond.toFixed(1)), unit: 'conn/s' },
    ];
  } finally {
    await herald.stop();
  }
}
