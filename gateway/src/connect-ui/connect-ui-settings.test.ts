import { describe, expect, test } from "bun:test";
import { loadConnectUiSettings } from "./connect-ui-settings.ts";

describe("JUNCTION_CONNECT_UI_FRAME_ANCESTORS", () => {
  const load = (value: string | undefined) => loadConnectUiSettings({ JUNCTION_CONNECT_UI_FRAME_ANCESTORS: value });

  test("none by default; origins (and *. hosts) read from a comma-separated list", () => {
    expect(load(undefined).connectUiFrameAncestors).toEqual([]);
    expect(
      load(" https://app.example.com/ , http://127.0.0.1:8080,https://*.shop.example.com").connectUiFrameAncestors,
    ).toEqual(["https://app.example.com", "http://127.0.0.1:8080", "https://*.shop.example.com"]);
  });

  test("anything but an origin is refused at start, naming the variable", () => {
    for (const bad of ["*", "app.example.com", "https://app.example.com/settings", "javascript:alert(1)", "'self'"]) {
      expect(() => load(bad)).toThrow(/JUNCTION_CONNECT_UI_FRAME_ANCESTORS/);
    }
  });
});
