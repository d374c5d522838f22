import type { ApiShape } from "./refusal";

export type UpstreamKind = "openai" | "anthropic" | "openai-compatible" | "vercel-ai-gateway";

export interface Upstream {
  kind: UpstreamKind;
  /** Up to and including /v1. */
  baseUrl: string;
  /** The real key, from ClawRun's environment. */
  apiKey: string;
}

export const DEFAULT_BASE_URLS: Record<Exclude<UpstreamKind, "openai-compatible">, string> = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com/v1",
  // Speaks both the OpenAI and the Anthropic shapes.
  "vercel-ai-gateway": "https://ai-gateway.vercel.sh/v1",
};

/** Pure: whether an upstream answers requests of this shape. */
export function speaks(kind: UpstreamKind, shape: ApiShape): boolean {
  if (kind === "vercel-ai-gateway") return true;
  return shape === "anthropic" ? kind === "anthropic" : kind !== "anthropic";
}

/** Headers the agent sent that describe the request and must reach the model server. */
const PASSED_HEADERS = [
  "content-type",
  "accept",
  "anthropic-version",
  "anthropic-beta",
  "openai-beta",
];

/**
 * Pure: the upstream request's URL and headers. The agent's own credential is dropped and the
 * real key put in the header the upstream's API reads.
 */
export function upstreamRequest(
  upstream: Upstream,
  shape: ApiShape,
  path: string,
  incoming: Headers,
): { url: string; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  for (const name of PASSED_HEADERS) {
    const v = incoming.get(name);
    if (v !== null) headers[name] = v;
  }
  if (shape === "anthropic" && upstream.kind === "anthropic") {
    headers["x-api-key"] = upstream.apiKey;
    headers["anthropic-version"] ??= "2023-06-01";
  } else {
    headers.authorization = `Bearer ${upstream.apiKey}`;
  }
  return { url: `${upstream.baseUrl.replace(/\/$/, "")}${path}`, headers };
}
