// `ferromcp/server/index.js` as an ES module: re-exports the CommonJS build.
import cjs from '../../dist/sdk/server/index.js';

export const { Server } = cjs;
