import { Type, type TSchema } from '@sinclair/typebox';
import type { DestinationChoice, DestinationNotFound, DestinationsDeclaration } from '../destinations.js';
import type { Destination } from '../types.js';

/*
 * LinkedIn's organization selection on the hosted API's wire (reference: api-reference.md section 7,
 * late-openapi-1.0.1.yaml /v1/connect/linkedin/* and /v1/accounts/{accountId}/linkedin-organization*).
 * The headless flow hands over a pending data token; the member themself is a valid choice
 * (`accountType: personal`).
 */

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const ORG_URN = /^urn:li:organization:/;

/** `accountType` and `selectedOrganization` of both select bodies. */
function choose(body: Record<string, unknown>): DestinationChoice {
  if (body.accountType !== 'organization') return { id: null };
  const org = body.selectedOrganization as { id: string; urn?: string } | undefined;
  if (!org) {
    return {
      invalid: {
        message: 'selectedOrganization is required for an organization account',
        fields: { selectedOrganization: ['is required when accountType is organization'] },
      },
    };
  }
  const id = org.id.replace(ORG_URN, '');
  if (org.urn !== undefined && org.urn !== `urn:li:organization:${id}`) {
    return {
      invalid: {
        message: 'selectedOrganization.urn does not match its id',
        fields: { 'selectedOrganization.urn': [`must be urn:li:organization:${id}`] },
      },
    };
  }
  return { id };
}

const notFound: DestinationNotFound = {
  code: 'organization_not_found',
  status: 400,
  field: 'selectedOrganization',
  message: 'selectedOrganization is not an organization this member administers',
};

const accountType = Type.Union([Type.Literal('personal'), Type.Literal('organization')]);
const str = (d: Destination, key: string) => (typeof d.details[key] === 'string' ? (d.details[key] as string) : null);

export const LINKEDIN_DESTINATIONS: DestinationsDeclaration = {
  kind: 'organization',
  connect: {
    list: {
      path: '/connect/linkedin/organizations',
      summary: 'Organization details for a pending LinkedIn connection (X-Connect-Token or API key)',
      query: Type.Object({
        tempToken: Type.String({ minLength: 1, maxLength: 200 }),
        orgIds: Type.Optional(Type.String({ maxLength: 4000 })),
      }),
      filter: { field: 'orgIds', max: 100 },
      key: 'organizations',
      item: Type.Object({
        id: Type.String(),
        urn: Type.String(),
        name: Type.String(),
        logoUrl: Type.Optional(Nullable(Type.String())),
        vanityName: Type.Optional(Nullable(Type.String())),
        website: Type.Optional(Nullable(Type.String())),
        industry: Type.Optional(Nullable(Type.String())),
        description: Type.Optional(Nullable(Type.String())),
      }),
      present: (d) => ({
        id: d.id,
        urn: str(d, 'urn'),
        name: d.name,
        logoUrl: d.picture ?? null,
        vanityName: d.username ?? null,
        website: str(d, 'website'),
        industry: str(d, 'industry'),
        description: str(d, 'description'),
      }),
    },
    select: {
      path: '/connect/linkedin/select-organization',
      summary: 'Finish a headless LinkedIn connection as the member or an organization',
      body: Type.Object({
        profileId: Type.String({ minLength: 1, maxLength: 64 }),
        tempToken: Type.String({ minLength: 1, maxLength: 200 }),
        userProfile: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        accountType,
        selectedOrganization: Type.Optional(
          Type.Object({
            id: Type.String({ minLength: 1 }),
            urn: Type.String({ minLength: 1 }),
            name: Type.String({ minLength: 1 }),
            logoUrl: Type.Optional(Type.String()),
            vanityName: Type.Optional(Type.String()),
          }),
        ),
        redirect_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2000 })),
      }),
      choose,
      notFound,
      message: 'LinkedIn account connected',
      account: {
        properties: { accountType: Type.String() },
        present: (d) => ({ accountType: d ? 'organization' : 'personal' }),
      },
      extra: {
        properties: { bulkRefresh: Type.Object({ updatedCount: Type.Integer(), errors: Type.Integer() }) },
        value: { bulkRefresh: { updatedCount: 0, errors: 0 } },
      },
    },
    // Spec: the headless LinkedIn redirect carries only the pending data token.
    headless: {
      pendingData: {
        selectionType: 'organizations',
        key: 'organizations',
        item: Type.Object({
          id: Type.String(),
          urn: Type.String(),
          name: Type.String(),
          vanityName: Nullable(Type.String()),
        }),
        present: (d) => ({ id: d.id, urn: str(d, 'urn'), name: d.name, vanityName: d.username ?? null }),
      },
    },
  },
  account: {
    list: {
      path: 'linkedin-organizations',
      summary: 'Organizations the LinkedIn account can post as',
      key: 'organizations',
      item: Type.Object({
        id: Type.String(),
        urn: Type.String(),
        name: Type.String(),
        localizedName: Type.String(),
        vanityName: Nullable(Type.String()),
        logoUrl: Nullable(Type.String()),
      }),
      present: (d) => ({
        id: d.id,
        urn: str(d, 'urn'),
        name: d.name,
        localizedName: d.name,
        vanityName: d.username ?? null,
        logoUrl: d.picture ?? null,
      }),
    },
    select: {
      path: 'linkedin-organization',
      summary: 'Post as the member (personal) or as one of their organizations',
      body: Type.Object({
        accountType,
        selectedOrganization: Type.Optional(
          Type.Object({
            id: Type.String({ minLength: 1 }),
            urn: Type.Optional(Type.String()),
            name: Type.Optional(Type.String()),
            vanityName: Type.Optional(Type.String()),
            logoUrl: Type.Optional(Type.String()),
          }),
        ),
      }),
      choose,
      notFound,
      message: 'LinkedIn account type updated',
      respond: { with: 'account' },
    },
  },
};
