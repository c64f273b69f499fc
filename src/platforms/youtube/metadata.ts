import { readAtMost } from '../io.js';
import { PlatformError, type AccountCredentials, type MetadataFields, type PlatformIO } from '../types.js';
import { token, ytRequest, type YouTubeOptions } from './api.js';

/** thumbnails.set takes at most 2 MB (discovery document: mediaUpload.maxSize). */
const THUMBNAIL_MAX = 2 * 1024 * 1024;
/** videos.update: a title of at most 100 characters, tags of at most 500 in all (each tag with a space counted quoted). */
const TITLE_MAX = 100;
const TAGS_MAX = 500;

const SNIPPET_FIELDS = ['title', 'description', 'tags', 'categoryId'] as const;
const STATUS_FIELDS = ['privacyStatus', 'madeForKids', 'containsSyntheticMedia'] as const;

function tagsLength(tags: string[]): number {
  return tags.reduce((n, t) => n + (t.includes(' ') ? t.length + 2 : t.length), 0) + Math.max(0, tags.length - 1);
}

/**
 * Updates a video's snippet and status with videos.update, which replaces each part it is sent: the
 * current parts are read first and sent back with the changes (a snippet without its title or category
 * is refused). A custom thumbnail goes through thumbnails.set (a verified channel only).
 * https://developers.google.com/youtube/v3/docs/videos/update, https://developers.google.com/youtube/v3/docs/thumbnails/set
 */
export async function updateVideoMetadata(
  opts: YouTubeOptions,
  account: AccountCredentials,
  videoId: string,
  fields: MetadataFields,
  io: PlatformIO,
): Promise<string[]> {
  if (
    fields.title !== undefined &&
    (!fields.title.trim() || [...fields.title].length > TITLE_MAX || /[<>]/.test(fields.title))
  )
    throw new PlatformError('rejected', `a YouTube title is 1 to ${TITLE_MAX} characters, without < or >`);
  if (fields.tags && tagsLength(fields.tags) > TAGS_MAX)
    throw new PlatformError('rejected', `YouTube tags are at most ${TAGS_MAX} characters in all`);
  const updated: string[] = [];
  const snippet = SNIPPET_FIELDS.some((f) => fields[f] !== undefined);
  const status = STATUS_FIELDS.some((f) => fields[f] !== undefined);
  if (snippet || status) {
    const parts = [snippet ? 'snippet' : null, status ? 'status' : null].filter(Boolean).join(',');
    const current = await ytRequest(io, {
      method: 'GET',
      url: `${opts.apiUrl}/youtube/v3/videos?part=${parts}&id=${encodeURIComponent(videoId)}`,
      token: token(account),
    });
    const video = current.body?.items?.[0];
    if (!video) throw new PlatformError('rejected', `YouTube has no video ${videoId} on this channel`, { status: 404 });
    const body: Record<string, unknown> = { id: videoId };
    if (snippet) {
      const s = video.snippet ?? {};
      body.snippet = {
        title: fields.title ?? s.title,
        description: fields.description ?? s.description ?? '',
        categoryId: fields.categoryId ?? s.categoryId,
        ...((fields.tags ?? s.tags) ? { tags: fields.tags ?? s.tags } : {}),
        ...(s.defaultLanguage ? { defaultLanguage: s.defaultLanguage } : {}),
      };
      updated.push(...SNIPPET_FIELDS.filter((f) => fields[f] !== undefined));
    }
    if (status) {
      const s = video.status ?? {};
      body.status = {
        privacyStatus: fields.privacyStatus ?? s.privacyStatus,
        selfDeclaredMadeForKids: fields.madeForKids ?? s.selfDeclaredMadeForKids ?? false,
        ...(fields.containsSyntheticMedia !== undefined || s.containsSyntheticMedia !== undefined
          ? { containsSyntheticMedia: fields.containsSyntheticMedia ?? s.containsSyntheticMedia }
          : {}),
        ...(s.license ? { license: s.license } : {}),
        ...(s.embeddable !== undefined ? { embeddable: s.embeddable } : {}),
        ...(s.publicStatsViewable !== undefined ? { publicStatsViewable: s.publicStatsViewable } : {}),
      };
      updated.push(...STATUS_FIELDS.filter((f) => fields[f] !== undefined));
    }
    await ytRequest(io, {
      method: 'PUT',
      url: `${opts.apiUrl}/youtube/v3/videos?part=${parts}`,
      token: token(account),
      json: body,
    });
  }
  if (fields.thumbnailUrl !== undefined) {
    const opened = await io.openMedia({ type: 'image', url: fields.thumbnailUrl });
    const read = await readAtMost(new Response(opened.stream as never), THUMBNAIL_MAX);
    if (read.truncated) throw new PlatformError('rejected', 'the thumbnail is over 2 MB, the most YouTube takes');
    const type = opened.contentType.startsWith('image/') ? opened.contentType : 'application/octet-stream';
    await ytRequest(io, {
      method: 'POST',
      url: `${opts.apiUrl}/upload/youtube/v3/thumbnails/set?videoId=${encodeURIComponent(videoId)}&uploadType=media`,
      token: token(account),
      headers: { 'content-type': type },
      body: read.bytes,
    });
    updated.push('thumbnailUrl');
  }
  return updated;
}
