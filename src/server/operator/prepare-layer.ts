import { NextResponse } from "next/server";
import type { AppContext } from "../app-context";
import { jsonError } from "../http/errors";
import { layerId } from "../layers/layer-id";
import { errorMessage } from "../sandbox/deps";
import { TemplatedProvider } from "../sandbox/templated/templated-provider";

/**
 * `POST /api/sandbox/layer` (`npx clawrun agent prepare`): makes the agent's layer ready
 * before the first start needs it, so no message waits for the build. A templated provider
 * (Vercel, snapshot mode) builds its template snapshot under the lifecycle lock, so two
 * servers preparing at once build it once (the second waits, then reuses it); a provider with
 * shared layers (local) builds the layer directory (its store's rename decides a race).
 */

export interface PreparedLayer {
  layerId: string;
  /** "template": a snapshot the agent's sandboxes are created from; "shared": a mounted directory. */
  kind: "template" | "shared";
  action: "reused" | "built" | "rebuilt";
  snapshotId: string | null;
  ms: number;
}

const LOCK_POLL_MS = 1_000;

export async function prepareLayer(
  ctx: Pick<AppContext, "provider" | "manager" | "agent" | "clock">,
  o: { waitMs: number },
): Promise<Response> {
  const recipe = ctx.agent.layer?.();
  if (!recipe)
    return jsonError(409, "no_layer", `the ${ctx.agent.name} agent has no layer to prepare`);
  const id = layerId(recipe);
  const t0 = ctx.clock();
  const provider = ctx.provider;
  try {
    if (provider instanceof TemplatedProvider) {
      const signal = AbortSignal.timeout(o.waitMs);
      for (;;) {
        const r = await ctx.manager.withLock(() => provider.ensureTemplate(signal));
        if (r.acquired)
          return ok({
            layerId: id,
            kind: "template",
            action: r.value.action,
            snapshotId: r.value.snapshotId,
            ms: ctx.clock() - t0,
          });
        if (ctx.clock() - t0 + LOCK_POLL_MS > o.waitMs)
          return jsonError(
            409,
            "busy",
            "another lifecycle operation held the lock the whole time (a start builds the template itself); try again",
          );
        await new Promise((r) => setTimeout(r, LOCK_POLL_MS));
      }
    }
    if (provider.capabilities.sharedLayers && provider.layers) {
      const built = await provider.layers.ensure(recipe, AbortSignal.timeout(o.waitMs));
      return ok({
        layerId: built.id,
        kind: "shared",
        action: built.action,
        snapshotId: null,
        ms: ctx.clock() - t0,
      });
    }
  } catch (err) {
    return jsonError(502, "layer_build_failed", `layer ${id}: ${errorMessage(err)}`);
  }
  return jsonError(
    409,
    "no_shared_layers",
    `the ${provider.name} provider in this mode keeps no shared layer: the agent installs itself in its own sandbox`,
  );
}

function ok(body: PreparedLayer): Response {
  return NextResponse.json(body);
}
