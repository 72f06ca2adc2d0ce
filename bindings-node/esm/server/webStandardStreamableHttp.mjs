// `ferromcp/server/webStandardStreamableHttp.js` as an ES module: re-exports the CommonJS build.
import cjs from '../../dist/sdk/server/webStandardStreamableHttp.js';

export const { WebStandardStreamableHTTPServerTransport } = cjs;
