import { describe, expect, test } from "bun:test";
import { providerAdapter, providerSettings } from "../index.ts";
import { microsoftOutlookCalendar } from "./adapter.ts";

describe("the microsoft-outlook-calendar provider", () => {
  test("is in the catalogue, with the tenant setting defaulting to common", () => {
    expect(providerAdapter("microsoft-outlook-calendar")).toBe(microsoftOutlookCalendar);
    expect(providerSettings(microsoftOutlookCalendar, {})).toEqual({ tenant: "common" });
    expect(providerSettings(microsoftOutlookCalendar, { tenant: "contoso.onmicrosoft.com" })).toEqual({
      tenant: "contoso.onmicrosoft.com",
    });
    expect(microsoftOutlookCalendar.authorizationUrl).toContain("/{tenant}/oauth2/v2.0/authorize");
    expect(microsoftOutlookCalendar.tokenUrl).toContain("/{tenant}/oauth2/v2.0/token");
  });

  test("default scopes ask for a refresh token and calendar reading, all in the catalogue", () => {
    const names = new Set(microsoftOutlookCalendar.scopes.map((s) => s.name));
    expect(microsoftOutlookCalendar.defaultScopes).toContain("offline_access");
    expect(microsoftOutlookCalendar.defaultScopes).toContain("Calendars.Read");
    for (const s of microsoftOutlookCalendar.defaultScopes) expect(names.has(s)).toBe(true);
  });

  test("consent guidance: basic scopes need nothing; calendar scopes point at publisher verification", () => {
    const basic = microsoftOutlookCalendar.consentGuidance(["openid", "offline_access", "User.Read"]);
    expect(basic).toMatchObject({ highestSensitivity: "basic", verificationRequired: false });
    const calendar = microsoftOutlookCalendar.consentGuidance(["offline_access", "Calendars.ReadWrite", "Mail.Send"]);
    expect(calendar.highestSensitivity).toBe("sensitive");
    expect(calendar.verificationRequired).toBe(true);
    expect(calendar.securityAssessmentRequired).toBe(false);
    expect(calendar.scopes.find((s) => s.name === "Mail.Send")?.sensitivity).toBe("unknown");
    expect(calendar.notes.join("\n")).toContain("publisher-verification-overview");
    expect(calendar.notes.join("\n")).toContain("Mail.Send");
  });

  test("the script templates exist, one file each, importing only nango", async () => {
    const templates = microsoftOutlookCalendar.scriptTemplates;
    if (!templates) throw new Error("templates expected");
    for (const name of templates.names) {
      const source = await Bun.file(`${templates.directory}/${name}.ts`).text();
      const imports = [...source.matchAll(/from\s+"([^"]+)"/g)].map((m) => m[1]);
      expect(imports).toEqual(["nango"]);
    }
  });
});
