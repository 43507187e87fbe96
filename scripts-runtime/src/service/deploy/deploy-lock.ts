import { randomToken } from "@junction/platform";
import type { ScriptsServiceContext } from "../context.ts";
import { errors } from "../errors.ts";

/**
 * How long a deploy holds its environment's lock at most: a holder that died frees it after this.
 * A deploy checks every bundle in the sandbox before it stores anything; a project of hundreds of
 * scripts takes minutes on a loaded machine.
 */
export const DEPLOY_LOCK_MS = 10 * 60_000;

/**
 * Runs a deploy that changes the environment's scripts (`nango deploy`, `POST /scripts`, a removal)
 * holding the environment's deploy lock, so that two never interleave, across every process sharing
 * the store. A second deploy meanwhile is refused at once with 409 `concurrent_deployment`, as Nango
 * refuses it: waiting would hold an HTTP request for as long as the first one checks its bundles.
 */
export async function withDeployLock<T>(ctx: ScriptsServiceContext, environmentId: string, fn: () => Promise<T>) {
  const holder = `${ctx.instanceId}/${randomToken(6)}`;
  const now = ctx.clock.now();
  if (!(await ctx.store.acquireDeployLock(environmentId, { holder, until: now + DEPLOY_LOCK_MS }, now))) {
    throw errors.concurrentDeployment();
  }
  try {
    return await fn();
  } finally {
    await ctx.store
      .releaseDeployLock(environmentId, holder)
      .catch((err: unknown) => ctx.logger.error("deploy lock not released; it lapses", { error: err }));
  }
}
