import type { Config } from '../config.js';
import type { Platform } from './types.js';

/**
 * Where an adapter sends its requests. With `SANDBOX_URL` every platform points at its loopback
 * simulator (`<SANDBOX_URL>/sandbox/<platform>`); otherwise `<PLATFORM>_API_URL` overrides the real
 * default (e.g. TWITTER_API_URL=https://api.x.com). Adapters with several hosts (auth vs api vs upload)
 * pass a `suffix` name: `<PLATFORM>_<SUFFIX>_URL`, and in sandbox mode the same simulator serves all.
 */
export function platformBaseUrl(config: Config, platform: Platform, defaultUrl: string, suffix = 'API'): string {
  const sandbox = sandboxUrl(config);
  if (sandbox) return `${sandbox}/sandbox/${platform}`;
  const override = config.env[`${platform.toUpperCase()}_${suffix}_URL`];
  return (override || defaultUrl).replace(/\/+$/, '');
}

/** SANDBOX_URL, or the in-process sandbox's address when SANDBOX=1 (set by main before adapters are built). */
export function sandboxUrl(config: Config): string | null {
  const url = config.env.SANDBOX_URL || null;
  return url ? url.replace(/\/+$/, '') : null;
}

/** The same configuration with adapters pointed at a sandbox (SANDBOX=1 starts one in-process). */
export function withSandboxUrl(config: Config, url: string): Config {
  return { ...config, env: Object.freeze({ ...config.env, SANDBOX_URL: url }) };
}

/** A platform setting such as TWITTER_CLIENT_ID, with a default used in sandbox mode. */
export function platformSetting(
  config: Config,
  platform: Platform,
  name: string,
  fallback: string | null = null,
): string | null {
  const value = config.env[`${platform.toUpperCase()}_${name}`];
  if (value) return value;
  return sandboxUrl(config) ? (fallback ?? `sandbox-${platform}-${name.toLowerCase()}`) : fallback;
}
