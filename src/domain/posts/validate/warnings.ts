import { descriptorOf } from '../../../platforms/catalogue.js';
import type { MediaProbe } from '../../media/types.js';
import type { MediaItemInput } from '../types.js';

export interface PostWarning {
  platform: string;
  warning: string;
}

interface WarningDraft {
  mediaItems?: MediaItemInput[];
  platforms: Array<{
    platform: string;
    customMedia?: MediaItemInput[] | null;
    platformSpecificData?: Record<string, unknown>;
  }>;
}

/** Each platform's notes on a post (descriptor `warnings`), from what Herald probed of its stored media (validatePost's `probes`). */
export function postWarnings(draft: WarningDraft, probes: Map<string, MediaProbe>): PostWarning[] {
  const wanted = draft.platforms.filter((p) => descriptorOf(p.platform)?.warnings);
  return wanted.flatMap((p) => {
    const media = p.customMedia ?? draft.mediaItems ?? [];
    const shapes = media.map((m) => {
      const probe = typeof m?.url === 'string' ? probes.get(m.url) : undefined;
      return probe ? { width: probe.width, height: probe.height, durationSec: probe.durationSec } : null;
    });
    const notes = descriptorOf(p.platform)!.warnings!(
      { media, platformSpecificData: p.platformSpecificData ?? {} },
      shapes,
    );
    return notes.map((warning) => ({ platform: p.platform, warning }));
  });
}
