// `ferromcp/client/index.js` as an ES module: re-exports the CommonJS build.
import cjs from '../../dist/sdk/client/index.js';

export const { Client } = cjs;
