/**
 * Whether `subject` matches the subscription `pattern`, as NATS decides it: tokens are split on `.`,
 * `*` matches exactly one token and `>` (last token only) matches one or more remaining tokens.
 */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split(".");
  const s = subject.split(".");
  for (let i = 0; i < p.length; i++) {
    const token = p[i];
    if (token === ">") return i === p.length - 1 && s.length > i;
    if (i >= s.length) return false;
    if (token !== "*" && token !== s[i]) return false;
  }
  return p.length === s.length;
}
