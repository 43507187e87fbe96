import { errorBox, logout } from "./api.ts";
import { h, replace } from "./dom.ts";
import { channelsPage } from "./pages/channels-page.ts";
import { connectionPage } from "./pages/connection-page.ts";
import { connectionsPage } from "./pages/connections-page.ts";
import { deliveriesPage } from "./pages/deliveries-page.ts";
import { deliveryPage } from "./pages/delivery-page.ts";
import { logsPage, operationPage } from "./pages/logs-page.ts";
import { integrationPage } from "./pages/integration-page.ts";
import { integrationsPage } from "./pages/integrations-page.ts";
import { newIntegrationPage } from "./pages/new-integration-page.ts";
import { overviewPage } from "./pages/overview-page.ts";
import { recordsPage } from "./pages/records-page.ts";
import { scriptsPage } from "./pages/scripts-page.ts";
import { settingsPage } from "./pages/settings-page.ts";
import { scriptPage, scriptRunPage } from "./pages/script-detail-pages.ts";

type Render = (params: string[]) => Promise<Node>;

/** Hash routes (#/path?query): the page is served once and each view is rendered here. */
const ROUTES: [RegExp, string, Render][] = [
  [/^\/overview$/, "overview", () => overviewPage()],
  [/^\/integrations$/, "integrations", () => integrationsPage()],
  [/^\/integrations\/new$/, "integrations", () => newIntegrationPage()],
  [/^\/integrations\/([^/]+)$/, "integrations", ([key]) => integrationPage(key as string)],
  [/^\/connections$/, "connections", () => connectionsPage()],
  [/^\/connections\/([^/]+)\/([^/]+)$/, "connections", ([key, id]) => connectionPage(key as string, id as string)],
  [
    /^\/connections\/([^/]+)\/([^/]+)\/records\/([^/]+)$/,
    "connections",
    ([key, id, model]) => recordsPage(key as string, id as string, model as string),
  ],
  [/^\/deliveries$/, "deliveries", () => deliveriesPage()],
  [/^\/deliveries\/([^/]+)$/, "deliveries", ([id]) => deliveryPage(id as string)],
  [/^\/channels$/, "channels", () => channelsPage()],
  [/^\/scripts$/, "scripts", () => scriptsPage()],
  [/^\/scripts\/runs\/([^/]+)$/, "scripts", ([id]) => scriptRunPage(id as string)],
  [/^\/scripts\/([^/]+)\/([^/]+)$/, "scripts", ([key, name]) => scriptPage(key as string, name as string)],
  [/^\/logs$/, "logs", () => logsPage()],
  [/^\/logs\/([^/]+)$/, "logs", ([id]) => operationPage(id as string)],
  [/^\/settings$/, "settings", () => settingsPage()],
];

const app = document.getElementById("app") as HTMLElement;
let rendering = 0;

async function route(): Promise<void> {
  const hash = location.hash.replace(/^#/, "");
  const path = hash.split("?")[0] || "/overview";
  const found = ROUTES.map(([re, nav, render]) => ({ m: re.exec(path), nav, render })).find((r) => r.m);
  if (!found?.m) {
    showNotFound(path);
    return;
  }
  for (const a of Array.from(document.querySelectorAll<HTMLAnchorElement>("#nav a"))) {
    a.classList.toggle("active", a.dataset.nav === found.nav);
  }
  const mine = ++rendering;
  app.dataset.view = "loading";
  const started = performance.now();
  let view: Node;
  try {
    view = await found.render(found.m.slice(1).map((p) => decodeURIComponent(p)));
  } catch (err) {
    view = h("div", null, errorBox(err, "page-error"));
  }
  // A later navigation won: its view is the one to show.
  if (mine !== rendering) return;
  replace(app, view);
  app.dataset.view = found.nav;
  app.dataset.renderMs = String(Math.round(performance.now() - started));
}

/** An unknown route says so (and where to go), rather than silently showing another page. */
function showNotFound(path: string): void {
  ++rendering;
  for (const a of Array.from(document.querySelectorAll<HTMLAnchorElement>("#nav a"))) a.classList.remove("active");
  replace(
    app,
    h(
      "section",
      { id: "not-found" },
      h("h1", null, "Page not found"),
      h("p", null, "The dashboard has no page at ", h("code", null, path), "."),
      h("p", null, h("a", { href: "#/integrations" }, "Go to Integrations")),
    ),
  );
  app.dataset.view = "not-found";
}

window.addEventListener("hashchange", () => void route());
document.getElementById("logout")?.addEventListener("click", async () => {
  await logout().catch(() => undefined);
  location.assign("/dashboard/login");
});
void route();
