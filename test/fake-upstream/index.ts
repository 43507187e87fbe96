export * from "@junction/sandbox-upstream";
