import type { AppContext } from '../../context.js';
import { AppError, invalid } from '../../errors.js';
import { toolFailure } from '../accounts/tool-failure.js';
import { descriptorOf, type Platform } from '../../platforms/catalogue.js';
import type { PlatformDescriptor } from '../../platforms/descriptor.js';
import type { DestinationChoice, DestinationNotFound, DestinationsDeclaration } from '../../platforms/destinations.js';
import { createPlatformIO } from '../../platforms/io.js';
import {
  PlatformError,
  type Destination,
  type DestinationSelection,
  type DestinationsCapability,
  type DestinationUser,
  type PlatformIO,
} from '../../platforms/types.js';

/*
 * The destinations group of a platform, shared by the connect selection (domain/connect/selection.ts) and
 * the account side (domain/accounts/destinations.ts): finding the group, reading a choice, and checking
 * a chosen id against the platform's own list for the token.
 */

export interface DestinationsOf {
  platform: Platform;
  descriptor: PlatformDescriptor;
  name: string;
  declaration: DestinationsDeclaration;
  group: DestinationsCapability;
}

/** The platform's declaration and its adapter's group; 400 `platform_not_configured` without an adapter. */
export function destinationsOf(ctx: AppContext, platform: Platform): DestinationsOf {
  const descriptor = descriptorOf(platform);
  const declaration = descriptor?.capabilities.destinations;
  const group = ctx.platforms.get(platform)?.destinations;
  if (!descriptor || !declaration || !group) {
    throw new AppError(
      'invalid',
      'platform_not_configured',
      `${descriptor?.name ?? platform} is not configured on this server`,
      { platform },
    );
  }
  return { platform, descriptor, name: descriptor.name, declaration, group };
}

export const destinationsIO = (ctx: AppContext): PlatformIO => createPlatformIO({ now: () => ctx.clock.now() });

/**
 * A platform failure while listing or selecting, as platform tools map them: refused 400, throttled 429,
 * a refused token 400 `account_reauthorization_required`, anything else 502.
 */
export function destinationsFailure(of: DestinationsOf, error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof PlatformError) return toolFailure(of.descriptor, error);
  return new AppError(
    'upstream',
    'platform_unavailable',
    `${of.name} ${of.group.kind}s could not be read; try again`,
    { platform: of.platform },
    { cause: error },
  );
}

export async function listDestinations(
  ctx: AppContext,
  of: DestinationsOf,
  accessToken: string,
  ids?: string[],
): Promise<Destination[]> {
  try {
    return await of.group.list({ accessToken }, destinationsIO(ctx), ids?.length ? { ids } : undefined);
  } catch (error) {
    throw destinationsFailure(of, error);
  }
}

/** The id a body chose, or null for the user themself; 400 when the body is incomplete. */
export function readChoice(
  of: DestinationsOf,
  choice: DestinationChoice,
  notFound: DestinationNotFound,
): string | null {
  if ('invalid' in choice) throw invalid('validation_error', choice.invalid.message, { fields: choice.invalid.fields });
  if (choice.id === null && !of.group.personal) {
    throw invalid('validation_error', `${notFound.field} is required`, {
      fields: { [notFound.field]: ['is required'] },
    });
  }
  return choice.id;
}

/**
 * The chosen destination as the platform lists it for this token: never any id a body names. Its
 * `notFound` error (400 or 404) when the token's user cannot post there. `idOf`: which of a destination's
 * ids the choice names (default its own).
 */
export async function listedDestination(
  ctx: AppContext,
  of: DestinationsOf,
  accessToken: string,
  id: string,
  notFound: DestinationNotFound,
  idOf: (d: Destination) => string | null = (d) => d.id,
): Promise<Destination> {
  const found = (await listDestinations(ctx, of, accessToken)).find((d) => idOf(d) === id);
  if (found) return found;
  const fields = { [notFound.field]: [`must be one of the ${of.group.kind}s listed for this ${of.name} user`] };
  throw new AppError(notFound.status === 404 ? 'not_found' : 'invalid', notFound.code, notFound.message, { fields });
}

/** The ids of a comma list filter (LinkedIn `orgIds`), at most `max`. */
export function filterIds(value: unknown, filter: { field: string; max: number }): string[] {
  const ids = (typeof value === 'string' ? value : '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (ids.length > filter.max) {
    throw invalid('validation_error', `${filter.field} holds at most ${filter.max} ids`, {
      fields: { [filter.field]: [`must hold at most ${filter.max} ids`] },
    });
  }
  return ids;
}

/** Runs the platform's `select`, mapping its failures like a listing's. */
export async function runSelect(
  ctx: AppContext,
  of: DestinationsOf,
  destination: Destination | null,
  user: DestinationUser,
): Promise<DestinationSelection> {
  try {
    return await of.group.select(destination, user, destinationsIO(ctx));
  } catch (error) {
    throw destinationsFailure(of, error);
  }
}
