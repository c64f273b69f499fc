import type { PlatformDescriptor } from './descriptor.js';
import { bluesky } from './bluesky/descriptor.js';
import { discord } from './discord/descriptor.js';
import { facebook } from './facebook/descriptor.js';
import { googlebusiness } from './googlebusiness/descriptor.js';
import { instagram } from './instagram/descriptor.js';
import { linkedin } from './linkedin/descriptor.js';
import { pinterest } from './pinterest/descriptor.js';
import { reddit } from './reddit/descriptor.js';
import { slack } from './slack/descriptor.js';
import { snapchat } from './snapchat/descriptor.js';
import { telegram } from './telegram/descriptor.js';
import { threads } from './threads/descriptor.js';
import { tiktok } from './tiktok/descriptor.js';
import { twitter } from './twitter/descriptor.js';
import { youtube } from './youtube/descriptor.js';

/*
 * The catalogue: every platform Herald knows, one descriptor each (descriptor.ts), in the spec's
 * order. Adding a platform is its folder and one line here; validation, media limits, unpublish,
 * account metadata, connect routes, the adapters and the OpenAPI enums all read this list. This is
 * the one file outside the platform folders that names platforms.
 */
export const CATALOGUE = [
  twitter,
  instagram,
  facebook,
  linkedin,
  tiktok,
  youtube,
  pinterest,
  reddit,
  bluesky,
  threads,
  googlebusiness,
  telegram,
  snapchat,
  discord,
  slack,
] as const;

export type Platform = (typeof CATALOGUE)[number]['id'];

export const PLATFORMS: readonly Platform[] = CATALOGUE.map((d) => d.id);

const BY_ID = new Map<string, PlatformDescriptor<Platform>>(CATALOGUE.map((d) => [d.id, d]));

export function isPlatform(value: unknown): value is Platform {
  return typeof value === 'string' && BY_ID.has(value);
}

/** The descriptor of a platform; undefined for a string that names none. */
export function descriptorOf(platform: string): PlatformDescriptor<Platform> | undefined {
  return BY_ID.get(platform);
}
