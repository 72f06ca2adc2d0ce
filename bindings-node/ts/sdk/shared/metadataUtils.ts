/**
 * `ferromcp/shared/metadataUtils.js`: the TypeScript SDK's `getDisplayName`.
 * @module
 */

/** What a listed tool, prompt or resource offers for display. */
export interface BaseMetadata {
  name: string;
  title?: string;
  annotations?: { title?: string };
}

/** The name to show: `title`, else a tool's `annotations.title`, else `name`. */
export function getDisplayName(metadata: BaseMetadata): string {
  if (metadata.title !== undefined && metadata.title !== '') return metadata.title;
  if (metadata.annotations?.title) return metadata.annotations.title;
  return metadata.name;
}
