// `ferromcp/client/auth-extensions.js` as an ES module: re-exports the CommonJS build.
import cjs from '../../dist/sdk/client/auth-extensions.js';

export const { ClientCredentialsProvider, PrivateKeyJwtProvider } = cjs;
