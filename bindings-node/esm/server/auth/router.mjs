// `ferromcp/server/auth/router.js` as an ES module: re-exports the CommonJS build.
import cjs from '../../../dist/sdk/server/auth/router.js';

export const { createOAuthMetadata, getOAuthProtectedResourceMetadataUrl, mcpAuthMetadataRouter, mcpAuthRouter } = cjs;
