// `ferromcp/experimental/tasks/stores/in-memory.js` as an ES module: re-exports the CommonJS build.
import cjs from '../../../../dist/sdk/experimental/tasks/stores/in-memory.js';

export const { InMemoryTaskStore, InMemoryTaskMessageQueue } = cjs;
