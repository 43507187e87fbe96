/** Runs `junction <resource> ...` over the REST API; null when argv names no such command. */
export async function runApiCommand(_argv: string[]): Promise<number | null> {
  return null;
}
