import { loadConfig } from "@junction/platform";
import { z } from "zod";

/** An http(s) origin, its host optionally a `*.` wildcard of subdomains (as CSP's frame-ancestors reads it). */
const ORIGIN_RE = /^https?:\/\/(\*\.)?[A-Za-z0-9.-]+(:\d{1,5})?$/;

const originList = z
  .union([z.array(z.string()), z.string()])
  .default([])
  .transform((v) =>
    (typeof v === "string" ? v.split(",") : v).map((o) => o.trim().replace(/\/+$/, "")).filter((o) => o !== ""),
  )
  .refine((list) => list.every((o) => ORIGIN_RE.test(o)), {
    message: "must be comma-separated origins such as https://app.example.com (a host may start with *.)",
  });

/** The Connect UI's operator settings (JUNCTION_*). */
export const connectUiSettingsSchema = z.object({
  /**
   * The origins whose pages may show the Connect UI (/connect/) in a frame, as `openConnectUI` of Nango's
   * frontend SDK does. Empty: none; the UI then opens only as a page of its own (the connect link).
   */
  connectUiFrameAncestors: originList,
});

export type ConnectUiSettings = z.infer<typeof connectUiSettingsSchema>;

/** Loads the settings; fails fast naming the variable that is wrong (JUNCTION_CONNECT_UI_FRAME_ANCESTORS). */
export function loadConnectUiSettings(env: Record<string, string | undefined> = process.env): ConnectUiSettings {
  return loadConfig(connectUiSettingsSchema, { prefix: "JUNCTION_", env });
}
