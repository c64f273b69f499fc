import type { Config } from '../config.js';

/** S3-compatible storage settings, read from the environment that `loadConfig` captured. */
export interface S3Settings {
  bucket: string;
  /** Custom endpoint (MinIO, R2, s3rver...); null uses AWS's regional endpoint. */
  endpoint: string | null;
  region: string;
  accessKeyId: string | null;
  secretAccessKey: string | null;
  /** Base URL under which objects are publicly readable (CDN, public bucket); null: Herald serves them. */
  publicUrl: string | null;
  /** Path-style addressing (`endpoint/bucket/key`), needed by most self-hosted S3 servers. */
  forcePathStyle: boolean;
}

/**
 * Media storage is local (under DATA_DIR/media) unless S3_BUCKET is set. Throws listing every problem,
 * the way `loadConfig` does, so a misconfigured bucket fails at start rather than at the first upload.
 */
export function s3Settings(config: Config): S3Settings | null {
  const env = config.env;
  const bucket = env.S3_BUCKET || null;
  if (!bucket) return null;
  const problems: string[] = [];
  const endpoint = env.S3_ENDPOINT ? env.S3_ENDPOINT.replace(/\/+$/, '') : null;
  if (endpoint && !/^https?:\/\//.test(endpoint)) problems.push('S3_ENDPOINT must be an http(s) URL');
  const publicUrl = env.S3_PUBLIC_URL ? env.S3_PUBLIC_URL.replace(/\/+$/, '') : null;
  if (publicUrl && !/^https?:\/\//.test(publicUrl)) problems.push('S3_PUBLIC_URL must be an http(s) URL');
  const accessKeyId = env.S3_ACCESS_KEY_ID || null;
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY || null;
  if (!!accessKeyId !== !!secretAccessKey)
    problems.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together');
  if (problems.length) throw new Error(`invalid S3 configuration:\n  - ${problems.join('\n  - ')}`);
  return {
    bucket,
    endpoint,
    region: env.S3_REGION || 'us-east-1',
    accessKeyId,
    secretAccessKey,
    publicUrl,
    forcePathStyle: ['1', 'true', 'yes'].includes((env.S3_FORCE_PATH_STYLE ?? '').toLowerCase()),
  };
}
