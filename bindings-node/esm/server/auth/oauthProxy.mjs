// `ferromcp/server/auth/oauthProxy.js` as an ES module: re-exports the CommonJS build.
import cjs from '../../../dist/sdk/server/auth/oauthProxy.js';

export const { OAuthProxy } = cjs;
