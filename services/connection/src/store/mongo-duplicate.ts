import { DuplicateKeyError } from "./store.ts";

/** Whether `e` is MongoDB's duplicate key error (E11000). */
export function isDuplicateKey(e: unknown): boolean {
  return typeof e === "object" && e !== null && (e as { code?: unknown }).code === 11000;
}

export async function mapDuplicate<T>(fn: () => Promise<T>, what: string): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (isDuplicateKey(e)) throw new DuplicateKeyError(`${what} already exists`, { cause: e });
    throw e;
  }
}
