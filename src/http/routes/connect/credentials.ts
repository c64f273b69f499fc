import type { AppContext } from '../../../context.js';
import { CATALOGUE } from '../../../platforms/catalogue.js';
import type { PlatformDescriptor } from '../../../platforms/descriptor.js';
import type { App } from '../../app.js';
import connectCredentials from './connect-credentials.js';
import connectCredentialsSdk from './connect-credentials-sdk.js';

/**
 * The connect endpoints of every platform that connects with credentials (descriptor `connect:
 * 'credentials'`): POST /v1/connect/{platform} (the spec's body) and /v1/connect/{platform}/credentials
 * (the official SDK's). Static paths: they win over /connect/:platform.
 */
export function registerCredentialsConnectRoutes(app: App, ctx: AppContext): void {
  for (const d of CATALOGUE as readonly PlatformDescriptor[]) {
    if (d.capabilities.connect !== 'credentials') continue;
    connectCredentials(app, ctx, d);
    connectCredentialsSdk(app, ctx, d);
  }
}
