import { expect } from "bun:test";
import type { Page } from "playwright-core";
import { screenshot } from "./dashboard-browser-kit.ts";

/**
 * Screenshots of the page as it is at 1280 and 390 px, light and dark (`{name}`, `{name}-390`,
 * `{name}-dark`, `{name}-390-dark`). Checks on the way that the dark theme is in force (the page's
 * background turns dark) and that nothing is wider than the phone at 390 px. Leaves the page light at 1280.
 */
export async function screenshotsLightAndDark(page: Page, name: string): Promise<void> {
  try {
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const bg = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
      expect({ scheme, dark: luminance(bg) < 0.2 }).toEqual({ scheme, dark: scheme === "dark" });
      const suffix = scheme === "dark" ? "-dark" : "";
      await page.setViewportSize({ width: 1280, height: 860 });
      await screenshot(page, `${name}${suffix}`);
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await screenshot(page, `${name}-390${suffix}`);
    }
  } finally {
    await page.emulateMedia({ colorScheme: "light" });
    await page.setViewportSize({ width: 1280, height: 860 });
  }
}

/** Relative luminance (0 black … 1 white) of a CSS `rgb(…)` colour. */
function luminance(rgb: string): number {
  const [r = 0, g = 0, b = 0] = (rgb.match(/\d+(\.\d+)?/g) ?? []).map(Number);
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}
