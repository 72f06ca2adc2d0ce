// `ferromcp/client/stdio.js` as an ES module: re-exports the CommonJS build.
import cjs from '../../dist/sdk/client/stdio.js';

export const { StdioClientTransport, getDefaultEnvironment } = cjs;
