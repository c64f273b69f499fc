import { createCipheriv, randomBytes } from 'node:crypto';
import { PlatformError, type MediaRef, type PlatformIO } from '../types.js';
import { snapRequest, type SnapchatOptions } from './api.js';

/**
 * Snap's media upload (https://developers.snap.com/api/marketing-api/Public-Profile-API/ProfileAssetManagement):
 * the file is encrypted with AES-256-CBC under a random 32-byte key and 16-byte IV (PKCS#7 padding, as
 * `openssl enc -aes-256-cbc -nosalt`); Create Media takes `type`, `name` and the key and IV in base64 and
 * answers `media_id`, `add_path` and `finalize_path`; the encrypted file goes up in parts of at most
 * 32 MB (`action=ADD`, `part_number` from 1, `file`), then `action=FINALIZE`. The file is read and
 * encrypted as a stream: one part is in memory at a time.
 */

/** Snap's largest part. */
export const MAX_PART_BYTES = 32 * 1024 * 1024;

/** The encrypted stream cut into parts of `partBytes` (the last one shorter). */
async function* encryptedParts(
  stream: NodeJS.ReadableStream,
  key: Buffer,
  iv: Buffer,
  partBytes: number,
): AsyncGenerator<Buffer> {
  const cipher = createCipheriv('aes-256-cbc', key, iv);
  let held: Buffer[] = [];
  let size = 0;
  const add = (b: Buffer) => {
    if (b.length) {
      held.push(b);
      size += b.length;
    }
  };
  const cut = (): Buffer => {
    const all = Buffer.concat(held);
    const part = all.subarray(0, partBytes);
    const rest = all.subarray(partBytes);
    held = rest.length ? [rest] : [];
    size = rest.length;
    return part;
  };
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    add(cipher.update(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    while (size >= partBytes) yield cut();
  }
  add(cipher.final());
  while (size > 0) yield cut();
}

/** Uploads one media item to the public profile: its Snap media id. Throws PlatformError. */
export async function uploadMedia(
  opts: SnapchatOptions,
  io: PlatformIO,
  call: { profileId: string; media: MediaRef; token: string; name: string },
): Promise<string> {
  const key = randomBytes(32);
  const iv = randomBytes(16);
  const type = call.media.type === 'video' ? 'VIDEO' : 'IMAGE';
  const created = await snapRequest(io, {
    method: 'POST',
    url: `${opts.apiUrl}/v1/public_profiles/${encodeURIComponent(call.profileId)}/media`,
    token: call.token,
    json: { type, name: call.name, key: key.toString('base64'), iv: iv.toString('base64') },
  });
  const { media_id: mediaId, add_path: addPath, finalize_path: finalizePath } = created.body ?? {};
  if (typeof mediaId !== 'string' || typeof addPath !== 'string' || typeof finalizePath !== 'string') {
    throw new PlatformError(
      'unavailable',
      'Snapchat answered Create Media without media_id, add_path and finalize_path',
      { endpoint: '/v1/public_profiles/{id}/media', raw: created.raw.slice(0, 2000) },
    );
  }
  // The paths are relative to the API host.
  const at = (path: string) => `${opts.apiUrl}${path.startsWith('/') ? '' : '/'}${path}`;
  const opened = await io.openMedia(call.media);
  let partNumber = 0;
  for await (const part of encryptedParts(opened.stream, key, iv, Math.min(opts.partBytes, MAX_PART_BYTES))) {
    partNumber++;
    const form = new FormData();
    form.append('action', 'ADD');
    form.append('part_number', String(partNumber));
    form.append('file', new Blob([part]), `part-${partNumber}`);
    await snapRequest(io, { method: 'POST', url: at(addPath), token: call.token, form });
  }
  const finalize = new FormData();
  finalize.append('action', 'FINALIZE');
  await snapRequest(io, { method: 'POST', url: at(finalizePath), token: call.token, form: finalize });
  return mediaId;
}
