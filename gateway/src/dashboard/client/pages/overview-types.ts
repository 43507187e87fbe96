import type { OverviewSeriesAnswer } from "../../../overview/overview-series.ts";
import type { OverviewTrouble, TroubleCounts } from "../../../overview/overview-trouble.ts";

/** GET /overview's answer, as the route builds it (types only: nothing of the server is bundled). */
export type Overview = OverviewSeriesAnswer & { trouble: OverviewTrouble };
export type { TroubleCounts };
