/** The services of the distributed topology, each run with `junction serve <name>`. */
export const SERVICES = ["connection", "proxy", "channel", "webhook", "scripts", "gateway"] as const;
export type ServiceName = (typeof SERVICES)[number];
