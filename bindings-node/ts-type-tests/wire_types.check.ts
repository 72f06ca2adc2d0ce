/**
 * The hand-written wire types of `ts/types.ts` against the types generated from the MCP schema
 * (`generate.mjs` -> `generated/<revision>.ts`), checked by the compiler: this file type-checks
 * (`tsc -p ts-type-tests`, run by `check.sh` in the Node test run) only while every field of ours
 * is a field of the schema with the same type, and the other way round. A field renamed, added,
 * removed or retyped on either side fails here, naming the field. Nothing runs: the checks are
 * types.
 *
 * What is compared: the known fields of each type (index signatures of `unknown`, which our
 * open objects carry for `_meta` and extra fields, are left out on both sides, at every depth).
 * Each difference we keep on purpose is named in the check with its reason:
 * - `oursOnly`: a field ours has and this revision's schema lacks;
 * - `schemaOnly`: a field the schema has and ours leaves to the index signature;
 * - `wider`: a field whose type is wider in ours (e.g. `unknown` where the schema has a union):
 *   for it only "every value the schema allows is accepted by ours" is checked.
 * A listed exception that is no longer a difference fails too, so the lists stay true.
 *
 * 2025-11-25 is the revision `ts/types.ts` describes: every type is checked both ways.
 * 2026-07-28 is checked the same way for the types it still has (not `Task`, `CreateTaskResult`,
 * `InitializeResult`: tasks became an extension, the handshake is gone), with its new result
 * fields (`resultType`, `ttlMs`, `cacheScope`, left to the index signature) and its removals
 * named per type.
 * @module
 */
import type * as Ours from '../ts/types';
import type * as S25 from './generated/2025-11-25';
import type * as S26 from './generated/2026-07-28';

/** `T` with its `unknown`-valued index signatures removed, at every depth. */
type Known<T> = T extends readonly (infer E)[]
  ? Known<E>[]
  : T extends object
    ? {
        [K in keyof T as string extends K
          ? unknown extends T[K] ? never : K
          : number extends K
            ? unknown extends T[K] ? never : K
            : K]: Known<T[K]>;
      }
    : T;
type KeysOf<T> = keyof Known<T> & string;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * `true` when `Ours` and `Schema` have the same fields (but for `OursOnly` and `SchemaOnly`) and
 * every shared field has the same type (but for the `Wider` ones, where the schema's type must
 * be assignable to ours); otherwise an object naming what differs.
 */
type Check<Ours, Schema, OursOnly extends string = never, SchemaOnly extends string = never, Wider extends string = never> =
  CheckKeys<KeysOf<Ours>, KeysOf<Schema>, OursOnly, SchemaOnly> extends infer K
    ? [K] extends [true]
      ? CheckTypes<Known<Ours>, Known<Schema>, Exclude<KeysOf<Ours> & KeysOf<Schema>, Wider>, Wider>
      : K
    : never;
type CheckKeys<KO extends string, KS extends string, OursOnly extends string, SchemaOnly extends string> = [
  Exclude<Exclude<KO, KS>, OursOnly> | Exclude<Exclude<KS, KO>, SchemaOnly>,
  Exclude<OursOnly, Exclude<KO, KS>> | Exclude<SchemaOnly, Exclude<KS, KO>>,
] extends [never, never]
  ? true
  : {
      fieldOnlyInOurs: Exclude<Exclude<KO, KS>, OursOnly>;
      fieldOnlyInSchema: Exclude<Exclude<KS, KO>, SchemaOnly>;
      exceptionNoLongerNeeded: Exclude<OursOnly, Exclude<KO, KS>> | Exclude<SchemaOnly, Exclude<KS, KO>>;
    };
type CheckTypes<O, S, Shared extends PropertyKey, Wider extends PropertyKey> = [
  {
    [K in Shared]: K extends keyof O & keyof S ? (Same<O[K], S[K]> extends true ? never : K) : never;
  }[Shared],
  {
    [K in Wider]: K extends keyof O & keyof S ? ([S[K]] extends [O[K]] ? never : K) : K;
  }[Wider],
] extends [never, never]
  ? true
  : {
      fieldTypeDiffers: { [K in Shared]: K extends keyof O & keyof S ? (Same<O[K], S[K]> extends true ? never : K) : never }[Shared];
      widerFieldRejectsSchema: { [K in Wider]: K extends keyof O & keyof S ? ([S[K]] extends [O[K]] ? never : K) : K }[Wider];
    };
/** Unions and literal types (no fields to compare): the same set of values. */
type Eq<A, B> = Same<A, B> extends true ? true : { ours: A; schema: B };
type Assert<T extends true> = T;

/** Fields 2026-07-28 adds to every result (the per-request era's `resultType`). */
type R26 = 'resultType';
/** ... and to cacheable results (`tools/list` & co., `resources/read`). */
type Cache26 = 'resultType' | 'ttlMs' | 'cacheScope';

export type Checks2025 = [
  Assert<Eq<Ours.RequestId, S25.RequestId>>,
  Assert<Eq<Ours.LoggingLevel, S25.LoggingLevel>>,
  Assert<Check<Ours.Icon, S25.Icon>>,
  Assert<Check<Ours.Implementation, S25.Implementation>>,
  Assert<Check<Ours.Annotations, S25.Annotations>>,
  Assert<Check<Ours.TextContent, S25.TextContent>>,
  Assert<Check<Ours.ImageContent, S25.ImageContent>>,
  Assert<Check<Ours.AudioContent, S25.AudioContent>>,
  Assert<Check<Ours.TextResourceContents, S25.TextResourceContents>>,
  Assert<Check<Ours.BlobResourceContents, S25.BlobResourceContents>>,
  Assert<Eq<Known<Ours.ResourceContents>, Known<S25.TextResourceContents | S25.BlobResourceContents>>>,
  Assert<Check<Ours.EmbeddedResource, S25.EmbeddedResource>>,
  Assert<Check<Ours.ResourceLink, S25.ResourceLink>>,
  Assert<Eq<Known<Ours.ContentBlock>, Known<S25.ContentBlock>>>,
  Assert<Check<Ours.ToolAnnotations, S25.ToolAnnotations>>,
  // inputSchema/outputSchema: any JSON Schema object, as tools/list gives it and as handlers
  // register it (ours: Record<string, unknown>); the schema's `{ type: 'object', properties? ... }`
  // is one of them.
  Assert<Check<Ours.Tool, S25.Tool, never, never, 'inputSchema' | 'outputSchema'>>,
  Assert<Check<Ours.CallToolResult, S25.CallToolResult>>,
  Assert<Eq<Ours.TaskStatus, S25.TaskStatus>>,
  // Ours is what `tasks/get` answers (GetTaskResult = Result & Task), so it has the result's `_meta`.
  Assert<Check<Ours.Task, S25.Task, '_meta'>>,
  Assert<Check<Ours.Task, S25.GetTaskResult>>,
  Assert<Check<Ours.CreateTaskResult, S25.CreateTaskResult>>,
  Assert<Check<Ours.Resource, S25.Resource>>,
  Assert<Check<Ours.ResourceTemplateInfo, S25.ResourceTemplate>>,
  Assert<Check<Ours.ReadResourceResult, S25.ReadResourceResult>>,
  Assert<Check<Ours.PromptArgument, S25.PromptArgument>>,
  Assert<Check<Ours.Prompt, S25.Prompt>>,
  Assert<Check<Ours.PromptMessage, S25.PromptMessage>>,
  Assert<Check<Ours.GetPromptResult, S25.GetPromptResult>>,
  Assert<Check<Ours.Completion, S25.CompleteResult['completion']>>,
  Assert<Check<Ours.CompleteResult, S25.CompleteResult>>,
  Assert<Check<Ours.CompleteRequestParams, S25.CompleteRequestParams>>,
  Assert<Check<Ours.Root, S25.Root>>,
  // messages' content, modelPreferences, tools, toolChoice: passed through to the handler or the
  // client as the peer sent them (ours: unknown or a plain object); the schema's shapes are
  // among what ours accepts.
  Assert<Check<Ours.CreateMessageRequestParams, S25.CreateMessageRequestParams, never, never, 'messages' | 'modelPreferences' | 'tools' | 'toolChoice'>>,
  // content: a sampling content block or an array of them, passed through (ours: unknown).
  Assert<Check<Ours.CreateMessageResult, S25.CreateMessageResult, never, never, 'content'>>,
  // Ours is one object for both modes (`mode` tells them apart), checked against each mode:
  // the other mode's fields are ours only, and the fields one mode requires are optional in ours.
  // requestedSchema: any JSON Schema object (ours: Record<string, unknown>).
  Assert<Check<Ours.ElicitRequestParams, S25.ElicitRequestFormParams, 'url' | 'elicitationId', never, 'mode' | 'requestedSchema'>>,
  Assert<Check<Ours.ElicitRequestParams, S25.ElicitRequestURLParams, 'requestedSchema', never, 'mode' | 'url' | 'elicitationId'>>,
  // content: the form's values (ours: Record<string, unknown>, the schema: primitives and string arrays).
  Assert<Check<Ours.ElicitResult, S25.ElicitResult, never, never, 'content'>>,
  Assert<Check<Ours.Paginated, S25.PaginatedResult>>,
  Assert<Check<Ours.ListToolsResult, S25.ListToolsResult, never, never, 'tools'>>,
  Assert<Check<Ours.ListResourcesResult, S25.ListResourcesResult>>,
  Assert<Check<Ours.ListResourceTemplatesResult, S25.ListResourceTemplatesResult>>,
  Assert<Check<Ours.ListPromptsResult, S25.ListPromptsResult>>,
  // capabilities: read as a plain object (ours: Record<string, unknown>).
  Assert<Check<Ours.InitializeResult, S25.InitializeResult, never, never, 'capabilities'>>,
  Assert<Check<Ours.Notification, S25.Notification>>,
  // Ours is what `onprogress` gets (the TypeScript SDK's `Progress`): the token may be absent
  // and `_meta` is not passed on.
  Assert<Check<Ours.Progress, S25.ProgressNotificationParams, never, '_meta', 'progressToken'>>,
];

export type Checks2026 = [
  Assert<Eq<Ours.RequestId, S26.RequestId>>,
  Assert<Eq<Ours.LoggingLevel, S26.LoggingLevel>>,
  Assert<Check<Ours.Icon, S26.Icon>>,
  Assert<Check<Ours.Implementation, S26.Implementation>>,
  Assert<Check<Ours.Annotations, S26.Annotations>>,
  Assert<Check<Ours.TextContent, S26.TextContent>>,
  Assert<Check<Ours.ImageContent, S26.ImageContent>>,
  Assert<Check<Ours.AudioContent, S26.AudioContent>>,
  Assert<Check<Ours.TextResourceContents, S26.TextResourceContents>>,
  Assert<Check<Ours.BlobResourceContents, S26.BlobResourceContents>>,
  Assert<Check<Ours.EmbeddedResource, S26.EmbeddedResource>>,
  Assert<Check<Ours.ResourceLink, S26.ResourceLink>>,
  Assert<Eq<Known<Ours.ContentBlock>, Known<S26.ContentBlock>>>,
  Assert<Check<Ours.ToolAnnotations, S26.ToolAnnotations>>,
  // execution (task support) is a 2025-11-25 field; 2026-07-28 moved tasks to an extension.
  Assert<Check<Ours.Tool, S26.Tool, 'execution', never, 'inputSchema' | 'outputSchema'>>,
  Assert<Check<Ours.CallToolResult, S26.CallToolResult, never, R26>>,
  Assert<Check<Ours.Resource, S26.Resource>>,
  Assert<Check<Ours.ResourceTemplateInfo, S26.ResourceTemplate>>,
  Assert<Check<Ours.ReadResourceResult, S26.ReadResourceResult, never, Cache26>>,
  Assert<Check<Ours.PromptArgument, S26.PromptArgument>>,
  Assert<Check<Ours.Prompt, S26.Prompt>>,
  Assert<Check<Ours.PromptMessage, S26.PromptMessage>>,
  Assert<Check<Ours.GetPromptResult, S26.GetPromptResult, never, R26>>,
  Assert<Check<Ours.CompleteResult, S26.CompleteResult, never, R26>>,
  Assert<Check<Ours.Root, S26.Root>>,
  Assert<Check<Ours.ListToolsResult, S26.ListToolsResult, never, Cache26, 'tools'>>,
  Assert<Check<Ours.ListResourcesResult, S26.ListResourcesResult, never, Cache26>>,
  Assert<Check<Ours.ListResourceTemplatesResult, S26.ListResourceTemplatesResult, never, Cache26>>,
  Assert<Check<Ours.ListPromptsResult, S26.ListPromptsResult, never, Cache26>>,
  // _meta: 2026-07-28 requires the per-request envelope there (protocol version, client
  // capabilities), which the engine reads and checks; ours is the handler's optional plain object.
  Assert<Check<Ours.CompleteRequestParams, S26.CompleteRequestParams, never, never, '_meta'>>,
  // In 2026-07-28 a server's sampling and elicitation requests travel inside an input round
  // (`inputRequests`) and carry neither `_meta` nor `task` (2025-11-25 fields), and the URL mode
  // no `elicitationId` (also 2025-11-25); nor does an elicitation answer carry `_meta`.
  Assert<Check<Ours.CreateMessageRequestParams, S26.CreateMessageRequestParams, '_meta' | 'task', never, 'messages' | 'modelPreferences' | 'tools' | 'toolChoice'>>,
  Assert<Check<Ours.CreateMessageResult, S26.CreateMessageResult, never, never, 'content'>>,
  Assert<Check<Ours.ElicitRequestParams, S26.ElicitRequestFormParams, 'url' | 'elicitationId' | '_meta' | 'task', never, 'mode' | 'requestedSchema'>>,
  Assert<Check<Ours.ElicitRequestParams, S26.ElicitRequestURLParams, 'requestedSchema' | 'elicitationId' | '_meta' | 'task', never, 'mode' | 'url'>>,
  Assert<Check<Ours.ElicitResult, S26.ElicitResult, '_meta', never, 'content'>>,
  Assert<Check<Ours.Paginated, S26.PaginatedResult, never, R26>>,
  Assert<Check<Ours.Progress, S26.ProgressNotificationParams, never, '_meta', 'progressToken'>>,
  Assert<Check<Ours.Notification, S26.Notification>>,
];
