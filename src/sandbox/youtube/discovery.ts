import { Discovery, type DiscoveryDocument, readDiscovery, type SchemaProblem } from '../discovery.js';

/*
 * YouTube's official discovery document (youtube-v3.json, revision 2026-06, committed next to this file),
 * checked through the shared Google discovery module (../discovery.ts). The simulator checks what it
 * receives (Video, CommentThread) and what it answers (Video, CommentThread, ThumbnailSetResponse, lists).
 */

export type { SchemaProblem };

const YOUTUBE = new Discovery(() =>
  readDiscovery(
    import.meta.url,
    './discovery/youtube-v3.json',
    '../../../src/sandbox/youtube/discovery/youtube-v3.json',
  ),
);

/** The discovery document (read once). */
export function youtubeDiscovery(): DiscoveryDocument {
  return YOUTUBE.document;
}

/**
 * Problems of `value` as the discovery schema `name` (`Video`, `CommentThread`, ...). `root` names the
 * value in messages (`resource` for a request body, as Google does).
 */
export function checkSchema(name: string, value: unknown, root = 'resource'): SchemaProblem[] {
  return YOUTUBE.check(name, value, root);
}

/** The upload paths a method accepts (`resources.<r>.methods.<m>.mediaUpload.protocols`), and its size and type limits. */
export function mediaUpload(
  resource: string,
  method: string,
): { simple: string; resumable: string; maxSize: number; accept: string[] } {
  const m = YOUTUBE.method(`${resource}.${method}`).mediaUpload;
  if (!m) throw new Error(`${resource}.${method} takes no upload in the discovery document`);
  return {
    simple: m.protocols.simple.path,
    resumable: m.protocols.resumable.path,
    maxSize: Number(m.maxSize),
    accept: m.accept,
  };
}

/** True when `contentType` matches one of the method's accepted types (`video/*`, `image/png`, ...). */
export function accepts(accept: string[], contentType: string): boolean {
  const type = contentType.split(';')[0].trim().toLowerCase();
  return accept.some((a) => (a.endsWith('/*') ? type.startsWith(a.slice(0, -1)) : type === a));
}

/**
 * The first problem of a query against a method's documented parameters (`resources.<r>.methods.<m>.parameters`):
 * a required one missing, or an integer outside its type or its minimum/maximum. Null when it passes.
 * Google's messages and reasons (https://developers.google.com/youtube/v3/docs/errors#general).
 */
export function checkParams(
  resource: string,
  method: string,
  query: Record<string, unknown>,
): { reason: string; message: string; location: string } | null {
  const params = YOUTUBE.method(`${resource}.${method}`).parameters ?? {};
  for (const [name, p] of Object.entries(params)) {
    const raw = query[name];
    if (raw === undefined || raw === '') {
      if (p.required) return { reason: 'required', message: `Required parameter: ${name}`, location: name };
      continue;
    }
    if (p.type !== 'integer') continue;
    const value = Number(raw);
    if (!/^-?\d+$/.test(String(raw)))
      return {
        reason: 'invalidParameter',
        message: `Invalid value '${String(raw)}'. Values must be integers.`,
        location: name,
      };
    if (
      (p.minimum !== undefined && value < Number(p.minimum)) ||
      (p.maximum !== undefined && value > Number(p.maximum))
    ) {
      return {
        reason: 'invalidParameter',
        message: `Invalid value '${String(raw)}'. Values must be within the range: [${p.minimum ?? ''}, ${p.maximum ?? ''}]`,
        location: name,
      };
    }
  }
  return null;
}
