import { AppError } from '../../errors.js';
import { descriptorOf } from '../../platforms/catalogue.js';

/** The hosted API's tools that read a platform's public pages (downloads, transcripts, hashtag bans). */
export type ScrapingTool = 'download' | 'transcript' | 'hashtag-checker';

const WHAT: Record<ScrapingTool, string> = {
  download: 'Downloading media from',
  transcript: 'Reading video transcripts from',
  'hashtag-checker': 'Checking hashtag bans on',
};

/**
 * The hosted API's download, transcript and hashtag tools work by scraping the platforms' public pages,
 * which their terms forbid and which breaks without notice. A self-hosted Herald does not scrape: these
 * routes exist so a client gets a clear 501 (the spec's answer for the compatibility layer's features
 * that are not implemented) instead of a 404 it might take for a wrong base URL. A platform Herald does
 * not know is a 404 like any unknown route.
 */
export function refuseScrapingTool(platform: string, tool: ScrapingTool): never {
  const descriptor = descriptorOf(platform);
  if (!descriptor)
    throw new AppError('not_found', 'tool_not_found', `There is no ${tool} tool for "${platform}"`, { platform, tool });
  throw new AppError(
    'not_implemented',
    'scraping_not_supported',
    `${WHAT[tool]} ${descriptor.name} is not available: self-hosted Herald does not scrape platforms, and ${descriptor.name}'s API offers no such call`,
    { platform, tool },
  );
}
