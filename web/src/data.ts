import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import { takeEarlyPlatforms } from './early';

export interface Profile {
  _id: string;
  name: string;
  color?: string;
}

export interface Account {
  _id: string;
  platform: string;
  username: string;
  displayName?: string;
  isActive: boolean;
  profileId: { _id: string; name: string } | string;
}

export const profileIdOf = (a: Account) => (typeof a.profileId === 'string' ? a.profileId : a.profileId?._id);

export async function loadProfiles(): Promise<Profile[]> {
  return (await api('GET', '/profiles')).profiles;
}

export async function loadAccounts(profileId?: string): Promise<Account[]> {
  return (await api('GET', '/accounts', { query: { profileId } })).accounts;
}

const PROFILE_STORAGE = 'herald.profileId';

/** The profile the pages work on, remembered for the tab. */
export function useChosenProfile(profiles: Profile[] | undefined): [string, (id: string) => void] {
  const [chosen, setChosen] = useState<string>(() => sessionStorage.getItem(PROFILE_STORAGE) ?? '');
  useEffect(() => {
    if (profiles && profiles.length && !profiles.some((p) => p._id === chosen)) setChosen(profiles[0]._id);
  }, [profiles, chosen]);
  return [
    chosen,
    (id: string) => {
      sessionStorage.setItem(PROFILE_STORAGE, id);
      setChosen(id);
    },
  ];
}

/** A platform as GET /v1/platforms describes it (its descriptor on the server). */
export interface PlatformInfo {
  id: string;
  name: string;
  /** Short label, as on calendar entries. */
  label: string;
  /** The mark: a short glyph drawn on its colour (text, so no image to load). */
  glyph: string;
  colour: string;
  connect: 'oauth2' | 'credentials' | 'bot';
  /** Texts of the connect form of a platform connected without OAuth. */
  connectForm?: { handlePlaceholder?: string; secretLabel?: string; secretPlaceholder?: string; chatLabel?: string };
  /** How its feed draws a post: image crop (width / height), link card, thread. */
  preview: { crop?: { narrowest: number; widest: number }; card: boolean; thread: boolean };
}

/*
 * The platforms this server knows, read once when the session starts (app.tsx, before any page is drawn),
 * so the lookups below answer synchronously. The dashboard names no platform itself.
 */
let platforms: PlatformInfo[] = [];
let byId = new Map<string, PlatformInfo>();

/** Reads GET /v1/platforms (or takes the early read of it) and keeps it for the lookups below. */
export async function loadPlatforms(key?: string): Promise<void> {
  const early = key ? await takeEarlyPlatforms(key) : null;
  const list: PlatformInfo[] = early ?? (await api('GET', '/platforms', key ? { key } : {})).platforms;
  platforms = list;
  byId = new Map(list.map((p) => [p.id, p]));
}

/** Every platform, in the server's order. */
export const allPlatforms = (): readonly PlatformInfo[] => platforms;
export const platformInfo = (p: string): PlatformInfo | undefined => byId.get(p);
export const platformLabel = (p: string) => byId.get(p)?.label ?? p;
/** A platform's mark on entries and previews: [glyph, colour]. */
export const platformMark = (p: string): [string, string] => {
  const info = byId.get(p);
  return info ? [info.glyph, info.colour] : [p.slice(0, 1).toUpperCase(), '#444'];
};

/** Browser time zone and the IANA zones the browser knows. */
export const BROWSER_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
export function timeZones(): string[] {
  const list =
    (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
  return list.includes('UTC') ? list : ['UTC', ...list];
}

/** The first line of a post's text (its title when it has one), as an entry shows it. */
export function firstLine(post: { title?: string; excerpt?: string; content?: string }): string {
  const text = post.title || post.excerpt || post.content || '';
  return (
    text
      .split('\n')
      .find((l) => l.trim())
      ?.trim() || '(no text)'
  );
}
