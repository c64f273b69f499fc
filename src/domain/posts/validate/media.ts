import { checkMedia } from '../../media/check.js';
import { canCompressVideo } from '../../media/compress.js';
import { keyFromUrl, rowFacts } from '../../media/resolve.js';
import type { MediaItemInput } from '../types.js';
import type { RuleIssue, TargetDraft, TargetRule } from '../../../platforms/rules/types.js';
import type { RuleCaller } from './index.js';

/** Every media list a target sends: its media, then each thread item's (field paths relative to the target). */
export function mediaLists(t: TargetDraft): Array<{ field: string; items: MediaItemInput[] }> {
  const lists = [{ field: 'mediaItems', items: t.media }];
  const thread = t.platformSpecificData.threadItems;
  if (Array.isArray(thread)) {
    thread.forEach((item: { mediaItems?: unknown } | null, i) => {
      if (Array.isArray(item?.mediaItems))
        lists.push({ field: `platformSpecificData.threadItems.${i}.mediaItems`, items: item.mediaItems });
    });
  }
  return lists;
}

/**
 * Media facts rule: Herald's own uploads are checked against the platform's limits from what the
 * upload recorded (size, dimensions, duration), so bad media is a 400 when the post is created rather
 * than a failure at the due time. An upload must belong to the caller's tenant and be complete.
 * External URLs are checked before publishing (`prepareRequestMedia`), when the platform fetches them.
 * The rows are the request's, loaded once by validatePost.
 */
export function mediaRule({ ctx, uploads }: RuleCaller): TargetRule {
  return (t) => {
    const lists = mediaLists(t);
    const keyed = lists.flatMap(({ field, items }) =>
      items.map((item, i) => ({
        field: `${field}.${i}`,
        item,
        key: typeof item?.url === 'string' ? keyFromUrl(ctx, item.url) : null,
      })),
    );
    if (!keyed.some((k) => k.key)) return [];
    const videoTools = canCompressVideo(ctx.config);
    const issues: RuleIssue[] = [];
    for (const { field, item, key } of keyed) {
      if (!key) continue;
      const row = uploads.get(key);
      if (!row) {
        issues.push({ field, rule: 'media_not_found', message: 'this media URL is not an upload of this account' });
        continue;
      }
      if (row.status !== 'uploaded') {
        issues.push({
          field,
          rule: 'media_not_uploaded',
          message: 'the file was never uploaded: PUT it to the uploadUrl first',
        });
        continue;
      }
      const facts = rowFacts(row);
      const declared = item.type === 'gif' ? 'image' : item.type;
      if (declared && declared !== facts.kind) {
        issues.push({
          field,
          rule: 'media_type_mismatch',
          message: `declared as ${item.type} but the upload is a ${facts.kind}`,
        });
        continue;
      }
      for (const found of checkMedia(t.platform, t.platformSpecificData, facts, videoTools))
        issues.push({ field, ...found });
    }
    return issues;
  };
}
