/**
 * The TypeScript SDK's `server.server.experimental.tasks` on ferromcp's `McpServerCore`:
 * `elicitInputStream` and `createMessageStream`, requests to the client read as a stream of
 * messages (`{ type: 'result', result }` or `{ type: 'error', error }`). The request goes to
 * the client as `elicitInput`/`createMessage` send it (the running handler's client, else the
 * server's one live session); with `options.relatedTask` its params carry the related-task
 * `_meta`, as the SDK's do.
 * @internal
 * @module
 */
import { ErrorCode, McpError } from '../../../errors';
import type { CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult } from '../../../types';
import { RELATED_TASK_META_KEY } from '../../types';

/** A message of a request stream. */
export type ResponseMessage<T> = { type: 'result'; result: T } | { type: 'error'; error: McpError };

/** `server.server.experimental.tasks`. */
export interface CoreTaskStreams {
  elicitInputStream(params: ElicitRequestParams, options?: { relatedTask?: { taskId: string } }): AsyncGenerator<ResponseMessage<ElicitResult>, void, void>;
  createMessageStream(params: CreateMessageRequestParams, options?: { relatedTask?: { taskId: string } }): AsyncGenerator<ResponseMessage<CreateMessageResult>, void, void>;
}

interface Requester {
  elicitInput(params: ElicitRequestParams): Promise<ElicitResult>;
  createMessage(params: CreateMessageRequestParams): Promise<CreateMessageResult>;
}

const withTask = <P extends { _meta?: Record<string, unknown> }>(params: P, options?: { relatedTask?: { taskId: string } }): P =>
  options?.relatedTask ? { ...params, _meta: { ...(params._meta ?? {}), [RELATED_TASK_META_KEY]: { taskId: options.relatedTask.taskId } } } : params;

const asMcp = (e: unknown): McpError => (e instanceof McpError ? e : new McpError(ErrorCode.InternalError, e instanceof Error ? e.message : String(e)));

/** The request streams of `core`. */
export function coreTaskStreams(core: Requester): CoreTaskStreams {
  return {
    async *elicitInputStream(params, options) {
      try {
        yield { type: 'result', result: await core.elicitInput(withTask(params as ElicitRequestParams & { _meta?: Record<string, unknown> }, options)) };
      } catch (e) {
        yield { type: 'error', error: asMcp(e) };
      }
    },
    async *createMessageStream(params, options) {
      try {
        yield { type: 'result', result: await core.createMessage(withTask(params as CreateMessageRequestParams & { _meta?: Record<string, unknown> }, options)) };
      } catch (e) {
        yield { type: 'error', error: asMcp(e) };
      }
    },
  };
}
