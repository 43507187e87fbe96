#!/usr/bin/env bun
/**
 * The Junction command (`junction --help`, docs/cli.md).
 *   junction start              everything in one process (the embedded default)
 *   junction up | down          the distributed topology on this machine, supervised
 *   junction serve <service>    one process of the distributed topology
 *   junction <resource> ...     daily operations on a running Junction over its REST API
 *   junction rekey              re-encrypt every stored secret under the current key
 */
import { execWithAllocatorSettings } from "./src/allocator-settings.ts";

const argv = process.argv.slice(2);
// A long-running command first takes its allocator settings, read only at exec, before the modules load
// (loading them twice would cost ~0.7 s of CPU).
if (argv[0] === "start" || argv[0] === "serve") execWithAllocatorSettings(process.env);
const { runCommand } = await import("./src/cli-main.ts");
runCommand(argv);
