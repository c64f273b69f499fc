import { Type } from '@sinclair/typebox';

/** An app password: its format is checked by the service (400 `invalid_app_password` with a clear message). */
export const AppPassword = Type.String({ maxLength: 200, description: 'A Bluesky app password, xxxx-xxxx-xxxx-xxxx (never the main password)' });
