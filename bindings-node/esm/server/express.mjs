// `ferromcp/server/express.js` as an ES module: re-exports the CommonJS build.
import cjs from '../../dist/sdk/server/express.js';

export const { createMcpExpressApp, hostHeaderValidation, localhostHostValidation } = cjs;
