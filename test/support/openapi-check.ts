/*
 * Checks a JSON value against a schema of an OpenAPI 3.1 document (JSON Schema: $ref into
 * components, type, enum, const, properties, required, additionalProperties, items, anyOf, oneOf,
 * allOf). Enough to hold the service's real responses to the document it serves.
 */

type Schema = Record<string, unknown>;

/** The OpenAPI document's part the check reads. */
export interface OpenApiDocument {
  paths: Record<
    string,
    Record<
      string,
      { responses?: Record<string, { content?: Record<string, { schema?: Schema }> }> }
    >
  >;
  components?: { schemas?: Record<string, Schema> };
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** The problems of `value` against `schema` (empty when it conforms), each with its JSON path. */
export function schemaProblems(
  doc: OpenApiDocument,
  schema: Schema,
  value: unknown,
  at = '$',
): string[] {
  const ref = schema.$ref;
  if (typeof ref === 'string') {
    const name = ref.replace('#/components/schemas/', '');
    const target = doc.components?.schemas?.[name];
    if (target === undefined) return [`${at}: unknown $ref ${ref}`];
    return schemaProblems(doc, target, value, at);
  }
  const problems: string[] = [];
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key] as Schema[] | undefined;
    if (
      options !== undefined &&
      !options.some((o) => schemaProblems(doc, o, value, at).length === 0)
    ) {
      problems.push(`${at}: matches none of ${key}`);
    }
  }
  for (const part of (schema.allOf as Schema[] | undefined) ?? [])
    problems.push(...schemaProblems(doc, part, value, at));
  const type = schema.type as string | string[] | undefined;
  if (type !== undefined) {
    const allowed = Array.isArray(type) ? type : [type];
    const actual = typeOf(value);
    const ok = allowed.includes(actual) || (actual === 'integer' && allowed.includes('number'));
    if (!ok) return [...problems, `${at}: ${actual}, expected ${allowed.join('|')}`];
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value))
    problems.push(`${at}: ${JSON.stringify(value)} not in enum`);
  if ('const' in schema && schema.const !== value)
    problems.push(`${at}: ${JSON.stringify(value)} is not ${JSON.stringify(schema.const)}`);
  if (typeOf(value) === 'object') {
    const object = value as Record<string, unknown>;
    const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
    for (const key of (schema.required as string[] | undefined) ?? []) {
      if (!(key in object)) problems.push(`${at}.${key}: required, missing`);
    }
    for (const [key, item] of Object.entries(object)) {
      const property = properties[key];
      if (property !== undefined)
        problems.push(...schemaProblems(doc, property, item, `${at}.${key}`));
      else if (schema.additionalProperties === false)
        problems.push(`${at}.${key}: not in the schema`);
      else if (typeof schema.additionalProperties === 'object') {
        problems.push(
          ...schemaProblems(doc, schema.additionalProperties as Schema, item, `${at}.${key}`),
        );
      }
    }
  }
  if (Array.isArray(value) && typeof schema.items === 'object') {
    value.forEach((item, i) =>
      problems.push(...schemaProblems(doc, schema.items as Schema, item, `${at}[${i}]`)),
    );
  }
  return problems;
}

/** The JSON schema of `method path`'s `status` response in the document. */
export function responseSchema(
  doc: OpenApiDocument,
  method: string,
  path: string,
  status: number,
): Schema {
  const schema =
    doc.paths[path]?.[method]?.responses?.[String(status)]?.content?.['application/json']?.schema;
  if (schema === undefined)
    throw new Error(
      `the document has no ${status} JSON response for ${method.toUpperCase()} ${path}`,
    );
  return schema;
}
