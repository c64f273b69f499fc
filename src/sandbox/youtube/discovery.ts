import { Discovery, readDiscovery, type SchemaProblem } from '../discovery.js';

/*
 * YouTube's official discovery document (youtube-v3.json, revision 2026-06, committed next to this file),
 * checked through the shared Google discovery module (../discovery.ts). The simulator checks what it
 * receives (Video, CommentThread) and what it answers (Video, CommentThread, ThumbnailSetResponse, lists).
 */

export type { SchemaProblem };

const YOUTUBE = new Discovery(() => readDiscovery(import.meta.url, './discovery/youtube-v3.json', '../../../src/sandbox/youtube/discovery/youtube-v3.json'));

/** The discovery document (read once). */
export function youtubeDiscovery(): any {
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
export function mediaUpload(resource: string, method: string): { simple: string; resumable: string; maxSize: number; accept: string[] } {
  const m = youtubeDiscovery().resources[resource].methods[method].mediaUpload;
  return { simple: m.protocols.simple.path, resumable: m.protocols.resumable.path, maxSize: Number(m.maxSize), accept: m.accept };
}

/** True when `contentType` matches one of the method's accepted types (`video/*`, `image/png`, ...). */
export function accepts(accept: string[], contentType: string): boolean {
  const type = contentType.split(';')[0].trim().toLowerCase();
  return accept.some((a) => (a.endsWith('/*') ? type.startsWith(a.slice(0, -1)) : type === a));
}
