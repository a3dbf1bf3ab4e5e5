/**
 * Comparing the settings schema in package.json with the server's own JSON Schema (test helper).
 *
 * The server's schema (pydantic `model_json_schema(by_alias=True)`) is flattened to dotted keys
 * (`model.baseUrl`) with their types, enum values, default and bounds; package.json's
 * `dsh.<key>` properties are read the same way. `compareSettingSchemas` lists every
 * difference as a sentence.
 */

type Json = Record<string, unknown>;

export interface FlatSetting {
  types: string[];
  enum?: string[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  pattern?: string;
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function deref(schema: Json, root: Json): Json {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const name = ref.replace('#/$defs/', '');
  const defs = root.$defs;
  const target = isObject(defs) ? defs[name] : undefined;
  if (!isObject(target)) throw new Error(`unresolved ${ref}`);
  return target;
}

function describe(schema: Json, root: Json): FlatSetting {
  const branches = Array.isArray(schema.anyOf) ? schema.anyOf.filter(isObject).map((b) => deref(b, root)) : [schema];
  const flat: FlatSetting = { types: [] };
  for (const branch of branches) {
    const types = Array.isArray(branch.type) ? branch.type : branch.type === undefined ? [] : [branch.type];
    for (const type of types) if (typeof type === 'string' && !flat.types.includes(type)) flat.types.push(type);
    if (Array.isArray(branch.enum)) {
      flat.enum = [...(flat.enum ?? []), ...branch.enum.filter((v): v is string => typeof v === 'string')];
      if (branch.enum.includes(null) && !flat.types.includes('null')) flat.types.push('null');
      if (types.length === 0 && !flat.types.includes('string')) flat.types.push('string');
    }
    if (branch.const === null && !flat.types.includes('null')) flat.types.push('null');
    for (const key of ['minimum', 'maximum', 'minLength'] as const) if (typeof branch[key] === 'number') flat[key] = branch[key] as number;
    if (typeof branch.pattern === 'string') flat.pattern = branch.pattern;
  }
  if ('default' in schema) flat.default = schema.default;
  flat.types.sort();
  flat.enum?.sort();
  return flat;
}

/** Flatten a pydantic JSON Schema of the `dsh` section to dotted keys. */
export function flattenServerSchema(root: Json): Record<string, FlatSetting> {
  const out: Record<string, FlatSetting> = {};
  const walk = (schema: Json, prefix: string): void => {
    const resolved = deref(schema, root);
    const properties = resolved.properties;
    if (!isObject(properties)) return;
    for (const [name, raw] of Object.entries(properties)) {
      if (!isObject(raw)) continue;
      const target = deref(raw, root);
      if (isObject(target.properties)) walk(target, `${prefix}${name}.`);
      else out[`${prefix}${name}`] = describe(raw, root);
    }
  };
  walk(root, '');
  return out;
}

/** package.json `contributes.configuration.properties`, keys below `dsh.`, flattened alike. */
export function flattenPackageSettings(properties: Json, exclude: readonly string[]): Record<string, FlatSetting> {
  const out: Record<string, FlatSetting> = {};
  for (const [key, raw] of Object.entries(properties)) {
    if (!key.startsWith('dsh.') || !isObject(raw)) continue;
    const name = key.slice('dsh.'.length);
    if (exclude.includes(name)) continue;
    out[name] = describe(raw, {});
  }
  return out;
}

export function compareSettingSchemas(server: Record<string, FlatSetting>, pkg: Record<string, FlatSetting>): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(server)) if (!(key in pkg)) problems.push(`package.json lacks dsh.${key}`);
  for (const key of Object.keys(pkg)) if (!(key in server)) problems.push(`package.json has dsh.${key}, which the server does not accept`);
  for (const [key, want] of Object.entries(server)) {
    const have = pkg[key];
    if (have === undefined) continue;
    const same = (field: keyof FlatSetting) => JSON.stringify(want[field]) === JSON.stringify(have[field]);
    for (const field of ['types', 'enum', 'default', 'minimum', 'maximum', 'minLength', 'pattern'] as const) {
      if (!same(field)) problems.push(`dsh.${key}: ${field} is ${JSON.stringify(have[field])} in package.json but ${JSON.stringify(want[field])} in the server`);
    }
  }
  return problems;
}
