// `ferromcp/shared/auth-utils.js` as an ES module: re-exports the CommonJS build.
import cjs from '../../dist/sdk/shared/auth-utils.js';

export const { checkResourceAllowed, resourceUrlFromServerUrl } = cjs;
