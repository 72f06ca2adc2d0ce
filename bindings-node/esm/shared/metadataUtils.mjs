// `ferromcp/shared/metadataUtils.js` as an ES module: re-exports the CommonJS build.
import cjs from '../../dist/sdk/shared/metadataUtils.js';

export const { getDisplayName } = cjs;
