import { api, measureBare, startHerald, wrk, type BenchResult } from './lib.js';

/** Issue 2: authenticated GET /v1/profiles on Herald vs bare Fastify, same machine, one after the other. */
export default async function httpBench(): Promise<BenchResult[]> {
  const bareRes = await measureBare();
  // The rate limiter stays on and counts every request; its limit is scaled up so it never blocks.
  const herald = await startHerald({ RATE_LIMIT_DISABLED: '0', RATE_LIMIT_SCALE: '1000000' });
  let heraldRes;
  try {
    await api(herald, 'POST', '/v1/profiles', { name: 'Bench' });
    const headers = { authorization: `Bearer ${herald.apiKey}` };
    await wrk({ url: `${herald.url}/v1/profiles`, headers, durationSec: 2 });
    heraldRes = await wrk({ url: `${herald.url}/v1/profiles`, headers });
    if (heraldRes.non2xx > 0) throw new Error(`${heraldRes.non2xx} non-2xx responses from Herald`);
  } finally {
    await herald.stop();
  }
  const ratio = heraldRes.rps / bareRes.rps;
  return [
    { name: 'bare fastify GET /v1/profiles', value: Math.round(bareRes.rps), unit: 'req/s' },
    { name: 'bare fastify p99', value: Number(bareRes.p99Ms.toFixed(2)), unit: 'ms' },
    { name: 'herald GET /v1/profiles (auth, rate limit, SELECT)', value: Math.round(heraldRes.rps), unit: 'req/s' },
    { name: 'herald p99', value: Number(heraldRes.p99Ms.toFixed(2)), unit: 'ms' },
    { name: 'herald / bare', value: Number(ratio.toFixed(3)), unit: 'ratio', goal: '>= 0.50', pass: ratio >= 0.5 },
  ];
}
