import { useEffect, useState } from 'preact/hooks';
import { api } from './api';

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

/** Short labels of the platforms, as shown on calendar entries. */
export const PLATFORM_LABELS: Record<string, string> = {
  twitter: 'X',
  instagram: 'Instagram',
  facebook: 'Facebook',
  linkedin: 'LinkedIn',
  tiktok: 'TikTok',
  youtube: 'YouTube',
  pinterest: 'Pinterest',
  reddit: 'Reddit',
  bluesky: 'Bluesky',
  threads: 'Threads',
  googlebusiness: 'Google Business',
  telegram: 'Telegram',
  snapchat: 'Snapchat',
  discord: 'Discord',
  slack: 'Slack',
};
export const platformLabel = (p: string) => PLATFORM_LABELS[p] ?? p;

/** A platform's mark on entries and previews: a short glyph on its colour (text, so no image to load). */
export const PLATFORM_MARKS: Record<string, [glyph: string, colour: string]> = {
  twitter: ['X', '#000000'],
  instagram: ['Ig', '#c13584'],
  facebook: ['f', '#1657c9'],
  linkedin: ['in', '#0a66c2'],
  tiktok: ['Tk', '#111111'],
  youtube: ['▶', '#c4120c'],
  pinterest: ['P', '#b7081b'],
  reddit: ['R', '#c2410c'],
  bluesky: ['B', '#0560c9'],
  threads: ['@', '#000000'],
  googlebusiness: ['G', '#1a6fd6'],
  telegram: ['T', '#1b7bb0'],
  snapchat: ['S', '#6b5b00'],
  discord: ['D', '#4752c4'],
  slack: ['#', '#4a154b'],
};
export const platformMark = (p: string): [string, string] => PLATFORM_MARKS[p] ?? [p.slice(0, 1).toUpperCase(), '#444'];

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
