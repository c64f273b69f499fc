import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthUser } from '../oauth.js';
import type { FaultKind } from '../faults.js';
import { hangUp, type SimulatorState } from '../types.js';
import { liError, liStore, type LiOrganization } from './store.js';

type Rest = (request: FastifyRequest, reply: FastifyReply) => OAuthUser | null;
type SendFault = (reply: FastifyReply, fault: FaultKind | null, rejection: string) => boolean;

function presentOrg(org: LiOrganization) {
  return {
    id: Number(org.id),
    localizedName: org.localizedName,
    vanityName: org.vanityName,
    localizedWebsite: org.localizedWebsite,
    name: { localized: { en_US: org.localizedName }, preferredLocale: { country: 'US', language: 'en' } },
  };
}

/** Organization access control, organization lookup (by id and vanity name) and People Typeahead. */
export function registerLinkedInLookups(
  app: FastifyInstance,
  state: SimulatorState,
  rest: Rest,
  sendFault: SendFault,
): void {
  app.get('/rest/organizationAcls', async (request, reply) => {
    const user = rest(request, reply);
    if (!user) return reply;
    const q = request.query as Record<string, string>;
    if (q.q !== 'roleAssignee') return liError(reply, 400, 'q must be roleAssignee', { code: 'ILLEGAL_ARGUMENT' });
    const fault = state.faults.take('destinations');
    if (sendFault(reply, fault, 'The request was refused')) return reply;
    if (fault === 'ambiguous') return hangUp(reply);
    const elements = [...liStore(state).organizations.values()]
      .filter((o) => o.admins.includes(user.id))
      .filter(() => !q.role || q.role === 'ADMINISTRATOR')
      .filter(() => !q.state || q.state === 'APPROVED')
      .map((o) => ({
        roleAssignee: `urn:li:person:${user.id}`,
        role: 'ADMINISTRATOR',
        state: 'APPROVED',
        organization: `urn:li:organization:${o.id}`,
      }));
    return { elements, paging: { start: 0, count: elements.length, links: [] } };
  });

  app.get<{ Params: { id: string } }>('/rest/organizations/:id', async (request, reply) => {
    const user = rest(request, reply);
    if (!user) return reply;
    const org = liStore(state).organizations.get(request.params.id);
    if (!org) return liError(reply, 404, `Organization ${request.params.id} not found`);
    return presentOrg(org);
  });

  app.get('/rest/organizations', async (request, reply) => {
    const user = rest(request, reply);
    if (!user) return reply;
    const q = request.query as Record<string, string>;
    if (q.q !== 'vanityName' || !q.vanityName)
      return liError(reply, 400, 'q=vanityName and vanityName are required', { code: 'ILLEGAL_ARGUMENT' });
    const elements = [...liStore(state).organizations.values()]
      .filter((o) => o.vanityName.toLowerCase() === q.vanityName.toLowerCase())
      .map(presentOrg);
    return { elements, paging: { start: 0, count: 10, links: [], total: elements.length } };
  });

  app.get('/rest/peopleTypeahead', async (request, reply) => {
    const user = rest(request, reply);
    if (!user) return reply;
    const q = request.query as Record<string, string>;
    const orgId = /^urn:li:organization:(\d+)$/.exec(q.organization ?? '')?.[1];
    if (q.q !== 'organizationFollowers' || !orgId || !q.keywords) {
      return liError(reply, 400, 'q=organizationFollowers, organization and keywords are required', {
        code: 'ILLEGAL_ARGUMENT',
      });
    }
    const store = liStore(state);
    if (!store.organizations.get(orgId)?.admins.includes(user.id))
      return liError(reply, 403, 'Not an administrator of the organization', { code: 'ACCESS_DENIED' });
    const k = q.keywords.toLowerCase();
    const elements = store.people
      .filter((p) => p.follows.includes(orgId))
      .filter(
        (p) => p.vanityName === k || p.firstName.toLowerCase().startsWith(k) || p.lastName.toLowerCase().startsWith(k),
      )
      .slice(0, 10)
      .map((p) => ({ member: p.member, firstName: p.firstName, lastName: p.lastName, headline: '' }));
    return { elements };
  });
}
