import type { Config } from '../config.js';
import { CATALOGUE } from './catalogue.js';
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

  /** Takes a platform's adapter out (it then answers like an unconfigured one). */
  delete(platform: Platform): void {
    this.adapters.delete(platform);
  }

  has(platform: Platform): boolean {
    return this.adapters.has(platform);
  }

  list(): Platform[] {
    return [...this.adapters.keys()];
  }
}

/**
 * Builds every real adapter from configuration (base URLs, client ids and secrets, API versions): one
 * for each catalogue entry with an adapter factory that is configured.
 */
export function createPlatformRegistry(config: Config): PlatformRegistry {
  const adapters = CATALOGUE.map((d) => d.createAdapter?.(config) ?? null);
  return new PlatformRegistry(adapters.filter((a): a is PlatformAdapter => a !== null));
}
