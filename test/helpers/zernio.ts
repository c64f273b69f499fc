import { Zernio, ZernioApiError } from '@zernio/node';
import type { TestEnv } from './context.js';

/** Today's official client (@zernio/node) pointed at the test server, only `baseURL` changed. */
export async function zernio(env: TestEnv, apiKey: string): Promise<Zernio> {
  return new Zernio({ apiKey, baseURL: await env.listen() });
}

/** Awaits a @zernio/node call that must fail; answers its error (statusCode, code, details, body). */
export async function zernioError(p: Promise<unknown>): Promise<ZernioApiError> {
  try {
    await p;
  } catch (error) {
    if (error instanceof ZernioApiError) return error;
    throw error;
  }
  throw new Error('expected the @zernio/node call to fail');
}

/** The body of a @zernio/node answer. */
export const body = (res: { data?: unknown }) => res.data as any;
