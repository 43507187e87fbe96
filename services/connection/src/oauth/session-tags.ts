import { invalidArgument } from "@junction/platform";

/** Nango's limits on connection tags (its tags schema): 10 keys, keys of 64, values of 255 characters. */
export const TAG_LIMITS = { count: 10, keyLength: 64, valueLength: 255 } as const;
/** A tag key: starts with a letter; letters, digits, `_`, `-`, `.`, `/` (never `=`, see tag filters). */
export const TAG_KEY = /^[a-zA-Z][a-zA-Z0-9_\-./]*$/;

/**
 * The tags of the connection a session creates (Nango's order): end_user_id, end_user_email,
 * end_user_display_name, organization_id, organization_display_name from the end user and organization,
 * then end_user.tags, then the session's tags, each later one winning. Keys are lower-cased. More than
 * TAG_LIMITS.count in all, or a malformed tag, is a 400 `invalid_tags` and nothing is written.
 */
export function sessionTags(
  endUser: Record<string, unknown> | null,
  organization: Record<string, unknown> | null,
  endUserTags: unknown,
  tags: Record<string, string>,
): Record<string, string> {
  const out: Record<string, string> = {};
  const derive = (key: string, value: unknown) => {
    if (typeof value === "string" && value !== "") out[key] = value.slice(0, TAG_LIMITS.valueLength);
  };
  derive("end_user_id", endUser?.id);
  derive("end_user_email", endUser?.email);
  derive("end_user_display_name", endUser?.display_name);
  derive("organization_id", organization?.id);
  derive("organization_display_name", organization?.display_name);
  if (endUserTags !== undefined && endUserTags !== null) {
    if (typeof endUserTags !== "object" || Array.isArray(endUserTags)) {
      throw invalidTags([{ path: "end_user.tags", message: "must be an object of strings" }]);
    }
    Object.assign(out, checkTags(endUserTags as Record<string, unknown>, "end_user.tags"));
  }
  Object.assign(out, checkTags(tags, "tags"));
  if (Object.keys(out).length > TAG_LIMITS.count) {
    throw invalidTags([
      {
        path: "tags",
        message: `at most ${TAG_LIMITS.count} tags, counting end_user_id, end_user_email, end_user_display_name, organization_id and organization_display_name derived from end_user and organization (${Object.keys(out).length} here)`,
      },
    ]);
  }
  return out;
}

/** Checks tags as given (keys case-insensitively unique) and returns them with lower-case keys. */
export function checkTags(tags: Record<string, unknown>, path: string): Record<string, string> {
  const problems: { path: string; message: string }[] = [];
  const out: Record<string, string> = {};
  const entries = Object.entries(tags);
  if (entries.length > TAG_LIMITS.count) {
    problems.push({ path, message: `at most ${TAG_LIMITS.count} tags (${entries.length} given)` });
  }
  for (const [key, value] of entries) {
    const at = `${path}.${key}`;
    if (!TAG_KEY.test(key) || key.length > TAG_LIMITS.keyLength) {
      problems.push({
        path: at,
        message: `keys start with a letter and hold only letters, digits, _ - . / (at most ${TAG_LIMITS.keyLength} characters)`,
      });
    } else if (key.toLowerCase() in out) {
      problems.push({ path: at, message: "the same key twice, ignoring case" });
    }
    if (typeof value !== "string") problems.push({ path: at, message: "must be a string" });
    else if (value.length > TAG_LIMITS.valueLength || value === "") {
      problems.push({ path: at, message: `must be 1-${TAG_LIMITS.valueLength} characters` });
    } else out[key.toLowerCase()] = value;
  }
  if (problems.length > 0) throw invalidTags(problems);
  return out;
}

function invalidTags(problems: { path: string; message: string }[]) {
  return invalidArgument(
    "invalid_tags",
    `Invalid tags: ${problems.map((p) => `${p.path} ${p.message}`).join("; ")}.`,
    problems,
  );
}
