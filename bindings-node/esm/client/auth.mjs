// `ferromcp/client/auth.js` as an ES module: re-exports the CommonJS build.
import cjs from '../../dist/sdk/client/auth.js';

export const { UnauthorizedError } = cjs;
