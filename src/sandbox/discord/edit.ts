import type { FastifyInstance, FastifyReply } from 'fastify';
import { hangUp, type SimulatorState } from '../types.js';
import { discordError, sendFault } from './errors.js';
import { BOT_ID, messageJson, worldOf, type SimMessage } from './store.js';

/*
 * Editing a message (https://discord.com/developers/docs/resources/message#edit-message): only its author
 * may change its content (403 50005 otherwise), the content keeps the 2,000-character limit of a new
 * message, and a message left with nothing to show is refused (50006); `edited_timestamp` is set and the
 * id stays. A webhook's message is edited through that webhook only
 * (https://discord.com/developers/docs/resources/webhook#edit-webhook-message): another webhook's or the
 * bot's message is an Unknown Message there. There is no time limit.
 */

const CONTENT_LIMIT = 2000;

export function registerMessageEdits(app: FastifyInstance, state: SimulatorState, now: () => Date): void {
  const world = () => worldOf(state);

  /** Applies the edit, or sends the refusal; null when refused. */
  const edit = (reply: FastifyReply, m: SimMessage, body: { content?: unknown }): SimMessage | null => {
    if (typeof body.content === 'string') {
      if ([...body.content].length > CONTENT_LIMIT) {
        discordError(reply, 400, 50035, 'Invalid Form Body', {
          content: {
            _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${CONTENT_LIMIT} or fewer in length.` }],
          },
        });
        return null;
      }
      if (!body.content && m.embeds.length === 0 && m.attachments.length === 0) {
        discordError(reply, 400, 50006, 'Cannot send an empty message');
        return null;
      }
      m.content = body.content;
    }
    m.editedAt = now().toISOString();
    const seen = state.posts.find((p) => p.id === m.id);
    if (seen) {
      seen.text = m.content;
      seen.extra = { ...seen.extra, edited: true };
    }
    return m;
  };

  app.patch('/channels/:channel_id/messages/:message_id', async (request, reply) => {
    const { channel_id, message_id } = request.params as { channel_id: string; message_id: string };
    const m = world().messages.get(message_id);
    if (!m || m.deleted || m.channel_id !== channel_id) return discordError(reply, 404, 10008, 'Unknown Message');
    if (m.author !== BOT_ID || m.webhook)
      return discordError(reply, 403, 50005, 'Cannot edit a message authored by another user');
    const fault = sendFault(state, 'publish', reply);
    if (fault === 'sent') return reply;
    if (!edit(reply, m, (request.body ?? {}) as { content?: unknown })) return reply;
    if (fault === 'ambiguous') return hangUp(reply);
    return messageJson(m, world());
  });

  app.patch('/webhooks/:webhook_id/:webhook_token/messages/:message_id', async (request, reply) => {
    const { webhook_id, webhook_token, message_id } = request.params as Record<string, string>;
    const hook = world().webhooks.get(webhook_id);
    if (!hook || hook.token !== webhook_token) return discordError(reply, 401, 50027, 'Invalid Webhook Token');
    const m = world().messages.get(message_id);
    if (!m || m.deleted || m.webhook?.id !== hook.id) return discordError(reply, 404, 10008, 'Unknown Message');
    const fault = sendFault(state, 'publish', reply);
    if (fault === 'sent') return reply;
    if (!edit(reply, m, (request.body ?? {}) as { content?: unknown })) return reply;
    if (fault === 'ambiguous') return hangUp(reply);
    return messageJson(m, world());
  });
}
