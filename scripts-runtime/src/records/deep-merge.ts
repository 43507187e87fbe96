type Json = unknown;

const isObject = (v: Json): v is Record<string, Json> => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * batchUpdate's merge, as Nango's: objects merged key by key, recursively; arrays and every other
 * value replaced by the update's.
 */
export function deepMerge(stored: Json, update: Json): Json {
  if (!isObject(stored) || !isObject(update)) return update;
  const out: Record<string, Json> = { ...stored };
  for (const [key, value] of Object.entries(update)) {
    out[key] = key in out ? deepMerge(out[key], value) : value;
  }
  return out;
}
