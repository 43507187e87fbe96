import { z } from "zod";

const syncName = z.string().min(1).max(64);

/** Nango's `syncs`: names, or `{name, variant}` objects; Junction has the base variant only. */
export const syncsField = z.array(
  z.union([syncName, z.object({ name: syncName, variant: z.literal("base") }).strict()], {
    error: "Each sync must be either a string or a { name: string, variant: string } object",
  }),
);

/** The names of a parsed `syncs` field. */
export const syncNames = (syncs: z.infer<typeof syncsField>): string[] =>
  syncs.map((s) => (typeof s === "string" ? s : s.name));
