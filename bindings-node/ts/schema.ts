/**
 * Schemas given at registration, read once into JSON Schema: the engine validates in Rust.
 *
 * Accepted: a JSON Schema object; any Standard Schema that exports JSON Schema
 * (`schema['~standard'].jsonSchema`, as zod 4, arktype and valibot's adapter do); or an object
 * of such schemas per property (a zod "raw shape", as the TypeScript SDK v1 took).
 * @module
 */

/** A JSON Schema object. */
export type JsonSchema = { [key: string]: unknown };

/** The part of the Standard Schema / Standard JSON Schema interfaces ferromcp reads. */
export interface StandardJsonSchemaV1 {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly jsonSchema?: {
      readonly input: (options: { readonly target: string }) => Record<string, unknown>;
      readonly output?: (options: { readonly target: string }) => Record<string, unknown>;
    };
  };
}

/** A schema as registration accepts it. */
export type SchemaInput = JsonSchema | StandardJsonSchemaV1 | { [property: string]: StandardJsonSchemaV1 };

function isStandard(v: unknown): v is StandardJsonSchemaV1 {
  return typeof v === 'object' && v !== null && '~standard' in v;
}

function standardToJson(s: StandardJsonSchemaV1, which: 'input' | 'output', what: string): JsonSchema {
  const js = s['~standard'].jsonSchema;
  if (!js) {
    throw new TypeError(
      `${what}: this ${s['~standard'].vendor} schema does not export JSON Schema ` +
        "(no '~standard.jsonSchema'); use zod >= 4.2, arktype, valibot's toStandardJsonSchema, or pass JSON Schema",
    );
  }
  const f = which === 'output' && js.output ? js.output : js.input;
  const out = { ...f({ target: 'draft-2020-12' }) };
  delete out.$schema;
  return out;
}

/** Whether a property schema accepts `undefined` (zod's `isOptional()`, when it has one). */
function optional(s: StandardJsonSchemaV1): boolean {
  const f = (s as { isOptional?: () => boolean }).isOptional;
  return typeof f === 'function' ? f.call(s) : false;
}

/**
 * An object's JSON Schema from any accepted form (`undefined` when `schema` is). `what` names
 * the schema in errors.
 */
export function toJsonSchema(
  schema: SchemaInput | undefined,
  what: string,
  which: 'input' | 'output' = 'input',
): JsonSchema | undefined {
  if (schema === undefined || schema === null) return undefined;
  if (typeof schema !== 'object') throw new TypeError(`${what}: expected a schema object`);
  if (isStandard(schema)) return standardToJson(schema, which, what);
  const values = Object.values(schema);
  if (values.length > 0 && values.every(isStandard)) {
    const properties: JsonSchema = {};
    const required: string[] = [];
    for (const [k, v] of Object.entries(schema as Record<string, StandardJsonSchemaV1>)) {
      properties[k] = standardToJson(v, which, `${what}.${k}`);
      if (!optional(v)) required.push(k);
    }
    return required.length ? { type: 'object', properties, required } : { type: 'object', properties };
  }
  return schema as JsonSchema;
}
