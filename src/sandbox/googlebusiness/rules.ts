/*
 * The v4 calls (local posts, food menus, media) and the Place Actions API have no machine-readable
 * contract: their rules here are written from Google's reference pages, each cited where it applies.
 */

/** A problem of a request body: the message and the field Google names. */
export interface BodyProblem {
  message: string;
  field: string;
}

const unknownField = (where: string, key: string): BodyProblem => ({
  message: `Invalid JSON payload received. Unknown name "${key}" at '${where}': Cannot find field.`,
  field: key,
});

function onlyFields(value: Record<string, unknown>, allowed: string[], where: string): BodyProblem | null {
  const extra = Object.keys(value).find((k) => !allowed.includes(k));
  return extra ? unknownField(where, extra) : null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An absolute https URL without user info: what Google can fetch (it does not follow logins). */
function fetchableUrl(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  try {
    const u = new URL(v);
    return u.protocol === 'https:' && !u.username && !u.password;
  } catch {
    return false;
  }
}

// LocalPost: https://developers.google.com/my-business/reference/rest/v4/accounts.locations.localPosts#LocalPost
const LOCAL_POST_FIELDS = [
  'name',
  'languageCode',
  'summary',
  'callToAction',
  'createTime',
  'updateTime',
  'event',
  'state',
  'media',
  'searchUrl',
  'topicType',
  'alertType',
  'offer',
];
// LocalPostTopicType and CallToAction.ActionType of the same page.
const TOPIC_TYPES = ['STANDARD', 'EVENT', 'OFFER', 'ALERT'];
const ACTION_TYPES = ['BOOK', 'ORDER', 'SHOP', 'LEARN_MORE', 'SIGN_UP', 'GET_OFFER', 'CALL'];
/** The post's text: at most 1,500 characters (https://support.google.com/business/answer/7662907, "Add posts"). */
const SUMMARY_MAX = 1500;

/** The first problem of a localPosts.create body, or null. */
export function checkLocalPost(body: unknown): BodyProblem | null {
  if (!isObject(body)) return { message: 'Invalid JSON payload received. Expected an object.', field: 'local_post' };
  const unknown = onlyFields(body, LOCAL_POST_FIELDS, 'local_post');
  if (unknown) return unknown;
  if (!(TOPIC_TYPES as readonly unknown[]).includes(body.topicType))
    return { message: 'topicType is required: one of STANDARD, EVENT, OFFER, ALERT', field: 'topic_type' };
  if (body.summary !== undefined && typeof body.summary !== 'string')
    return { message: 'summary must be a string', field: 'summary' };
  if ([...(body.summary ?? '')].length > SUMMARY_MAX)
    return { message: `summary is longer than ${SUMMARY_MAX} characters`, field: 'summary' };
  // A STANDARD post says something: a summary or a photo.
  if (body.topicType === 'STANDARD' && !body.summary && !(Array.isArray(body.media) && body.media.length))
    return { message: 'summary is required', field: 'summary' };
  // EVENT and OFFER posts carry `event` with a title and a schedule (same page, LocalPostEvent).
  if (
    (body.topicType === 'EVENT' || body.topicType === 'OFFER') &&
    !(isObject(body.event) && body.event.title && isObject(body.event.schedule))
  ) {
    return { message: 'event.title and event.schedule are required for EVENT and OFFER posts', field: 'event' };
  }
  if (body.callToAction !== undefined) {
    const cta = body.callToAction;
    if (!isObject(cta)) return { message: 'callToAction must be an object', field: 'call_to_action' };
    const bad = onlyFields(cta, ['actionType', 'url'], 'local_post.call_to_action');
    if (bad) return bad;
    if (!(ACTION_TYPES as readonly unknown[]).includes(cta.actionType))
      return {
        message: `callToAction.actionType must be one of ${ACTION_TYPES.join(', ')}`,
        field: 'call_to_action.action_type',
      };
    // CallToAction.url: "This field should be left unset for Call CTA."
    if (cta.actionType === 'CALL' && cta.url !== undefined)
      return { message: 'callToAction.url must be unset for a CALL action', field: 'call_to_action.url' };
    if (cta.actionType !== 'CALL' && !fetchableUrl(cta.url) && !/^http:\/\//.test(String(cta.url ?? '')))
      return { message: 'callToAction.url must be a valid URL', field: 'call_to_action.url' };
  }
  if (body.media !== undefined) {
    if (!Array.isArray(body.media)) return { message: 'media must be a list', field: 'media' };
    // Posts made through the API take one photo (posts guide: https://developers.google.com/my-business/content/posts-data).
    if (body.media.length > 1) return { message: 'a local post takes at most one media item', field: 'media' };
    for (const item of body.media) {
      const problem = checkMediaItem(item, 'local_post.media');
      if (problem) return problem;
      if (item.mediaFormat !== 'PHOTO')
        return { message: 'local posts take photos only (mediaFormat PHOTO)', field: 'media.media_format' };
    }
  }
  return null;
}

// MediaItem: https://developers.google.com/my-business/reference/rest/v4/accounts.locations.media#MediaItem
const MEDIA_FIELDS = [
  'name',
  'mediaFormat',
  'locationAssociation',
  'googleUrl',
  'thumbnailUrl',
  'createTime',
  'dimensions',
  'insights',
  'attribution',
  'description',
  'sourceUrl',
  'dataRef',
];
const MEDIA_CATEGORIES = [
  'COVER',
  'PROFILE',
  'LOGO',
  'EXTERIOR',
  'INTERIOR',
  'PRODUCT',
  'AT_WORK',
  'FOOD_AND_DRINK',
  'MENU',
  'COMMON_AREA',
  'ROOMS',
  'TEAMS',
  'ADDITIONAL',
];

/** A MediaItem as sent (a post's photo or media.create): its format and a source URL Google can fetch. */
function checkMediaItem(item: unknown, where: string): BodyProblem | null {
  if (!isObject(item)) return { message: 'a media item must be an object', field: 'media' };
  const unknown = onlyFields(item, MEDIA_FIELDS, where);
  if (unknown) return unknown;
  if (item.mediaFormat !== 'PHOTO' && item.mediaFormat !== 'VIDEO')
    return { message: 'mediaFormat must be PHOTO or VIDEO', field: 'media_format' };
  // Google fetches sourceUrl itself: it must be publicly reachable (media guide:
  // https://developers.google.com/my-business/content/upload-photos). The simulator cannot reach the
  // internet, so it holds the URL to the form Google can fetch (https, no user info) and records it.
  if (item.dataRef === undefined && !fetchableUrl(item.sourceUrl))
    return { message: 'sourceUrl must be a publicly accessible https URL', field: 'source_url' };
  return null;
}

/** media.create: a MediaItem with a location association (a category or a price list item). */
export function checkNewMedia(body: unknown): BodyProblem | null {
  const problem = checkMediaItem(body, 'media_item');
  if (problem) return problem;
  const assoc = (body as Record<string, unknown>).locationAssociation;
  if (
    !isObject(assoc) ||
    (!(MEDIA_CATEGORIES as readonly unknown[]).includes(assoc.category) && !assoc.priceListItemId)
  ) {
    return {
      message: `locationAssociation.category is required: one of ${MEDIA_CATEGORIES.join(', ')}`,
      field: 'location_association',
    };
  }
  return null;
}

// FoodMenus: https://developers.google.com/my-business/reference/rest/v4/FoodMenus
const labelsOk = (labels: unknown) =>
  Array.isArray(labels) &&
  labels.length > 0 &&
  labels.every(
    (l) =>
      isObject(l) &&
      typeof l.displayName === 'string' &&
      l.displayName.length > 0 &&
      l.displayName.length <= 140 &&
      (l.description === undefined || String(l.description).length <= 1000),
  );

/** The first problem of an updateFoodMenus body (`{name?, menus}`), or null. */
export function checkFoodMenus(body: unknown): BodyProblem | null {
  if (!isObject(body)) return { message: 'Invalid JSON payload received. Expected an object.', field: 'food_menus' };
  const unknown = onlyFields(body, ['name', 'menus'], 'food_menus');
  if (unknown) return unknown;
  if (!Array.isArray(body.menus)) return { message: 'menus must be a list', field: 'menus' };
  for (const [m, menu] of body.menus.entries()) {
    // FoodMenu.labels and .sections are required; MenuLabel.displayName at most 140, description 1000.
    if (!isObject(menu) || !labelsOk(menu.labels))
      return {
        message: `menus[${m}].labels: at least one label with a displayName of 1 to 140 characters`,
        field: `menus[${m}].labels`,
      };
    if (!Array.isArray(menu.sections) || !menu.sections.length)
      return { message: `menus[${m}].sections is required`, field: `menus[${m}].sections` };
    for (const [s, section] of menu.sections.entries()) {
      if (!isObject(section) || !labelsOk(section.labels))
        return { message: `menus[${m}].sections[${s}].labels is required`, field: `menus[${m}].sections[${s}].labels` };
      if (!Array.isArray(section.items) || !section.items.length)
        return { message: `menus[${m}].sections[${s}].items is required`, field: `menus[${m}].sections[${s}].items` };
      for (const [i, item] of section.items.entries()) {
        const at = `menus[${m}].sections[${s}].items[${i}]`;
        // FoodMenuItem.labels and .attributes are required; a price is Money {currencyCode, units, nanos}.
        if (!isObject(item) || !labelsOk(item.labels))
          return { message: `${at}.labels is required`, field: `${at}.labels` };
        if (!isObject(item.attributes)) return { message: `${at}.attributes is required`, field: `${at}.attributes` };
        const price = item.attributes.price;
        if (
          price !== undefined &&
          !(
            isObject(price) &&
            /^[A-Z]{3}$/.test(String(price.currencyCode)) &&
            (price.units === undefined || /^-?\d+$/.test(String(price.units)))
          )
        ) {
          return {
            message: `${at}.attributes.price must be Money {currencyCode, units, nanos}`,
            field: `${at}.attributes.price`,
          };
        }
      }
    }
  }
  return null;
}

// PlaceActionLink: https://developers.google.com/my-business/reference/placeactions/rest/v1/locations.placeActionLinks
const PLACE_ACTION_TYPES = [
  'APPOINTMENT',
  'ONLINE_APPOINTMENT',
  'DINING_RESERVATION',
  'FOOD_ORDERING',
  'FOOD_DELIVERY',
  'FOOD_TAKEOUT',
  'SHOP_ONLINE',
  'SOLOPRENEUR_APPOINTMENT',
];

export function checkPlaceActionLink(body: unknown): BodyProblem | null {
  if (!isObject(body))
    return { message: 'Invalid JSON payload received. Expected an object.', field: 'place_action_link' };
  const unknown = onlyFields(
    body,
    ['name', 'providerType', 'isEditable', 'uri', 'placeActionType', 'isPreferred', 'createTime', 'updateTime'],
    'place_action_link',
  );
  if (unknown) return unknown;
  if (!(PLACE_ACTION_TYPES as readonly unknown[]).includes(body.placeActionType))
    return {
      message: `placeActionType is required: one of ${PLACE_ACTION_TYPES.join(', ')}`,
      field: 'place_action_type',
    };
  if (!fetchableUrl(body.uri)) return { message: 'uri must be an https URL', field: 'uri' };
  return null;
}

/**
 * Location.serviceItems (Business Information v1 ServiceItem, whose required fields the discovery document
 * marks "Required." in their descriptions): each item is structured (`serviceTypeId`) or free-form
 * (`category` and `label.displayName`), one of the two; a structured description is at most 300 characters.
 */
export function checkServiceItems(items: unknown): BodyProblem | null {
  if (items === undefined) return null;
  if (!Array.isArray(items)) return { message: 'serviceItems must be a list', field: 'service_items' };
  for (const [i, item] of items.entries()) {
    const where = `service_items[${i}]`;
    if (!isObject(item)) return { message: `${where} must be an object`, field: where };
    const s = item.structuredServiceItem;
    const f = item.freeFormServiceItem;
    if (Boolean(s) === Boolean(f))
      return {
        message: `${where} must set exactly one of structured_service_item or free_form_service_item`,
        field: where,
      };
    if (s && !(isObject(s) && typeof s.serviceTypeId === 'string' && s.serviceTypeId))
      return {
        message: `${where}.structured_service_item.service_type_id is required`,
        field: `${where}.structured_service_item.service_type_id`,
      };
    if (isObject(s) && typeof s.description === 'string' && [...s.description].length > 300)
      return {
        message: `${where}.structured_service_item.description is longer than 300 characters`,
        field: `${where}.structured_service_item.description`,
      };
    if (
      f &&
      !(
        isObject(f) &&
        typeof f.category === 'string' &&
        f.category &&
        isObject(f.label) &&
        typeof f.label.displayName === 'string' &&
        f.label.displayName
      )
    ) {
      return {
        message: `${where}.free_form_service_item needs category and label.display_name`,
        field: `${where}.free_form_service_item`,
      };
    }
  }
  return null;
}
