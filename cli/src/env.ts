/** Reads a boolean environment variable ("1", "true", "yes" are true). */
export function boolEnv(value: string | undefined): boolean {
  return value !== undefined && /^(1|true|yes|on)$/i.test(value.trim());
}
