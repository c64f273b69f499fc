import { Type, type TSchema } from '@sinclair/typebox';
import { PlatformError } from '../types.js';
import { platformTool } from '../tools.js';
import { gbpRequest, token } from './api.js';
import type { GoogleBusinessAdapter } from './index.js';
import { LOCATION_TOOLS } from './location-tools.js';
import { PERFORMANCE_TOOLS } from './performance.js';
import { SEARCH_KEYWORD_TOOLS } from './search-keywords.js';
import { REVIEW_TOOLS } from './review-tools.js';
import { REVIEW_ID_TOOLS } from './review-id-tools.js';
import { SERVICES_TOOLS } from './services-tools.js';
import { VERIFICATION_TOOLS } from './verification-tools.js';
import { ASSIGN_TOOLS } from './assign-tool.js';

/*
 * The location tools of the hosted API (api-reference.md section 6, late-openapi-1.0.1.yaml
 * /v1/accounts/{accountId}/gmb-*): each acts on the account's selected location, or on `locationId`
 * (`locations/<n>` or `<n>`) when the query names another one the user manages.
 */

const Opt = <T extends TSchema>(s: T) => Type.Optional(s);
const Label = Type.Object({
  displayName: Type.String({ minLength: 1, maxLength: 140 }),
  description: Opt(Type.String({ maxLength: 1000 })),
  languageCode: Opt(Type.String({ maxLength: 35 })),
});
const Money = Type.Object({
  currencyCode: Type.String({ pattern: '^[A-Z]{3}$' }),
  units: Type.String({ pattern: '^-?[0-9]+$' }),
  nanos: Opt(Type.Integer()),
});
const ItemAttributes = Type.Object({
  price: Opt(Money),
  spiciness: Opt(Type.String()),
  allergen: Opt(Type.Array(Type.String())),
  dietaryRestriction: Opt(Type.Array(Type.String())),
  servesNumPeople: Opt(Type.Integer({ minimum: 0 })),
  preparationMethods: Opt(Type.Array(Type.String())),
  mediaKeys: Opt(Type.Array(Type.String())),
});
const Item = Type.Object({
  labels: Type.Array(Label, { minItems: 1 }),
  attributes: Opt(ItemAttributes),
  options: Opt(Type.Array(Type.Object({ labels: Opt(Type.Array(Label)), attributes: Opt(ItemAttributes) }))),
});
const Section = Type.Object({ labels: Type.Array(Label, { minItems: 1 }), items: Opt(Type.Array(Item)) });
/** The seed's FoodMenu (late-openapi-1.0.1.yaml components.schemas.FoodMenu), Google's v4 FoodMenu. */
const FoodMenu = Type.Object({
  labels: Type.Array(Label, { minItems: 1 }),
  sections: Opt(Type.Array(Section)),
  cuisines: Opt(Type.Array(Type.String())),
  sourceUrl: Opt(Type.String()),
});

const LocationQuery = Type.Object({
  locationId: Opt(Type.String({ pattern: '^(locations/)?[0-9]+$', maxLength: 40 })),
});
const MenusAnswer = Type.Object({
  success: Type.Boolean(),
  accountId: Type.String(),
  locationId: Type.String(),
  name: Type.String(),
  menus: Type.Array(FoodMenu),
});

const tool = platformTool<GoogleBusinessAdapter>();

/** GET /v1/accounts/{accountId}/gmb-food-menus: accounts.locations.getFoodMenus. */
const getFoodMenus = tool({
  method: 'GET',
  path: 'gmb-food-menus',
  tags: ['GMB Food Menus'],
  summary: 'Get food menus',
  querystring: LocationQuery,
  response: MenusAnswer,
  async handler({ adapter, account, query, io }) {
    const where = await adapter.resolveLocation(account!, query.locationId, io);
    const res = await gbpRequest(io, {
      method: 'GET',
      url: `${adapter.options.apiUrl}/v4/${where.v4}/foodMenus`,
      token: token(account!),
    });
    return {
      body: {
        success: true,
        accountId: account!.accountId,
        locationId: where.locationId,
        name: String(res.body?.name ?? `${where.v4}/foodMenus`),
        menus: res.body?.menus ?? [],
      },
    };
  },
});

/**
 * PUT /v1/accounts/{accountId}/gmb-food-menus: accounts.locations.updateFoodMenus (PATCH with
 * `updateMask`, whose one field is `menus`; without one the whole FoodMenus resource is replaced).
 */
const putFoodMenus = tool({
  method: 'PUT',
  path: 'gmb-food-menus',
  tags: ['GMB Food Menus'],
  summary: 'Update food menus',
  querystring: LocationQuery,
  body: Type.Object({
    menus: Type.Array(FoodMenu, { maxItems: 100 }),
    updateMask: Opt(Type.String({ maxLength: 200 })),
  }),
  response: MenusAnswer,
  async handler({ adapter, account, query, body, io }) {
    if (body.updateMask !== undefined && body.updateMask.split(',').some((p) => p.trim() !== 'menus')) {
      throw new PlatformError(
        'rejected',
        'updateMask may only name "menus", the one field of a location\'s food menus',
        { platformCode: 'invalid_update_mask' },
      );
    }
    const where = await adapter.resolveLocation(account!, query.locationId, io);
    const mask = body.updateMask ? `?updateMask=${encodeURIComponent(body.updateMask)}` : '';
    const res = await gbpRequest(io, {
      method: 'PATCH',
      url: `${adapter.options.apiUrl}/v4/${where.v4}/foodMenus${mask}`,
      token: token(account!),
      json: { name: `${where.v4}/foodMenus`, menus: body.menus },
    });
    return {
      body: {
        success: true,
        accountId: account!.accountId,
        locationId: where.locationId,
        name: String(res.body?.name ?? `${where.v4}/foodMenus`),
        menus: res.body?.menus ?? [],
      },
    };
  },
});

/** Google Business's own routes (platforms/tools.ts). */
export const GOOGLEBUSINESS_TOOLS = [
  getFoodMenus,
  putFoodMenus,
  ...LOCATION_TOOLS,
  ...REVIEW_TOOLS,
  ...REVIEW_ID_TOOLS,
  ...SERVICES_TOOLS,
  ...VERIFICATION_TOOLS,
  ...ASSIGN_TOOLS,
  ...PERFORMANCE_TOOLS,
  ...SEARCH_KEYWORD_TOOLS,
];
