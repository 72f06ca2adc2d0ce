// `ferromcp/server/auth/middleware/bearerAuth.js` as an ES module: re-exports the CommonJS build.
import cjs from '../../../../dist/sdk/server/auth/middleware/bearerAuth.js';

export const { requireBearerAuth } = cjs;
