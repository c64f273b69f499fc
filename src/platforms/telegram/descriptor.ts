import type { PlatformDescriptor } from '../descriptor.js';
import { createTelegramAdapter } from './index.js';
import { TELEGRAM_TOOLS } from './settings.js';
import { checkTarget, mediaLimits, PLATFORM_SPECIFIC_DATA, TEXT } from './rules.js';

export const telegram: PlatformDescriptor<'telegram'> = {
  id: 'telegram',
  name: 'Telegram',
  text: [TEXT],
  platformSpecificData: PLATFORM_SPECIFIC_DATA,
  check: checkTarget,
  mediaLimits,
  accountMetadata: ['chatId', 'chatType', 'chatTitle'],
  scopes: [],
  capabilities: { connect: 'bot', unpublish: true },
  tools: TELEGRAM_TOOLS,
  createAdapter: createTelegramAdapter,
};
