// `ferromcp/server/sse.js` as an ES module: re-exports the CommonJS build.
import cjs from '../../dist/sdk/server/sse.js';

export const { SSEServerTransport } = cjs;
