import { blueskySimulator } from './bluesky/index.js';
import { discordSimulator } from './discord/index.js';
import { googleBusinessSimulator } from './googlebusiness/index.js';
import { threadsSimulator } from './threads/index.js';
import { facebookSimulator } from './facebook/index.js';
import { instagramSimulator } from './instagram/index.js';
import { telegramSimulator } from './telegram/index.js';
import { linkedInSimulator } from './linkedin/index.js';
import { tiktokSimulator } from './tiktok/index.js';
import { pinterestSimulator } from './pinterest/index.js';
import { redditSimulator } from './reddit/index.js';
import { slackSimulator } from './slack/index.js';
import { snapchatSimulator } from './snapchat/index.js';
import { twitterSimulator } from './twitter/index.js';
import { youTubeSimulator } from './youtube/index.js';
import type { Simulator } from './types.js';

/** Every platform simulator; each platform folder exports one. Add one line per platform. */
export function allSimulators(): Simulator[] {
  return [
    blueskySimulator(),
    telegramSimulator(),
    twitterSimulator(),
    linkedInSimulator(),
    tiktokSimulator(),
    youTubeSimulator(),
    pinterestSimulator(),
    redditSimulator(),
    snapchatSimulator(),
    googleBusinessSimulator(),
    threadsSimulator(),
    facebookSimulator(),
    instagramSimulator(),
    discordSimulator(),
    slackSimulator(),
  ];
}
