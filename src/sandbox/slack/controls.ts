import type { FastifyInstance } from 'fastify';
import type { SimulatorState } from '../types.js';
import { nextTs, slackStore } from './store.js';

/**
 * `POST /_inbound` (SANDBOX.md) for Slack: `{kind: "message", account, text, from?: {id?, name?}}` is a
 * person writing in the connected channel. `account` is the channel id or name (`general`,
 * `#general`) as Herald shows it in `platformUserId` or `username`. The message is stored where
 * conversations.history finds it; answers `{id: ts, channel}`. Slack has no comments or reviews.
 */
export function registerSlackControls(app: FastifyInstance, state: SimulatorState, now: () => Date): void {
  app.post('/_inbound', async (request, reply) => {
    const body = (request.body ?? {}) as {
      kind?: unknown;
      account?: unknown;
      text?: unknown;
      from?: { id?: unknown; name?: unknown };
    };
    if (body.kind !== 'message')
      return reply
        .status(400)
        .send({ error: 'the Slack simulator takes kind "message" only (Slack has no comments or reviews)' });
    if (typeof body.account !== 'string' || !body.account)
      return reply.status(400).send({ error: 'account (a channel id or name) is required' });
    if (typeof body.text !== 'string' || !body.text) return reply.status(400).send({ error: 'text is required' });
    const store = slackStore(state);
    const name = body.account.replace(/^#/, '');
    const ws = store.workspaces.find((w) => w.channels.some((c) => c.id === body.account || c.name === name));
    const channel = ws?.channels.find((c) => c.id === body.account || c.name === name);
    if (!ws || !channel)
      return reply.status(400).send({ error: `no channel ${body.account} in the simulated workspaces` });
    const person = ws.users.find((u) => u.id === body.from?.id || u.name === body.from?.name) ?? ws.users[0];
    const ts = nextTs(store, now());
    store.messages.push({ ts, channel: channel.id, team: ws.id, text: body.text, user: person.id, botId: null });
    return { id: ts, channel: channel.id };
  });
}
