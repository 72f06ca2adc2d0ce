// `ferromcp/server/stdio.js` as an ES module.
export { StdioServerTransport } from '../index.mjs';
