import { currentKey } from './api';

/*
 * The reads web/public/early.js started while the page was parsed (see there): the app and the calendar
 * take them, once, when they ask for what was read with the same key; otherwise they ask as usual.
 */
interface Early {
  key: string;
  /** The answers, or null when the read failed (the caller then asks itself, and sees the error). */
  session: Promise<unknown | null>;
  /** GET /v1/platforms's list. */
  platforms?: Promise<{ platforms?: any[] } | null>;
  month: { from: number; to: number; posts: Promise<any[] | null> } | null;
}

function early(): Early | null {
  return ((window as unknown as { __heraldEarly?: Early }).__heraldEarly ?? null) as Early | null;
}

/** The sign-in check's answer for `key` when it was read early and succeeded; else null. */
export async function takeEarlySession(key: string): Promise<any | null> {
  const e = early();
  const session = e && e.key === key ? e.session : null;
  if (e) e.session = Promise.resolve(null);
  return session ? await session : null;
}

/** The platform list read early for `key` when the read succeeded; else null. */
export async function takeEarlyPlatforms(key: string): Promise<any[] | null> {
  const e = early();
  const read = e && e.key === key ? e.platforms : undefined;
  if (e) e.platforms = undefined;
  const body = read ? await read : null;
  return Array.isArray(body?.platforms) ? body.platforms : null;
}

/**
 * The posts read early with the signed-in key, when their range holds [from, to) and the read succeeded
 * whole; else null.
 */
export async function takeEarlyPosts(
  from: number,
  to: number,
): Promise<{ from: number; to: number; posts: any[] } | null> {
  const e = early();
  const m = e?.month ?? null;
  if (e) e.month = null;
  if (!m || e!.key !== currentKey() || m.from > from || m.to < to) return null;
  const posts = await m.posts;
  return posts ? { from: m.from, to: m.to, posts } : null;
}
