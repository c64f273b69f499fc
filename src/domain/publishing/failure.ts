import { PlatformError } from '../../platforms/types.js';

/** errorCategory values (reference §3, with the newer `platform_rate_limit`). */
export type ErrorCategory =
  | 'auth_expired'
  | 'user_content'
  | 'account_issue'
  | 'platform_rejected'
  | 'platform_error'
  | 'platform_rate_limit'
  | 'system_error'
  | 'unknown';

type ErrorSource = 'user' | 'platform' | 'system';

/** What a failed target records: shown on the post (errorMessage/errorCategory/errorSource) and in the log. */
export interface TargetFailure {
  message: string;
  category: ErrorCategory;
  source: ErrorSource;
  code: string | null;
}

const SOURCE: Record<ErrorCategory, ErrorSource> = {
  auth_expired: 'user',
  user_content: 'user',
  account_issue: 'user',
  platform_rejected: 'platform',
  platform_error: 'platform',
  platform_rate_limit: 'platform',
  system_error: 'system',
  unknown: 'system',
};

export function failure(category: ErrorCategory, message: string, code: string | null = null): TargetFailure {
  return { message: message.slice(0, 2000), category, source: SOURCE[category], code };
}

/** The platform's own code when it gave one, else its HTTP status. */
export function platformErrorCode(error: PlatformError): string | null {
  return error.platformCode ?? (error.status !== null ? String(error.status) : null);
}

/** The failure a PlatformError leaves on a target once the engine gives up on it. */
export function failureFromPlatformError(error: PlatformError): TargetFailure {
  const code = platformErrorCode(error);
  switch (error.kind) {
    case 'auth':
      return failure('auth_expired', `The account's authorization expired or was revoked: ${error.message}`, code);
    case 'rejected':
      // A thread reply whose outcome is unknown is reported as rejected (never re-sent by itself). Media
      // gone from Herald's storage is the user's to upload again, whatever the platform.
      if (code === 'media_missing') return failure('user_content', error.message, code);
      return failure(code === 'thread_reply_unknown' ? 'unknown' : 'platform_rejected', error.message, code);
    case 'rate_limited':
      return failure(
        'platform_rate_limit',
        `Still rate limited by the platform after several retries: ${error.message}`,
        code,
      );
    case 'unavailable':
      return failure('platform_error', `The platform stayed unavailable after several retries: ${error.message}`, code);
    case 'ambiguous':
      return failure('unknown', error.message, code);
  }
}

/** One line for logs and job rows. */
export function describeError(error: unknown): string {
  if (error instanceof PlatformError) return `${error.kind}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
