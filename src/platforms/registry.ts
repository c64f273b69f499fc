import type { Config } from '../config.js';
import { blueskyAdapterFromConfig } from './bluesky/index.js';
import { createTelegramAdapter } from './telegram/index.js';
import { linkedInAdapterFromConfig } from './linkedin/index.js';
import { twitterAdapterFromConfig } from './twitter/index.js';
import type { Platform, PlatformAdapter } from './types.js';

/** The adapters this process can publish with, by platform. */
export class PlatformRegistry {
  private readonly adapters = new Map<Platform, PlatformAdapter>();

  constructor(adapters: PlatformAdapter[] = []) {
    for (const a of adapters) this.adapters.set(a.platform, a);
  }

  get(platform: Platform): PlatformAdapter | undefined {
    return this.adapters.get(platform);
  }

  set(adapter: PlatformAdapter): void {
    this.adapters.set(adapter.platform, adapter);
  }

  has(platform: Platform): boolean {
    return this.adapters.has(platform);
  }

  list(): Platform[] {
    return [...this.adapters.keys()];
  }
}

/**
 * Builds every real adapter from configuration (base URLs, client ids and secrets, API versions).
 * Each platform folder exports a factory; add one line per platform.
 */
export function createPlatformRegistry(config: Config): PlatformRegistry {
  const adapters: (PlatformAdapter | null)[] = [
    blueskyAdapterFromConfig(config),
    createTelegramAdapter(config),
    twitterAdapterFromConfig(config),
    linkedInAdapterFromConfig(config),
  ];
  return new PlatformRegistry(adapters.filter((a): a is PlatformAdapter => a !== null));
}
