import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The dashboard's session cookie. `HttpOnly` (no script reads it), `SameSite=Strict` (no other site's
 * page makes the browser send it), `Path=/` (the API lives under /v1 and /api/v1), and `Secure` when
 * the request came over https: `request.protocol` honours X-Forwarded-Proto because Herald trusts its
 * proxy (http/app.ts). No Domain attribute: the cookie stays on Herald's own host.
 */
const SESSION_COOKIE = 'herald_session';
/** Header the dashboard sends the session's CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';

/** The session cookie's value, or null. */
export function readSessionCookie(request: FastifyRequest): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim() || null;
  }
  return null;
}

function attributes(request: FastifyRequest, publicUrl: string): string {
  const secure = request.protocol === 'https' || publicUrl.startsWith('https:');
  return `Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** Sets the cookie of a new session; it lasts as long as the session (`now` is Herald's clock). */
export function setSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  session: { token: string; expiresAt: string },
  now: Date,
  publicUrl: string,
): void {
  const maxAge = Math.max(0, Math.floor((Date.parse(session.expiresAt) - now.getTime()) / 1000));
  reply.header(
    'Set-Cookie',
    `${SESSION_COOKIE}=${session.token}; ${attributes(request, publicUrl)}; Max-Age=${maxAge}`,
  );
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply, publicUrl: string): void {
  reply.header(
    'Set-Cookie',
    `${SESSION_COOKIE}=; ${attributes(request, publicUrl)}; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT`,
  );
}
