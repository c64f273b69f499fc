import {
  PlatformError,
  type AccountCredentials,
  type Destination,
  type DestinationsCapability,
  type PlatformIO,
} from '../types.js';
import { liRequest, type LinkedInOptions } from './api.js';

/** Spec "LinkedIn mention result". */
export interface MentionResolution {
  urn: string;
  type: 'person' | 'organization';
  displayName: string;
  /** e.g. `@[Name](urn:li:organization:123)` */
  mentionFormat: string;
  vanityName?: string | null;
  /** Person mentions without a displayName are not clickable. */
  warning?: string | null;
}

function orgId(value: string): string {
  return value.replace(/^urn:li:organization:/, '');
}

/** An organization (company page) a member administers. */
interface LinkedInOrganization {
  id: string;
  urn: string;
  name: string;
  vanityName?: string | null;
  logoUrl?: string | null;
  website?: string | null;
  industry?: string | null;
  description?: string | null;
}

/** An organization of the Organizations API, the fields read here. */
interface OrganizationBody {
  id: number | string;
  localizedName?: string;
  name?: { localized?: { en_US?: string } };
  vanityName?: string;
  localizedWebsite?: string;
  localizedDescription?: string;
}

function present(org: OrganizationBody): LinkedInOrganization {
  const id = String(org.id);
  return {
    id,
    urn: `urn:li:organization:${id}`,
    name: org.localizedName ?? org.name?.localized?.en_US ?? id,
    vanityName: org.vanityName ?? null,
    website: org.localizedWebsite ?? null,
    description: org.localizedDescription ?? null,
  };
}

/**
 * Company pages the member administers: `organizationAcls` (role ADMINISTRATOR, state APPROVED), then
 * each organization's details. https://learn.microsoft.com/en-us/linkedin/marketing/community-management/organizations/organization-access-control-by-role
 */
async function listOrganizations(
  opts: LinkedInOptions,
  io: PlatformIO,
  token: string,
  only?: string[],
): Promise<LinkedInOrganization[]> {
  const acls = await liRequest(opts, io, {
    method: 'GET',
    url: `${opts.apiUrl}/rest/organizationAcls?q=roleAssignee&role=ADMINISTRATOR&state=APPROVED&count=100`,
    token,
  });
  let ids: string[] = (acls.body?.elements ?? [])
    .map((e: { organization?: string }) => orgId(String(e.organization ?? '')))
    .filter(Boolean);
  if (only?.length) {
    const wanted = new Set(only.map(orgId));
    ids = ids.filter((id) => wanted.has(id));
  }
  const out: LinkedInOrganization[] = [];
  for (const id of [...new Set(ids)]) {
    const res = await liRequest(opts, io, {
      method: 'GET',
      url: `${opts.apiUrl}/rest/organizations/${encodeURIComponent(id)}`,
      token,
    });
    out.push(present(res.body));
  }
  return out;
}

function destination(org: LinkedInOrganization): Destination {
  return {
    id: org.id,
    name: org.name,
    username: org.vanityName ?? null,
    picture: org.logoUrl ?? null,
    details: {
      urn: org.urn,
      vanityName: org.vanityName ?? null,
      logoUrl: org.logoUrl ?? null,
      website: org.website ?? null,
      industry: org.industry ?? null,
      description: org.description ?? null,
    },
  };
}

/**
 * Destinations: the organizations the member administers, or the member. Choosing one stores
 * `{accountType: 'organization', organizationUrn, organization}` (`{accountType: 'personal',
 * organizationUrn: null}` for the member): publish posts as `organizationUrn` when set. The member stays
 * the platform identity, since their token posts for the organization: choosing again updates the same
 * account.
 */
export function linkedInDestinations(opts: LinkedInOptions): DestinationsCapability {
  return {
    kind: 'organization',
    personal: true,
    async list(tokens, io, filter) {
      return (await listOrganizations(opts, io, tokens.accessToken, filter?.ids)).map(destination);
    },
    async select(org, { profile: member }) {
      if (!org)
        return { metadata: { accountType: 'personal', organizationUrn: null, organization: null }, profile: member };
      const urn = String(org.details.urn);
      const vanityName = org.username ?? null;
      return {
        metadata: {
          accountType: 'organization',
          organizationUrn: urn,
          organization: { id: org.id, urn, name: org.name, vanityName, logoUrl: org.picture ?? null },
        },
        profile: {
          ...member,
          username: vanityName ?? org.name,
          displayName: org.name,
          profileUrl: vanityName ? `https://www.linkedin.com/company/${vanityName}` : null,
          avatarUrl: org.picture ?? null,
        },
      };
    },
  };
}

/** The vanity name and kind in a profile URL, company URL or bare vanity name. */
export function parseLinkedInUrl(input: string): { kind: 'person' | 'organization' | 'unknown'; vanity: string } {
  const trimmed = input.trim().replace(/\/+$/, '');
  const m =
    /(?:^|\/\/|\.)linkedin\.com\/(in|company|school|showcase)\/([^/?#]+)/i.exec(trimmed) ??
    /^(?:www\.)?linkedin\.com\/(in|company|school|showcase)\/([^/?#]+)/i.exec(trimmed);
  if (m) return { kind: m[1].toLowerCase() === 'in' ? 'person' : 'organization', vanity: decodeURIComponent(m[2]) };
  return { kind: 'unknown', vanity: trimmed.replace(/^@/, '') };
}

/**
 * Turns a profile/company URL into a mention. Organizations: lookup by vanity name. People: the People
 * Typeahead API over the followers of an organization the member administers (LinkedIn offers no
 * other member lookup, so person mentions need an administered page).
 * https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-atmention-search-api
 */
export async function resolveMention(
  opts: LinkedInOptions,
  io: PlatformIO,
  account: AccountCredentials,
  query: { url: string; displayName?: string | null },
): Promise<MentionResolution> {
  const token = account.accessToken;
  if (!token) throw new PlatformError('auth', 'the LinkedIn account has no access token');
  const { kind, vanity } = parseLinkedInUrl(query.url);
  if (!vanity || !/^[\w\-%.]+$/u.test(vanity))
    throw new PlatformError('rejected', `"${query.url}" is not a LinkedIn profile or company URL`);

  if (kind !== 'person') {
    const res = await liRequest(opts, io, {
      method: 'GET',
      url: `${opts.apiUrl}/rest/organizations?q=vanityName&vanityName=${encodeURIComponent(vanity)}`,
      token,
    });
    const org = res.body?.elements?.[0];
    if (org) {
      const o = present(org);
      const name = query.displayName || o.name;
      return {
        urn: o.urn,
        type: 'organization',
        displayName: name,
        mentionFormat: `@[${name}](${o.urn})`,
        vanityName: o.vanityName ?? vanity,
      };
    }
    if (kind === 'organization')
      throw new PlatformError('rejected', `no LinkedIn organization "${vanity}"`, { status: 404 });
  }

  const selected = typeof account.metadata.organizationUrn === 'string' ? account.metadata.organizationUrn : null;
  const orgUrn = selected ?? (await listOrganizations(opts, io, token))[0]?.urn ?? null;
  if (!orgUrn)
    throw new PlatformError('rejected', 'person mentions need the LinkedIn account to administer a company page');
  const res = await liRequest(opts, io, {
    method: 'GET',
    url: `${opts.apiUrl}/rest/peopleTypeahead?q=organizationFollowers&organization=${encodeURIComponent(orgUrn)}&keywords=${encodeURIComponent(vanity)}`,
    token,
  });
  const person = res.body?.elements?.[0];
  if (!person?.member)
    throw new PlatformError('rejected', `no LinkedIn member "${vanity}" among the page's followers`, { status: 404 });
  const derived = [person.firstName, person.lastName].filter(Boolean).join(' ') || vanity;
  const name = query.displayName || derived;
  return {
    urn: String(person.member),
    type: 'person',
    displayName: name,
    mentionFormat: `@[${name}](${person.member})`,
    warning: query.displayName
      ? null
      : 'displayName was not given: the mention is only clickable when its text matches the member name exactly',
  };
}
