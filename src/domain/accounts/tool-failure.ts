import { AppError, invalid } from '../../errors.js';
import type { PlatformDescriptor } from '../../platforms/descriptor.js';
import type { PlatformError } from '../../platforms/types.js';

/** A PlatformError as the envelope: refused input 400, throttling 429, anything else upstream (502). */
export function toolFailure(platform: PlatformDescriptor, error: PlatformError): AppError {
  switch (error.kind) {
    case 'rejected':
      return invalid('platform_rejected', `${platform.name}: ${error.message}`, { platform: platform.id });
    case 'rate_limited':
      return new AppError(
        'rate_limited',
        'platform_rate_limited',
        `${platform.name} is throttling this account; try again later`,
        {
          platform: platform.id,
          ...(error.retryAfterMs !== null ? { retryAfterMs: error.retryAfterMs } : {}),
        },
      );
    case 'auth':
      return invalid(
        'account_reauthorization_required',
        `${platform.name} refused the account's authorization; reconnect the account`,
        {
          platform: platform.id,
        },
      );
    default:
      return new AppError(
        'upstream',
        'platform_unavailable',
        `${platform.name} could not be reached; try again`,
        { platform: platform.id },
        { cause: error },
      );
  }
}
