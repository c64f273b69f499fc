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

/** Browser time zone and the IANA zones the browser knows. */
export const BROWSER_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
export function timeZones(): string[] {
  const list =
    (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
  return list.includes('UTC') ? list : ['UTC', ...list];
}
