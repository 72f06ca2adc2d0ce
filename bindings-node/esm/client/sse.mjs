// `ferromcp/client/sse.js` as an ES module: re-exports the CommonJS build.
import cjs from '../../dist/sdk/client/sse.js';

export const { SSEClientTransport } = cjs;
