import { ZernioApiError } from '@getlatedev/node';

/** Awaits an SDK call that must fail and returns the SDK's error (status, code, details). */
export async function sdkError(p: Promise<unknown>): Promise<ZernioApiError> {
  try {
    await p;
  } catch (error) {
    if (error instanceof ZernioApiError) return error;
    throw error;
  }
  throw new Error('expected the SDK call to fail');
}
