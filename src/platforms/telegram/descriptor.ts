import type { PlatformDescriptor } from '../descriptor.js';
import { MINUTE, SECOND } from '../limits.js';
import { createTelegramAdapter } from './index.js';
import { TELEGRAM_TOOLS } from './settings.js';
import { checkTarget, mediaLimits, PLATFORM_SPECIFIC_DATA, TEXT } from './rules.js';

export const telegram: PlatformDescriptor<'telegram'> = {
  id: 'telegram',
  name: 'Telegram',
  display: { label: 'Telegram', glyph: 'T', colour: '#1b7bb0' },
  // Link previews under a message; pictures whole: a common value without a reference.
  preview: { card: true },
  connectForm: { chatLabel: "Chat id or @channel (Herald's bot must be an administrator)" },
  text: [TEXT],
  platformSpecificData: PLATFORM_SPECIFIC_DATA,
  check: checkTarget,
  mediaLimits,
  accountMetadata: ['chatId', 'chatType', 'chatTitle'],
  scopes: [],
  capabilities: { connect: 'bot', editText: true, unpublish: true },
  limits: [
    // https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this: about 30 messages
    // a second in all for one bot, no more than one a second to one chat, and 20 a minute to one group.
    // The destination is the chat (an account here is a chat; two tenants may connect the same one).
    {
      scope: 'app',
      limit: 30,
      windowMs: SECOND,
      cite: 'https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this',
    },
    {
      scope: 'destination',
      limit: 1,
      windowMs: SECOND,
      destination: chatOf,
      cite: 'https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this',
    },
    {
      scope: 'destination',
      limit: 20,
      windowMs: MINUTE,
      destination: chatOf,
      when: (m) => m.chatType === 'group' || m.chatType === 'supergroup',
      cite: 'https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this',
    },
  ],
  tools: TELEGRAM_TOOLS,
  createAdapter: createTelegramAdapter,
};

/** The chat a Telegram account posts to (its metadata's chatId). */
function chatOf(metadata: Record<string, unknown>): string | null {
  return metadata.chatId === undefined || metadata.chatId === null ? null : String(metadata.chatId);
}
