// `ferromcp/experimental/tasks/interfaces.js` as an ES module: re-exports the CommonJS build.
import cjs from '../../../dist/sdk/experimental/tasks/interfaces.js';

export const { isTerminal } = cjs;
