// `ferromcp/client/streamableHttp.js` as an ES module: re-exports the CommonJS build.
import cjs from '../../dist/sdk/client/streamableHttp.js';

export const { StreamableHTTPClientTransport } = cjs;
