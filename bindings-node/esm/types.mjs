// `ferromcp/types.js` as an ES module: re-exports the CommonJS build (see ../ts/sdk/types.ts).
import cjs from '../dist/sdk/types.js';

export const {
  ErrorCode,
  McpError,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  isJSONRPCRequest,
  isJSONRPCNotification,
  isJSONRPCResultResponse,
  isJSONRPCResponse,
  isJSONRPCErrorResponse,
  isJSONRPCError,
  isInitializeRequest,
  isInitializedNotification,
} = cjs;
