import { z } from "zod";

/** Marks a config value as secret: the dashboard and logs show that it is set, never what it is. */
export function secret<T extends z.ZodType>(schema: T): T {
  return schema.meta({ secret: true }) as T;
}

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  valueType?: z.ZodType;
  element?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  options?: z.ZodType[];
};

const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

function isSecret(schema: z.ZodType): boolean {
  return (z.globalRegistry.get(schema) as { secret?: boolean } | undefined)?.secret === true;
}

/**
 * Pure: the paths (e.g. "agent.env.API_KEY") of the values in `value` whose schema is marked
 * secret, found by walking the schema beside the parsed value.
 */
export function secretPaths(schema: z.ZodType, value: unknown, path: string[] = []): string[] {
  if (isSecret(schema)) return [path.join(".")];
  const def = defOf(schema);
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
    case "catch":
      return def.innerType ? secretPaths(def.innerType, value, path) : [];
    case "pipe":
      return def.in ? secretPaths(def.in, value, path) : [];
    case "object": {
      if (!value || typeof value !== "object") return [];
      return Object.entries(def.shape ?? {}).flatMap(([k, s]) =>
        secretPaths(s, (value as Record<string, unknown>)[k], [...path, k]),
      );
    }
    case "record": {
      if (!value || typeof value !== "object" || !def.valueType) return [];
      const valueType = def.valueType;
      return Object.entries(value).flatMap(([k, v]) => secretPaths(valueType, v, [...path, k]));
    }
    case "array":
      return Array.isArray(value) && def.element
        ? value.flatMap((v, i) => secretPaths(def.element as z.ZodType, v, [...path, String(i)]))
        : [];
    case "union": {
      // The option that takes the value decides (discriminated unions included).
      const option = def.options?.find((o) => o.safeParse(value).success);
      return option ? secretPaths(option, value, path) : [];
    }
    default:
      return [];
  }
}
