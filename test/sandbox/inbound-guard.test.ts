import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allSimulators } from '../../src/sandbox/index.js';
import { buildSandboxApp } from '../../src/sandbox/server.js';

/*
 * `POST /_inbound` takes only an item the platform would have accepted (src/sandbox/inbound-guard.ts):
 * deeply nested JSON and a text that is not a string made the Reddit and Instagram simulators answer
 * 500, and, once stored, broke the reads of six simulators for every later poll (issue 36, hostile data
 * from platforms). Every simulator now answers them 400, before its own handler runs.
 */

let app: Awaited<ReturnType<typeof buildSandboxApp>>['app'];
beforeAll(async () => {
  ({ app } = await buildSandboxApp(allSimulators(), () => 'http://127.0.0.1:1'));
});
afterAll(async () => app?.close());

const DEEP = 5_000;
const deepJson = '{"a":'.repeat(DEEP) + '1' + '}'.repeat(DEEP);

async function inbound(platform: string, payload: string) {
  const res = await app.inject({
    method: 'POST',
    url: `/sandbox/${platform}/_inbound`,
    headers: { 'content-type': 'application/json' },
    payload,
  });
  return { status: res.statusCode, error: String(res.json().error ?? ''), body: res.body };
}

describe('POST /_inbound on every simulator', () => {
  it('refuses deeply nested JSON, a text that is not a string and a body that is not an object with a 400', async () => {
    const wrong: string[] = [];
    for (const sim of allSimulators()) {
      const cases: [string, string, RegExp][] = [
        ['deep author', `{"kind":"message","account":"x","text":"hi","from":${deepJson}}`, /nests at most 4 levels/],
        ['deep text', `{"kind":"message","account":"x","text":${deepJson}}`, /text must be a string/],
        ['text a number', '{"kind":"message","account":"x","text":5}', /text must be a string/],
        ['an array', '[1,2]', /JSON object/],
      ];
      for (const [name, payload, says] of cases) {
        const res = await inbound(sim.platform, payload);
        if (res.status !== 400 || !says.test(res.error))
          wrong.push(`${sim.platform} ${name}: ${res.status} ${res.error.slice(0, 120)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("refuses a Bluesky message over the chat lexicon's 1,000 graphemes, naming it, and takes one at the limit", async () => {
    const body = (text: string) => JSON.stringify({ kind: 'message', account: 'nobody.bsky.sandbox', text });
    const over = await inbound('bluesky', body('é'.repeat(1001)));
    expect([over.status, over.error]).toEqual([
      400,
      "text is 1001 graphemes: Bluesky's chat lexicon (chat.bsky.convo.defs#messageInput) takes at most 1000",
    ]);
    // At the limit the guard lets it through: the simulator's own handler answers (here, the unknown account).
    const at = await inbound('bluesky', body('é'.repeat(1000)));
    expect(at.status).toBe(400);
    expect(at.body).toContain('nobody.bsky.sandbox');
  });
});
