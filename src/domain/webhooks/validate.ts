import { invalidFields } from '../../errors.js';
import { assertPublicUrl, UnsafeAddressError, type LookupAll } from '../../lib/net.js';
import { EVENT_TYPES } from '../event-types.js';

export const MAX_NAME_LENGTH = 50;
const MAX_CUSTOM_HEADERS = 20;
const MAX_HEADER_NAME_LENGTH = 100;
const MAX_HEADER_VALUE_LENGTH = 1000;
const MAX_SECRET_LENGTH = 500;

/**
 * Headers a caller may not set: hop-by-hop and framing headers (the HTTP client owns them), and the
 * headers Herald signs and identifies deliveries with (a receiver must be able to trust them).
 */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'proxy-connection',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'user-agent',
  'x-herald-signature',
  'x-late-signature',
  'x-zernio-signature',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
]);
const RESERVED_PREFIXES = ['x-herald-', 'proxy-', 'sec-'];
// RFC 9110 token characters.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Visible ASCII, space and tab; no CR/LF (header injection) and no other control characters.
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;

export function validateName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw invalidFields('name must not be empty', { name: ['must not be empty'] });
  if (trimmed.length > MAX_NAME_LENGTH) {
    throw invalidFields(`name must be at most ${MAX_NAME_LENGTH} characters`, {
      name: [`must be at most ${MAX_NAME_LENGTH} characters`],
    });
  }
  return trimmed;
}

export function validateEvents(events: string[]): string[] {
  const unknown = events.filter((e) => !(EVENT_TYPES as readonly string[]).includes(e));
  if (unknown.length) {
    throw invalidFields(`Unknown event: ${unknown.join(', ')}`, {
      events: unknown.map((e) => `unknown event "${e}"; allowed: ${EVENT_TYPES.join(', ')}`),
    });
  }
  return [...new Set(events)];
}

export function validateCustomHeaders(headers: Record<string, string>): Record<string, string> {
  const problems: Record<string, string[]> = {};
  const entries = Object.entries(headers);
  if (entries.length > MAX_CUSTOM_HEADERS) problems.customHeaders = [`at most ${MAX_CUSTOM_HEADERS} headers`];
  const seen = new Set<string>();
  for (const [name, value] of entries) {
    const lower = name.toLowerCase();
    const field = `customHeaders.${name}`;
    const add = (m: string) => (problems[field] ??= []).push(m);
    if (!HEADER_NAME.test(name) || name.length > MAX_HEADER_NAME_LENGTH) {
      add(`is not a valid header name (letters, digits and !#$%&'*+.^_\`|~-, at most ${MAX_HEADER_NAME_LENGTH})`);
    } else if (RESERVED_HEADERS.has(lower) || RESERVED_PREFIXES.some((p) => lower.startsWith(p))) {
      add('is reserved and cannot be set');
    }
    if (seen.has(lower)) add('is given twice (header names are case-insensitive)');
    seen.add(lower);
    if (typeof value !== 'string' || !HEADER_VALUE.test(value))
      add('value must be printable ASCII without line breaks');
    else if (value.length > MAX_HEADER_VALUE_LENGTH) add(`value must be at most ${MAX_HEADER_VALUE_LENGTH} characters`);
  }
  if (Object.keys(problems).length) {
    const first = Object.entries(problems)[0];
    throw invalidFields(`Invalid custom header: ${first[0]} ${first[1][0]}`, problems, 'invalid_custom_header');
  }
  return Object.fromEntries(entries);
}

/** https and a public address, unless the development switch allows anything http(s). */
export async function validateUrl(raw: string, allowInsecure: boolean, lookup?: LookupAll): Promise<string> {
  const url = raw.trim();
  if (!url) throw invalidFields('url is required', { url: ['is required'] });
  try {
    await assertPublicUrl(url, { allowInsecure, lookup });
  } catch (error) {
    if (error instanceof UnsafeAddressError) {
      throw invalidFields(`url ${error.message}`, { url: [error.message] }, 'invalid_webhook_url');
    }
    throw error;
  }
  return url;
}

/**
 * A given secret must be one: an empty (or blank) one was stored as "no secret", and deliveries went out
 * unsigned while the caller believed they were signed. Omit the field for unsigned deliveries.
 */
export function validateSecret(secret: string): string {
  if (secret.trim() === '') {
    throw invalidFields('secret must not be empty: omit it for unsigned deliveries', { secret: ['must not be empty'] });
  }
  if (secret.length > MAX_SECRET_LENGTH) {
    throw invalidFields(`secret must be at most ${MAX_SECRET_LENGTH} characters`, {
      secret: [`must be at most ${MAX_SECRET_LENGTH} characters`],
    });
  }
  return secret;
}
