import { PlatformError, type MediaRef } from '../types.js';

import { PARSE_MODES } from './rules.js';

export interface TelegramOptions {
  parse_mode?: string;
  disable_notification?: boolean;
  protect_content?: boolean;
  link_preview_options?: { is_disabled: boolean };
}

/** platformSpecificData (`parseMode`, default HTML; `disableWebPagePreview`, `disableNotification`, `protectContent`). */
export function telegramOptions(psd: Record<string, unknown>): TelegramOptions {
  const parseMode = psd.parseMode === undefined ? 'HTML' : String(psd.parseMode);
  if (!(PARSE_MODES as readonly string[]).includes(parseMode)) {
    throw new PlatformError('rejected', `parseMode must be one of ${PARSE_MODES.join(', ')}`);
  }
  return {
    parse_mode: parseMode,
    ...(psd.disableNotification === true ? { disable_notification: true } : {}),
    ...(psd.protectContent === true ? { protect_content: true } : {}),
  };
}

export function textOptions(psd: Record<string, unknown>): TelegramOptions {
  return {
    ...telegramOptions(psd),
    ...(psd.disableWebPagePreview === true ? { link_preview_options: { is_disabled: true } } : {}),
  };
}

export type InputMedia = { type: 'photo' | 'video' | 'document'; media: string; caption?: string; parse_mode?: string };

export function inputMediaType(m: MediaRef): InputMedia['type'] {
  if (m.type === 'image') return 'photo';
  if (m.type === 'video' || m.type === 'gif') return 'video';
  return 'document';
}

export function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Public link of a message: `t.me/<username>/<id>` for public chats, `t.me/c/<id without -100>/<id>`
 * for private supergroups and channels; null for basic groups and private chats (no link exists).
 */
export function messageUrl(chatId: string, username: string | null | undefined, messageId: number): string | null {
  if (username) return `https://t.me/${username.replace(/^@/, '')}/${messageId}`;
  if (chatId.startsWith('@')) return `https://t.me/${chatId.slice(1)}/${messageId}`;
  if (chatId.startsWith('-100')) return `https://t.me/c/${chatId.slice(4)}/${messageId}`;
  return null;
}
