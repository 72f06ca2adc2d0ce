// `ferromcp/server/streamableHttp.js` as an ES module: re-exports the CommonJS build.
import cjs from '../../dist/sdk/server/streamableHttp.js';

export const { StreamableHTTPServerTransport } = cjs;
